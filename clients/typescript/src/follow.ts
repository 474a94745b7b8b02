// A table that keeps itself current: the seat's view, then its events as they come (the stream
// resumes by itself), the view read again whenever the events have moved past it, and the
// game read again now and then while seats are open (taking a seat is no event of the game)
// and, if asked, while it runs (nor is who is connected). Each change reaches the listener as a
// new TableState.

import { type StreamEventsResponse } from "./gen/tricktable/v1/game_service_pb.js";
import { type GameType } from "./gen/tricktable/v1/game_types_pb.js";
import { type View } from "./gen/tricktable/v1/views_pb.js";
import { ServerTime } from "./clock.js";
import { isTransient, toTricktableError, type TricktableError } from "./errors.js";
import { type GameInfo } from "./game.js";
import { type PlainMove } from "./moves.js";
import { rematchState, sleep, type GameSession, type RematchState, type Snapshot } from "./session.js";
import { emptyTable, reduceTable, type TableInput, type TableState } from "./table.js";

export interface FollowOptions {
  readonly signal?: AbortSignal;
  /** The first version of the stream (default: the one after the first view's). A caller that
   * keeps the events it has received (an event log kept across a reload) gives the one after
   * the last it has: versions the view already shows reach `onEvents` and leave the table as
   * it is. */
  readonly fromVersion?: number;
  /** Each batch of events as it comes, before the table takes it; the versions the view
   * already shows and the rematch offers included. */
  readonly onEvents?: (batch: StreamEventsResponse, feed: TableFeed) => void;
  /** Each time the game has been read (the first read, a re-read, a poll), whether or not the
   * table changed: after `onDrop`, the server answers again. */
  readonly onRead?: (snapshot: Snapshot, feed: TableFeed) => void;
  /** How often the game is read while it waits for players (default 1000 ms). */
  readonly waitingPollMs?: number;
  /** How often the game is read while it runs (default: never). Who is connected is no event
   * of the game: only a read view says it. */
  readonly presencePollMs?: number;
  /** Told when the stream dropped, or a read failed, and is being tried again. */
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
  /** The session the game is followed as (see `switchSession`). */
  readonly session: GameSession;
  /** The game as last read: its options, visibility, time control. */
  readonly game: GameInfo;
  /** The view the table took last (a read's, or a move's answer), for what the model leaves
   * to the protocol's own messages: a game's details in its own words. */
  readonly view: View;
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
  /** Follow the same game as another seat from now on (one just taken or taken back, or a
   * spectator's `client.watch(gameId)` once the seat is left): the game is read again as it
   * sees it, and the stream goes on from the next version with its token, nothing received
   * twice. Resolves once that read is done; rejects as `refresh()` does. */
  switchSession(session: GameSession): Promise<void>;
  stop(): void;
  /** Settles once the game has ended and its last view has been read (or on stop); rejects
   * with a refusal that ends the following (no such game, a seat's token no longer good). */
  readonly done: Promise<void>;
}

/** Follow a game as `session`'s seat (or spectator) sees it: `listener` gets each new table,
 * and the feed itself (from the first call on, before followTable resolves). */
export async function followTable(
  firstSession: GameSession,
  listener: (state: TableState, feed: TableFeed) => void,
  options: FollowOptions = {},
): Promise<TableFeed> {
  const stop$ = new AbortController();
  if (options.signal?.aborted) stop$.abort();
  options.signal?.addEventListener("abort", () => stop$.abort(), { once: true });
  const signal = stop$.signal;
  /** Ends the stream of a session given up for another (switchSession). */
  let restream = new AbortController();
  /** Ends the polls once the stream has ended. */
  const quiet$ = new AbortController();
  signal.addEventListener(
    "abort",
    () => {
      restream.abort();
      quiet$.abort();
    },
    { once: true },
  );
  let session = firstSession;
  const serverTime = new ServerTime();
  const first = await session.snapshot({ signal });
  const gameType = await session.client.gameType(first.game.gameType);
  let state = emptyTable(gameType, session.gameId);
  let game = first.game;
  let view = first.view;

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
  /** A view read by `from`: not taken once the game is followed as another session. */
  const take = (snap: Snapshot, from: GameSession): void => {
    if (from !== session) return;
    serverTime.learn(snap.view);
    if (snap.game.version >= game.version) game = snap.game;
    if (snap.version >= state.viewVersion) view = snap.view;
    apply({ type: "view", view: snap.view, version: snap.version, game: snap.game });
    options.onRead?.(snap, feed);
  };
  const refresh = async (): Promise<void> => {
    const from = session;
    take(await from.snapshot({ signal }), from);
  };
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

  const poll = async (): Promise<void> => {
    for (;;) {
      const every = state.status === "waiting" ? (options.waitingPollMs ?? 1000) : state.status === "playing" ? options.presencePollMs : undefined;
      if (quiet$.signal.aborted || !every) return;
      await sleep(every, quiet$.signal);
      if (!quiet$.signal.aborted) await settle();
    }
  };
  /** The next version to stream: what came before is in the view, or the caller has it. */
  let next = options.fromVersion ?? first.version + 1;
  const events = async (): Promise<void> => {
    const followRematch = options.followRematch ?? false;
    while (!signal.aborted) {
      const from = session;
      const given = restream.signal;
      try {
        const stream = from.events({ signal: given, fromVersion: next, onDrop: (e) => options.onDrop?.(e), followRematch });
        for await (const batch of stream) {
          next = Number(batch.version) + 1;
          options.onEvents?.(batch, feed);
          if (batch.rematch) {
            // After the end: an offer to play again, no change to this game's table.
            const offer = (rematch = rematchState(batch.rematch));
            options.onRematch?.(offer, offer.gameId ? await from.nextGame(offer.gameId, { signal }) : null);
            continue;
          }
          apply({ type: "events", batch });
          if (Number(batch.version) > state.viewVersion) await settle();
        }
      } catch (err) {
        if (!given.aborted) throw err; // a refusal, not a stream given up for another session
      }
      if (signal.aborted) return;
      if (given.aborted) continue; // followed on as the new session sees it
      return await settle(); // the game's last view
    }
  };
  const move = async (chosen: PlainMove): Promise<void> => {
    const from = session;
    let answer;
    try {
      answer = await from.move(chosen, state.viewVersion, { signal });
    } catch (err) {
      await settle().catch(() => undefined); // the table as it is now, then the refusal
      throw err;
    }
    if (from !== session) return;
    if (answer.viewVersion >= state.viewVersion) view = answer.view;
    apply({ type: "view", view: answer.view, version: answer.viewVersion });
  };
  const switchSession = async (to: GameSession): Promise<void> => {
    if (to.gameId !== session.gameId) throw new Error(`another game (${to.gameId}), not ${session.gameId}`);
    session = to;
    const given = restream;
    restream = new AbortController();
    if (signal.aborted) restream.abort();
    given.abort();
    if (!signal.aborted) await refresh();
  };
  let done: Promise<void> = Promise.resolve();
  let rematch: RematchState | null = null;
  const feed: TableFeed = {
    get state() {
      return state;
    },
    gameType,
    get session() {
      return session;
    },
    get game() {
      return game;
    },
    get view() {
      return view;
    },
    serverTime,
    get rematch() {
      return rematch;
    },
    refresh,
    apply,
    move,
    switchSession,
    stop: () => stop$.abort(),
    get done() {
      return done;
    },
  };
  take(first, session);
  done = Promise.all([poll(), events().finally(() => quiet$.abort())]).then(
    () => undefined,
    (err: unknown) => {
      const stopped = signal.aborted;
      stop$.abort(); // one part refused: the other ends too
      if (!stopped) throw err;
    },
  );
  return feed;
}
