// Playing a whole game through the package: one client (its own storage, as its own browser)
// per seat, each moving a legal move drawn from a seeded generator whenever its seat must act.

import { emptyTable, layAside, memoryStorage, reduceTable, TricktableClient, type GameSession, type NewGame, type PlainMove, type Protocol, type TableState } from "../../src/index.js";

/** A small seeded generator (mulberry32): the same seed, the same choices. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A legal move of the table's, drawn by `random` (a lay-aside: the first cards offered). */
export function chooseMove(state: TableState, random: () => number): PlainMove | undefined {
  const { moves, layAside: offer } = state.legal;
  const options: PlainMove[] = [...moves];
  if (offer) options.push(layAside(offer, offer.cards.slice(0, offer.count)));
  return options[Math.floor(random() * options.length)];
}

export interface Table {
  readonly gameId: string;
  readonly seats: GameSession[];
  readonly clients: TricktableClient[];
}

/** A new game with every seat taken, each by a client of its own. */
export async function seatEveryone(baseUrl: string, game: NewGame, protocol: Protocol = "connect"): Promise<Table> {
  const host = new TricktableClient({ baseUrl, protocol });
  const created = await host.createGame(game);
  const seatCount = (await host.gameType(game.gameType)).seats;
  const clients: TricktableClient[] = [];
  const seats: GameSession[] = [];
  for (let seat = 0; seat < seatCount; seat++) {
    const client = new TricktableClient({ baseUrl, protocol, storage: memoryStorage() });
    clients.push(client);
    seats.push(await client.join(created.gameId, { seat, playerName: `P${seat}` }));
  }
  return { gameId: created.gameId, seats, clients };
}

/** Each seat's table now, from a fresh view. */
export async function tableOf(session: GameSession): Promise<TableState> {
  const snap = await session.snapshot();
  const gameType = await session.client.gameType(snap.game.gameType);
  return reduceTable(emptyTable(gameType, session.gameId), { type: "view", view: snap.view, version: snap.version, game: snap.game }, gameType);
}

/** Plays legal moves for every seat until the game ends; the number of moves made. */
export async function playToTheEnd(
  table: Table,
  seed: number,
  options: { maxMoves?: number; beforeMove?: (version: number) => Promise<void> } = {},
): Promise<number> {
  const maxMoves = options.maxMoves ?? 5000;
  const random = seeded(seed);
  let moves = 0;
  while (moves < maxMoves) {
    let moved = false;
    for (const session of table.seats) {
      const state = await tableOf(session);
      if (state.finished || state.status === "abandoned") return moves;
      if (!state.yourTurn) continue;
      const move = chooseMove(state, random);
      if (!move) throw new Error(`seat ${session.seat} must act but has no legal move: ${JSON.stringify(state.legal)}`);
      await options.beforeMove?.(state.viewVersion);
      await session.move(move, state.viewVersion);
      moves += 1;
      moved = true;
    }
    if (!moved) await new Promise((r) => setTimeout(r, 20)); // a server bot's or a clock's turn
  }
  throw new Error(`no end after ${maxMoves} moves`);
}

/** Resolves once `ready()` holds, looking every few milliseconds (a wait, never an assertion). */
export async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 5));
}
