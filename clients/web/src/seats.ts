// The seats this browser holds, kept in localStorage so that a closed tab, a crashed browser or
// a phone that discarded the tab can take its seat back.
//
// - localStorage `tricktable.seats.<game>`: every seat of that game this browser joined (one
//   browser may hold several seats of one game: friends round one laptop, or a test).
// - sessionStorage `tricktable.seat.<game>`: the seat this tab plays, so that a reload resumes
//   it at once and two tabs can play two seats of one game. A new tab starts as a spectator and
//   offers "take my seat back" for each seat the browser holds.
// - localStorage `tricktable.seat-games`: the games held, oldest first, so the lobby can list
//   them and the oldest are forgotten beyond MAX_GAMES.

export interface Seat {
  seat: number;
  token: string;
  /** The name the seat was taken under (for the lobby's "your games"). */
  name?: string;
}

const MAX_GAMES = 50;
const heldKey = (gameId: string) => `tricktable.seats.${gameId}`;
const tabKey = (gameId: string) => `tricktable.seat.${gameId}`;
const INDEX = "tricktable.seat-games";

function read<T>(storage: Storage, key: string, fallback: T): T {
  try {
    const text = storage.getItem(key);
    return text === null ? fallback : (JSON.parse(text) as T);
  } catch {
    return fallback; // written by another version of the page, or by hand: ignore it
  }
}

function isSeat(value: unknown): value is Seat {
  const seat = value as Seat;
  return typeof seat === "object" && seat !== null && typeof seat.seat === "number" && typeof seat.token === "string";
}

/** Every seat of a game this browser holds, by seat number. */
export function heldSeats(gameId: string): Seat[] {
  const seats = read<unknown[]>(localStorage, heldKey(gameId), []);
  return (Array.isArray(seats) ? seats.filter(isSeat) : []).sort((a, b) => a.seat - b.seat);
}

/** The games this browser holds a seat in, most recent first. */
export function gamesHeld(): string[] {
  const ids = read<unknown[]>(localStorage, INDEX, []);
  return (Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : []).reverse();
}

/** Keep a seat just taken (in this browser, and as this tab's seat). */
export function holdSeat(gameId: string, seat: Seat): void {
  remember(gameId, seat);
  useSeat(gameId, seat);
}

function remember(gameId: string, seat: Seat): void {
  const others = heldSeats(gameId).filter((s) => s.seat !== seat.seat);
  localStorage.setItem(heldKey(gameId), JSON.stringify([...others, seat]));
  const ids = gamesHeld().reverse().filter((id) => id !== gameId);
  ids.push(gameId);
  for (const old of ids.splice(0, Math.max(0, ids.length - MAX_GAMES))) localStorage.removeItem(heldKey(old));
  localStorage.setItem(INDEX, JSON.stringify(ids));
}

/** Forget a seat this browser no longer holds (left, or its token refused). */
export function forgetSeat(gameId: string, seat: number): void {
  const left = heldSeats(gameId).filter((s) => s.seat !== seat);
  if (left.length) localStorage.setItem(heldKey(gameId), JSON.stringify(left));
  else {
    localStorage.removeItem(heldKey(gameId));
    localStorage.setItem(INDEX, JSON.stringify(gamesHeld().reverse().filter((id) => id !== gameId)));
  }
  const mine = read<unknown>(sessionStorage, tabKey(gameId), undefined); // not tabSeat: it keeps
  if (isSeat(mine) && mine.seat === seat) sessionStorage.removeItem(tabKey(gameId));
}

/** Forget every seat of a game that is gone. */
export function forgetGame(gameId: string): void {
  for (const seat of heldSeats(gameId)) forgetSeat(gameId, seat.seat);
}

/** Play `seat` in this tab. */
export function useSeat(gameId: string, seat: Seat): void {
  sessionStorage.setItem(tabKey(gameId), JSON.stringify(seat));
}

/** The seat this tab plays, if any. A tab opened before seats were kept in localStorage holds
 * its seat only here: the browser keeps it from now on. */
export function tabSeat(gameId: string): Seat | undefined {
  const seat = read<unknown>(sessionStorage, tabKey(gameId), undefined);
  if (!isSeat(seat)) return undefined;
  if (!heldSeats(gameId).some((s) => s.seat === seat.seat && s.token === seat.token)) remember(gameId, seat);
  return seat;
}
