// A table that keeps itself current: the seat's view, then its events as they come (the stream
// resumes by itself), the view read again whenever the events have moved past it, and the
// lobby's summary now and then while seats are open (taking a seat is no event of the game).
// Each change reaches the listener as a new TableState.

import { type GameType } from "./gen/tricktable/v1/game_types_pb.js";
import { ServerTime } from "./clock.js";
import { isTransient, toTricktableError, type TricktableError } from "./errors.js";
import { type PlainMove } from "./moves.js";
import { rematchState, sleep, type GameSession, type RematchState } from "./session.js";
import { emptyTable, reduceTable, type TableInput, type TableState } from "./table.js";

export interface FollowOptions {
  readonly signal?: AbortSignal;
  /** How often the game is read while it waits for players (default 1000 ms). */
  readonly waitingPollMs?: number;
  /** Told when the stream dropped and is being resumed. */
  readonly onDrop?: (error: TricktableError) => void;
  /** After the game's end, go on following its seats' rematch offers: `onRematch` hears each,
   * and `done` settles after the one naming the next game. */
  readonly followRematch?: boolean;
  /** A rematch offer of the ended game; `next` is this seat at the next game once the offer
   * names it (kept in the storage), else null. */
  readonly onRematch?: (offer: RematchState, next: GameSession | null) => void;
}

export interface TableFeed {
  /** The table now. */
  readonly state: TableState;
  readonly gameType: GameType;
  /** The server's clock, learned from the views: `timeLeft(clock, serverTime.now())`. */
  readonly serverTime: ServerTime;
  /** The ended game's rematch as it stands, with `followRematch` (null: none offered). */
  readonly rematch: RematchState | null;
  /** Read the game again now (after a refused move, say) and tell the listener. */
  refresh(): Promise<void>;
  /** Feed the table something received elsewhere. */
  apply(input: TableInput): void;
  /** Make a move decided on the table's view (TableState.viewVersion); the answer's view comes
   * to the listener at once. Refused: the table is read again and the TricktableError thrown. */
  move(move: PlainMove): Promise<void>;
  stop(): void;
  /** Settles once the game has ended and its last view has been read (or on stop); rejects
   * with a refusal that ends the following (no such game). */
  readonly done: Promise<void>;
}

/** Follow a game as `session`'s seat (or spectator) sees it: `listener` gets each new table,
 * and the feed itself (from the first call on, before followTable resolves). */
export async function followTable(
  session: GameSession,
  listener: (state: TableState, feed: TableFeed) => void,
  options: FollowOptions = {},
): Promise<TableFeed> {
  const stop$ = new AbortController();
  options.signal?.addEventListener("abort", () => stop$.abort(), { once: true });
  const signal = stop$.signal;
  const serverTime = new ServerTime();
  const first = await session.snapshot({ signal });
  const gameType = await session.client.gameType(first.game.gameType);
  let state = emptyTable(gameType, session.gameId);

  let shown = "";
  const apply = (input: TableInput): void => {
    const next = reduceTable(state, input, gameType);
    const text = JSON.stringify(next); // a view read again that shows nothing new is not news
    if (text !== shown) {
      state = next;
      shown = text;
      listener(state, feed);
    }
  };
  const take = (snap: Awaited<ReturnType<GameSession["snapshot"]>>): void => {
    serverTime.learn(snap.view);
    apply({ type: "view", view: snap.view, version: snap.version, game: snap.game });
  };
  const refresh = async (): Promise<void> => take(await session.snapshot({ signal }));
  /** Reads the game again, trying again while the server cannot be reached. */
  const settle = async (): Promise<void> => {
    for (let wait = 250; !signal.aborted; wait = Math.min(wait * 2, 5000)) {
      try {
        return await refresh();
      } catch (err) {
        const error = toTricktableError(err);
        if (signal.aborted || !isTransient(error)) throw error;
        options.onDrop?.(error);
        await sleep(wait, signal);
      }
    }
  };

  const waiting = async (): Promise<void> => {
    while (!signal.aborted && state.status === "waiting") {
      await sleep(options.waitingPollMs ?? 1000, signal);
      if (!signal.aborted) await settle();
    }
  };
  const events = async (): Promise<void> => {
    // From the view's version on: what came before is in the view.
    const followRematch = options.followRematch ?? false;
    const stream = session.events({ signal, fromVersion: state.viewVersion + 1, onDrop: (e) => options.onDrop?.(e), followRematch });
    for await (const batch of stream) {
      if (batch.rematch) {
        // After the end: an offer to play again, no change to this game's table.
        const offer = (rematch = rematchState(batch.rematch));
        options.onRematch?.(offer, offer.gameId ? await session.nextGame(offer.gameId, { signal }) : null);
        continue;
      }
      apply({ type: "events", batch });
      if (Number(batch.version) > state.viewVersion) await settle();
    }
    if (!signal.aborted) await settle(); // the game's last view
  };
  const move = async (chosen: PlainMove): Promise<void> => {
    let answer;
    try {
      answer = await session.move(chosen, state.viewVersion, { signal });
    } catch (err) {
      await settle().catch(() => undefined); // the table as it is now, then the refusal
      throw err;
    }
    apply({ type: "view", view: answer.view, version: answer.viewVersion });
  };
  let done: Promise<void> = Promise.resolve();
  let rematch: RematchState | null = null;
  const feed: TableFeed = {
    get state() {
      return state;
    },
    gameType,
    serverTime,
    get rematch() {
      return rematch;
    },
    refresh,
    apply,
    move,
    stop: () => stop$.abort(),
    get done() {
      return done;
    },
  };
  take(first);
  done = Promise.all([waiting(), events()]).then(
    () => undefined,
    (err: unknown) => {
      if (!signal.aborted) throw err;
    },
  );
  return feed;
}
