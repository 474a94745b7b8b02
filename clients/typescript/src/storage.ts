// Where a seat's token and the last version seen are kept: a storage the caller gives, with
// localStorage's methods, so in a browser `localStorage` (a seat outlives its tab) or
// `sessionStorage` (one seat per tab) serves as it is.
//
// Keys (all under "tricktable."):
// - `seat.<game>`: the seat last taken at a game (what `resume(gameId)` finds), as it always was;
// - `seats.<game>`: every seat of the game this storage holds, by seat number (one browser may
//   hold several seats of one game: friends round one laptop, a rematch's moved seats);
// - `version.<game>.<seat>`: the last version that seat (or "spectator") has seen;
// - `quickplay`: the quick play ticket waited on, to resume after a reload.
// A storage written before `seats.<game>` existed is read as holding its one `seat.<game>`.

/** The part of the Web Storage interface this package uses. */
export interface SeatStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A storage in memory: what a process keeps while it runs (Node, tests). */
export function memoryStorage(): SeatStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, String(value)),
    removeItem: (key) => void items.delete(key),
  };
}

/** A seat taken: its number and its secret token. */
export interface SavedSeat {
  readonly seat: number;
  readonly token: string;
}

const PREFIX = "tricktable";
export const seatKey = (gameId: string): string => `${PREFIX}.seat.${gameId}`;
export const versionKey = (gameId: string, seat: number | null): string =>
  `${PREFIX}.version.${gameId}.${seat === null ? "spectator" : seat}`;

export function readSeat(storage: SeatStorage, gameId: string): SavedSeat | null {
  const text = storage.getItem(seatKey(gameId));
  if (text === null) return null;
  try {
    const kept: unknown = JSON.parse(text);
    return isSavedSeat(kept) ? { seat: kept.seat, token: kept.token } : null;
  } catch {
    return null; // another program's value under our key: no seat
  }
}

export const seatsKey = (gameId: string): string => `${PREFIX}.seats.${gameId}`;

function isSavedSeat(value: unknown): value is SavedSeat {
  const kept = value as Partial<SavedSeat> | null;
  return typeof kept === "object" && kept !== null && typeof kept.seat === "number" && Number.isInteger(kept.seat) && typeof kept.token === "string";
}

/** Every seat of a game this storage holds, by seat number (the last taken included). */
export function readSeats(storage: SeatStorage, gameId: string): SavedSeat[] {
  let listed: unknown = [];
  try {
    listed = JSON.parse(storage.getItem(seatsKey(gameId)) ?? "[]");
  } catch {
    listed = []; // another program's value under our key: none
  }
  const seats = new Map<number, SavedSeat>();
  for (const kept of Array.isArray(listed) ? listed : []) if (isSavedSeat(kept)) seats.set(kept.seat, { seat: kept.seat, token: kept.token });
  const last = readSeat(storage, gameId); // kept alone by an earlier version of this package
  if (last && !seats.has(last.seat)) seats.set(last.seat, last);
  return [...seats.values()].sort((a, b) => a.seat - b.seat);
}

/** Keep a seat just taken: among the game's seats, and as the one `resume(gameId)` finds. */
export function writeSeat(storage: SeatStorage, gameId: string, seat: SavedSeat): void {
  const others = readSeats(storage, gameId).filter((s) => s.seat !== seat.seat);
  const plain = { seat: seat.seat, token: seat.token };
  storage.setItem(seatsKey(gameId), JSON.stringify([...others, plain].sort((a, b) => a.seat - b.seat)));
  storage.setItem(seatKey(gameId), JSON.stringify(plain));
}

/** Forget one seat of a game (and its last version); the last taken becomes another held one. */
export function removeSeat(storage: SeatStorage, gameId: string, seat: number): void {
  const left = readSeats(storage, gameId).filter((s) => s.seat !== seat);
  storage.removeItem(versionKey(gameId, seat));
  if (left.length === 0) {
    storage.removeItem(seatsKey(gameId));
    storage.removeItem(seatKey(gameId));
    return;
  }
  storage.setItem(seatsKey(gameId), JSON.stringify(left));
  if (readSeat(storage, gameId)?.seat === seat) storage.setItem(seatKey(gameId), JSON.stringify(left[left.length - 1]));
}

/** The last version seen of a game by this seat (or spectator); -1: none. */
export function readVersion(storage: SeatStorage, gameId: string, seat: number | null): number {
  const text = storage.getItem(versionKey(gameId, seat));
  const version = text === null ? NaN : Number(text);
  return Number.isSafeInteger(version) && version >= 0 ? version : -1;
}

export function writeVersion(storage: SeatStorage, gameId: string, seat: number | null, version: number): void {
  storage.setItem(versionKey(gameId, seat), String(version));
}

/** A quick play ticket being waited on, kept so that a reload resumes the wait. */
export interface SavedTicket {
  readonly ticket: string;
  readonly gameType: string;
  readonly playerName: string;
}

export const ticketKey = `${PREFIX}.quickplay`;

export function readTicket(storage: SeatStorage): SavedTicket | null {
  try {
    const kept = JSON.parse(storage.getItem(ticketKey) ?? "null") as Partial<SavedTicket> | null;
    if (!kept || typeof kept.ticket !== "string" || !kept.ticket) return null;
    return { ticket: kept.ticket, gameType: typeof kept.gameType === "string" ? kept.gameType : "", playerName: typeof kept.playerName === "string" ? kept.playerName : "" };
  } catch {
    return null;
  }
}

export function writeTicket(storage: SeatStorage, ticket: SavedTicket | null): void {
  if (ticket) storage.setItem(ticketKey, JSON.stringify({ ticket: ticket.ticket, gameType: ticket.gameType, playerName: ticket.playerName }));
  else storage.removeItem(ticketKey);
}
