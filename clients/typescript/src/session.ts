// One game as one seat (or a spectator) plays and watches it: reading it, moving, leaving, and
// its events as a stream that resumes by itself.

import { type CallOptions } from "@connectrpc/connect";
import { type GameSummary, type RematchOffer, type StreamEventsResponse } from "./gen/tricktable/v1/game_service_pb.js";
import { type View } from "./gen/tricktable/v1/views_pb.js";
import { call, type TricktableClient } from "./client.js";
import { isTransient, toTricktableError, type TricktableError } from "./errors.js";
import { gameInfo, type GameInfo } from "./game.js";
import { toMove, type PlainMove } from "./moves.js";
import { readVersion, removeSeat, versionKey, writeSeat, writeVersion, type SavedSeat } from "./storage.js";

/** The game and the caller's view of it at one version. */
export interface Snapshot {
  readonly game: GameInfo;
  /** The same game as the protocol's GameSummary, for a UI drawn from it. */
  readonly summary: GameSummary;
  readonly view: View;
  /** The version the view shows: the expected version of the seat's next move. */
  readonly version: number;
}

export interface MoveResult {
  /** The game's version after the move. */
  readonly version: number;
  /** The game after the move as the seat sees it, at `viewVersion`. */
  readonly view: View;
  readonly viewVersion: number;
}

export interface StreamOptions {
  /** The first version to receive; by default the one after the last this storage has seen
   * (0: the game from its first deal). */
  readonly fromVersion?: number;
  readonly signal?: AbortSignal;
  /** The wait before resuming a dropped stream: first `retryMs` (default 250), doubling up
   * to `maxRetryMs` (default 5000); a RetryInfo's delay when the server gave one. */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
  /** Told each time the stream dropped and is about to be resumed. */
  readonly onDrop?: (error: TricktableError, resumeFrom: number) => void;
  /** Go on after the game's end with its seats' rematch offers (batches whose `rematch` is
   * set), up to the one naming the next game, whose seat this session's moves to (kept in
   * the storage: `nextGame(gameId)`, `client.resume(gameId)`). */
  readonly followRematch?: boolean;
}

/** A rematch as it stands: the seats of the ended game that accepted, and once every human
 * seat has, the next game (null until then). */
export interface RematchState {
  readonly accepted: readonly number[];
  readonly gameId: string | null;
}

export function rematchState(offer: RematchOffer): RematchState {
  return { accepted: [...offer.accepted], gameId: offer.gameId || null };
}

function requestId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16)); // randomUUID needs https
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Waits `ms`, or less if `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

export class GameSession {
  constructor(
    readonly client: TricktableClient,
    readonly gameId: string,
    private readonly saved: SavedSeat | null,
  ) {}

  /** The seat; null for a spectator. */
  get seat(): number | null {
    return this.saved?.seat ?? null;
  }

  /** The seat's secret token (send as `authorization: Bearer`); null for a spectator. */
  get token(): string | null {
    return this.saved?.token ?? null;
  }

  /** The number of seats at the game, once a snapshot has shown it. */
  private seatCount?: number;

  /** Call options carrying the seat's token (and the client's player token, if any). */
  callOptions(signal?: AbortSignal): CallOptions {
    const seat: Record<string, string> = this.saved ? { authorization: `Bearer ${this.saved.token}` } : {};
    return { headers: { ...this.client.playerHeaders(), ...seat }, signal };
  }

  /** The game now, as this seat may see it; lay-asides come as one compact choice. With
   * `waitForTurn` the answer waits until the seat is to act (or the server's wait limit);
   * with `afterVersion` until the game is past that version. */
  async snapshot(options: { signal?: AbortSignal; waitForTurn?: boolean; afterVersion?: number } = {}): Promise<Snapshot> {
    const reply = await call(() =>
      this.client.api.getGame(
        {
          gameId: this.gameId,
          compactLayAside: true,
          waitForTurn: options.waitForTurn ?? false,
          afterVersion: options.afterVersion === undefined ? undefined : BigInt(options.afterVersion),
        },
        this.callOptions(options.signal),
      ),
    );
    const game = gameInfo(reply.game!);
    this.seatCount = game.seats.length;
    return { game, summary: reply.game!, view: reply.view!, version: game.version };
  }

  /** Make a move decided on `expectedVersion` (a snapshot's version, TableState.viewVersion).
   * Refused: a TricktableError whose `reason` says why, and nothing changed. */
  async move(move: PlainMove, expectedVersion: number, options: { signal?: AbortSignal; waitForTurn?: boolean } = {}): Promise<MoveResult> {
    const reply = await call(() =>
      this.client.api.submitMove(
        {
          gameId: this.gameId,
          move: toMove(move),
          expectedVersion: BigInt(expectedVersion),
          requestId: requestId(),
          compactLayAside: true,
          waitForTurn: options.waitForTurn ?? false,
        },
        this.callOptions(options.signal),
      ),
    );
    return { version: Number(reply.version), view: reply.view!, viewVersion: Number(reply.viewVersion) };
  }

  /** Leave: frees the seat while the game waits for players (the storage forgets it), resigns
   * once it runs. */
  async leave(options: { signal?: AbortSignal } = {}): Promise<GameInfo> {
    const reply = await call(() => this.client.api.leaveGame({ gameId: this.gameId }, this.callOptions(options.signal)));
    const game = gameInfo(reply.game!);
    if (game.status === "waiting") this.forget();
    return game;
  }

  /** Drop this seat's token and last version from the storage (other seats of the game the
   * storage holds stay). */
  forget(): void {
    if (this.seat === null) this.client.storage.removeItem(versionKey(this.gameId, null));
    else removeSeat(this.client.storage, this.gameId, this.seat);
  }

  /** Accept a rematch of this ended game (the same options and time control, each player one
   * seat on). The answer is the offer as it stands; once it names the next game this seat
   * is kept there too. Every seat learns of the offers and the next game through
   * `events({ followRematch: true })` or `followRematch()`. */
  async rematch(options: { signal?: AbortSignal } = {}): Promise<RematchState> {
    const reply = await call(() => this.client.api.rematch({ gameId: this.gameId }, this.callOptions(options.signal)));
    const state = rematchState(reply.rematch!);
    if (state.gameId) await this.nextGame(state.gameId, options);
    return state;
  }

  /** This seat at the rematch's next game (`RematchState.gameId`): seat s of the ended game
   * sits at (s + 1) modulo its seats there, with the same token. Kept in the storage (so
   * `client.resume(nextGameId)` finds it too); null for a spectator. */
  async nextGame(nextGameId: string, options: { signal?: AbortSignal } = {}): Promise<GameSession | null> {
    if (!this.saved) return null;
    if (this.seatCount === undefined) await this.snapshot(options);
    const next = { seat: (this.saved.seat + 1) % this.seatCount!, token: this.saved.token };
    writeSeat(this.client.storage, nextGameId, next);
    return new GameSession(this.client, nextGameId, next);
  }

  /** Follow the rematch of this ended (or ending) game until every human seat has accepted:
   * `onOffer` hears each offer, and the answer is this seat at the next game (null if
   * `signal` aborted first, or for a spectator). */
  async followRematch(options: Omit<StreamOptions, "followRematch"> & { onOffer?: (offer: RematchState) => void } = {}): Promise<GameSession | null> {
    for await (const batch of this.events({ ...options, followRematch: true })) {
      if (!batch.rematch) continue;
      const offer = rematchState(batch.rematch);
      options.onOffer?.(offer);
      if (offer.gameId) return this.nextGame(offer.gameId, { signal: options.signal });
    }
    return null;
  }

  /** The last version this storage has seen of the game (-1: none). */
  lastVersion(): number {
    return readVersion(this.client.storage, this.gameId, this.seat);
  }

  /** The game's events as this seat may see them, one batch per version, in order, each once,
   * for as long as the game runs. A dropped connection (a network failure, a server restarting)
   * is resumed from the version after the last one received; the last version is kept in the
   * storage, so a reload resumes too. Ends after the game's last event (with `followRematch`,
   * after the rematch offer naming the next game), or when `signal` aborts; throws only a
   * refusal (no such game, a bad token). */
  async *events(options: StreamOptions = {}): AsyncGenerator<StreamEventsResponse, void, undefined> {
    const { signal, retryMs = 250, maxRetryMs = 5000 } = options;
    let next = options.fromVersion ?? this.lastVersion() + 1;
    let wait = retryMs;
    while (!signal?.aborted) {
      let delay = wait;
      try {
        const stream = this.client.api.streamEvents({ gameId: this.gameId, fromVersion: BigInt(next), followRematch: options.followRematch ?? false }, this.callOptions(signal));
        let received = 0;
        for await (const batch of stream) {
          const version = Number(batch.version);
          if (version < next) continue; // never twice
          next = version + 1;
          received += 1;
          writeVersion(this.client.storage, this.gameId, this.seat, version);
          wait = retryMs;
          if (batch.rematch?.gameId && options.followRematch) {
            await this.nextGame(batch.rematch.gameId, { signal });
            yield batch;
            return; // the offer naming the next game is the last
          }
          yield batch;
        }
        // The server ended the stream: after the game's last event, or while shutting down.
        if (options.followRematch) {
          // Opened after the end, the stream follows the rematch offers; one that ends at once
          // with nothing does so because the rematch has named its game already.
          const over = await this.over(signal);
          if (over && received === 0) return;
          if (over) continue; // the game's last batch came: now its rematch offers
        } else if (await this.ended(signal)) return;
      } catch (err) {
        if (signal?.aborted) return;
        const error = toTricktableError(err);
        if (!isTransient(error)) throw error;
        delay = error.retryAfterMs ?? wait;
        options.onDrop?.(error, next);
      }
      await sleep(delay, signal);
      wait = Math.min(wait * 2, maxRetryMs);
    }
  }

  /** Whether the game has ended and every version of it has been received. */
  private async ended(signal?: AbortSignal): Promise<boolean> {
    const { game } = await this.snapshot({ signal });
    const over = game.status === "finished" || game.status === "abandoned";
    return over && this.lastVersion() >= game.version;
  }

  /** Whether the game has ended. */
  private async over(signal?: AbortSignal): Promise<boolean> {
    const { game } = await this.snapshot({ signal });
    return game.status === "finished" || game.status === "abandoned";
  }
}
