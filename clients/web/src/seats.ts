// Which seat this tab plays, and which games this browser holds seats in. The seats themselves
// (their tokens, several per game if need be) are the client package's, kept in localStorage
// (`tricktable.seats.<game>`), so a closed tab, a crashed browser or a phone that discarded the
// tab can take its seat back.
//
// - sessionStorage `tricktable.seat.<game>`: the seat this tab plays, so that a reload resumes
//   it at once and two tabs can play two seats of one game. A new tab starts as a spectator and
//   offers "take my seat back" for each seat the browser holds.
// - localStorage `tricktable.seat-games`: the games held, oldest first, so the lobby can list
//   them and the oldest are forgotten beyond MAX_GAMES.

import { type GameSession, type TricktableClient } from "@tricktable/client";

const MAX_GAMES = 50;
const tabKey = (gameId: string) => `tricktable.seat.${gameId}`;
const INDEX = "tricktable.seat-games";

function read(storage: Storage, key: string): unknown {
  try {
    return JSON.parse(storage.getItem(key) ?? "null");
  } catch {
    return null; // written by another version of the page, or by hand: ignore it
  }
}

/** The games this browser holds a seat in, most recent first. */
export function gamesHeld(): string[] {
  const ids = read(localStorage, INDEX);
  return (Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : []).reverse();
}

/** Note a game this browser holds a seat in (the client keeps the seat itself). */
export function remember(client: TricktableClient, gameId: string): void {
  const ids = gamesHeld().reverse().filter((id) => id !== gameId);
  ids.push(gameId);
  for (const old of ids.splice(0, Math.max(0, ids.length - MAX_GAMES))) for (const seat of client.seats(old)) seat.forget();
  localStorage.setItem(INDEX, JSON.stringify(ids));
}

/** Forget a seat this browser no longer holds (left, or its token refused). */
export function forgetSeat(session: GameSession): void {
  session.forget();
  if (!session.client.seats(session.gameId).length) localStorage.setItem(INDEX, JSON.stringify(gamesHeld().reverse().filter((id) => id !== session.gameId)));
  const mine = read(sessionStorage, tabKey(session.gameId)) as { seat?: unknown } | null;
  if (mine?.seat === session.seat) sessionStorage.removeItem(tabKey(session.gameId));
}

/** Forget every seat of a game that is gone. */
export function forgetGame(client: TricktableClient, gameId: string): void {
  for (const seat of client.seats(gameId)) forgetSeat(seat);
  localStorage.setItem(INDEX, JSON.stringify(gamesHeld().reverse().filter((id) => id !== gameId)));
}

/** Play `session`'s seat in this tab (and keep the game among this browser's). */
export function useSeat(session: GameSession): void {
  sessionStorage.setItem(tabKey(session.gameId), JSON.stringify({ seat: session.seat, token: session.token }));
  remember(session.client, session.gameId);
}

/** The seat this tab plays, if any. A tab opened before seats were kept in localStorage holds
 * its seat only here: the browser keeps it from now on. */
export function tabSeat(client: TricktableClient, gameId: string): GameSession | undefined {
  const seat = read(sessionStorage, tabKey(gameId)) as { seat?: unknown; token?: unknown } | null;
  if (typeof seat?.seat !== "number" || typeof seat.token !== "string") return undefined;
  const held = client.seats(gameId).find((s) => s.seat === seat.seat && s.token === seat.token);
  if (held) return held;
  remember(client, gameId);
  return client.hold(gameId, seat.seat, seat.token);
}
