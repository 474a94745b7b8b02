// The client: one server's game service, its game types, the lobby, and seats taken.

import { createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { GameService, GameStatus, Visibility, type GameSummary } from "./gen/tricktable/v1/game_service_pb.js";
import { type GameType, type OptionValue } from "./gen/tricktable/v1/game_types_pb.js";
import { toTricktableError } from "./errors.js";
import { gameInfo, toOptionValue, toTimeControl, type GameInfo, type OptionInput, type TimeControlInput, type VisibilityName } from "./game.js";
import { GameSession } from "./session.js";
import { memoryStorage, readSeat, readSeats, readTicket, writeSeat, writeTicket, type SavedTicket, type SeatStorage } from "./storage.js";
import { createTransport, type TransportOptions } from "./transport.js";

export type ClientOptions = TransportOptions & {
  /** Another transport (gRPC-Web through a proxy, @connectrpc/connect-node's): baseUrl,
   * protocol and fetch are then not used. */
  readonly transport?: Transport;
  /** Where seats' tokens and the last versions seen are kept: `localStorage` in a browser (a
   * seat outlives its tab); memory when not given. */
  readonly storage?: SeatStorage;
  /** The operator's player token (a JWT whose `sub` is the player id), sent as
   * `x-player-token` with every call, to a server started with --auth-jwt-secret or
   * --auth-jwks: seats taken with it are that player's, and `listMyGames` lists them. A
   * function is asked at each call (a token that is refreshed); null or "" sends none. */
  readonly playerToken?: PlayerToken;
};

export type PlayerToken = string | null | (() => string | null | undefined);

/** The header a player token travels in. */
export const PLAYER_TOKEN_HEADER = "x-player-token";

/** `options` with `extra` headers added (a header `options` already has is kept). */
export function withHeaders(options: CallOptions | undefined, extra: Readonly<Record<string, string>>): CallOptions {
  if (Object.keys(extra).length === 0) return options ?? {};
  const headers = new Headers(options?.headers);
  for (const [name, value] of Object.entries(extra)) if (!headers.has(name)) headers.set(name, value);
  return { ...options, headers };
}

/** A seat reserved for one invitee: its own invite code is made (`seatInviteCodes`), or it is
 * kept for a player identity (`playerId`, the `sub` of their player token) and needs none. */
export type SeatReservationInput = number | { readonly seat: number; readonly playerId?: string };

export interface NewGame {
  /** A GameType name ("counterpoint", ...). */
  readonly gameType: string;
  /** Options by name; their kinds are read from the game type's specs. */
  readonly options?: Readonly<Record<string, OptionInput>>;
  /** Seats the server's bots play, by seat: "random" or "heuristic". */
  readonly botSeats?: Readonly<Record<number, string>>;
  readonly timeControl?: TimeControlInput;
  /** The same seed deals the same cards (1 to 64 bytes; a string is its UTF-8 bytes). */
  readonly seed?: Uint8Array | string;
  /** "unlisted": not in the lobby, joined with the invite code returned (default "public"). */
  readonly visibility?: VisibilityName;
  /** Seats kept for named invitees, each taken only with its own code. */
  readonly reservedSeats?: readonly SeatReservationInput[];
}

/** A game just made, with the codes only its creator is ever shown. */
export interface CreatedGame extends GameInfo {
  /** An unlisted game's invite code (share it: `join(gameId, { inviteCode })`); null when public. */
  readonly inviteCode: string | null;
  /** Each reserved seat's invite code, by seat. */
  readonly seatInviteCodes: Readonly<Record<number, string>>;
}

export interface GameList {
  readonly games: readonly GameInfo[];
  /** The same games as the protocol's GameSummary, for a UI drawn from it. */
  readonly summaries: readonly GameSummary[];
  /** For the next page; "" when there are no more. */
  readonly nextPageToken: string;
}

/** Which games the lobby lists: "waiting" (an open seat, to join) or "playing" (to watch);
 * only public games either way. */
export type ListStatus = "waiting" | "playing";

export interface GameFilter {
  readonly gameType?: string;
  readonly pageSize?: number;
  readonly pageToken?: string;
  readonly status?: ListStatus;
}

/** A game the player (of the client's player token) holds a seat at. */
export interface MyGame {
  readonly game: GameInfo;
  readonly summary: GameSummary;
  readonly seat: number;
}

/** What to queue for in quick play: a game type, its options and time control choose the queue. */
export interface QuickPlayInput {
  readonly gameType: string;
  readonly options?: Readonly<Record<string, OptionInput>>;
  readonly timeControl?: TimeControlInput;
  readonly playerName?: string;
  /** Seats still empty this long after queueing go to server bots (0, the default: people only). */
  readonly botWaitMs?: number;
}

/** What quick play tells, in order: the ticket (and how many wait) one or more times, then the
 * seat taken, whose token is already in the storage. */
export type QuickPlayUpdate =
  | { readonly kind: "queued"; readonly ticket: string; readonly waiting: number }
  | { readonly kind: "matched"; readonly gameId: string; readonly seat: number; readonly session: GameSession };

/** Runs a call, its failure a TricktableError. */
export async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw toTricktableError(err);
  }
}

export class TricktableClient {
  /** The generated client, for what this layer does not cover. */
  readonly api: Client<typeof GameService>;
  readonly storage: SeatStorage;
  private types?: Promise<readonly GameType[]>;
  private playerToken: PlayerToken;

  constructor(options: ClientOptions) {
    this.api = createClient(GameService, options.transport ?? createTransport(options));
    this.storage = options.storage ?? memoryStorage();
    this.playerToken = options.playerToken ?? null;
  }

  /** Send another player token from now on (a login, a refresh), or none (null). */
  setPlayerToken(token: PlayerToken): void {
    this.playerToken = token;
  }

  /** The headers every call of this client carries: the player token, when there is one. */
  playerHeaders(): Record<string, string> {
    const token = typeof this.playerToken === "function" ? this.playerToken() : this.playerToken;
    return token ? { [PLAYER_TOKEN_HEADER]: token } : {};
  }

  /** `options` with the player token added. */
  private withPlayer(options?: CallOptions): CallOptions {
    return withHeaders(options, this.playerHeaders());
  }

  /** Options by name as the protocol's values, their kinds read from the game type's specs. */
  private async optionValues(gameType: string, options: Readonly<Record<string, OptionInput>> = {}): Promise<Record<string, OptionValue>> {
    const specs = (await this.gameTypes()).find((t) => t.name === gameType)?.options ?? [];
    return Object.fromEntries(Object.entries(options).map(([name, value]) => [name, toOptionValue(specs.find((s) => s.name === name), value)]));
  }

  /** The games the server offers, with their facts and options (asked once). */
  gameTypes(options?: CallOptions): Promise<readonly GameType[]> {
    if (!this.types) {
      this.types = call(async () => (await this.api.listGameTypes({}, this.withPlayer(options))).gameTypes);
      this.types.catch(() => (this.types = undefined)); // a failure is not kept: ask again next time
    }
    return this.types;
  }

  async gameType(name: string): Promise<GameType> {
    const found = (await this.gameTypes()).find((t) => t.name === name);
    if (!found) throw new RangeError(`the server offers no game called ${JSON.stringify(name)}`);
    return found;
  }

  /** A new game; an unlisted one comes with its invite code, reserved seats with theirs. */
  async createGame(game: NewGame, options?: CallOptions): Promise<CreatedGame> {
    const chosen = await this.optionValues(game.gameType, game.options);
    const reservedSeats = (game.reservedSeats ?? []).map((r) => (typeof r === "number" ? { seat: r, playerId: "" } : { seat: r.seat, playerId: r.playerId ?? "" }));
    const seed = typeof game.seed === "string" ? new TextEncoder().encode(game.seed) : game.seed;
    const reply = await call(() =>
      this.api.createGame(
        {
          gameType: game.gameType,
          options: chosen,
          botSeats: { ...game.botSeats },
          timeControl: game.timeControl && toTimeControl(game.timeControl),
          seed,
          visibility: game.visibility === "unlisted" ? Visibility.UNLISTED : game.visibility === "public" ? Visibility.PUBLIC : Visibility.UNSPECIFIED,
          reservedSeats,
        },
        this.withPlayer(options),
      ),
    );
    const codes: Record<number, string> = {};
    for (const [seat, code] of Object.entries(reply.seatInviteCodes)) codes[Number(seat)] = code;
    return { ...gameInfo(reply.game!), inviteCode: reply.inviteCode || null, seatInviteCodes: codes };
  }

  /** The lobby: public games with an open seat, or with `status: "playing"` those being played. */
  async listGames(filter: GameFilter = {}, options?: CallOptions): Promise<GameList> {
    const status = filter.status === "playing" ? GameStatus.PLAYING : filter.status === "waiting" ? GameStatus.WAITING : GameStatus.UNSPECIFIED;
    const request = { gameType: filter.gameType ?? "", pageSize: filter.pageSize ?? 0, pageToken: filter.pageToken ?? "", status };
    const reply = await call(() => this.api.listGames(request, this.withPlayer(options)));
    return { games: reply.games.map(gameInfo), summaries: reply.games, nextPageToken: reply.nextPageToken };
  }

  /** Take a seat (the first open one unless `seat` is given); an unlisted game, or a reserved
   * seat, needs its `inviteCode`. Its token goes to the storage, so `resume` finds the seat
   * again after a reload. */
  async join(gameId: string, seat: { seat?: number; playerName?: string; inviteCode?: string } = {}, options?: CallOptions): Promise<GameSession> {
    const request = { gameId, seat: seat.seat, playerName: seat.playerName ?? "", inviteCode: seat.inviteCode ?? "" };
    const reply = await call(() => this.api.joinGame(request, this.withPlayer(options)));
    return this.hold(gameId, reply.seat, reply.seatToken);
  }

  /** Keep a seat taken (its token in the storage) and its session. */
  hold(gameId: string, seat: number, token: string): GameSession {
    writeSeat(this.storage, gameId, { seat, token });
    return new GameSession(this, gameId, { seat, token });
  }

  /** A seat this storage holds at a game, if any (a reload, another tab with localStorage): the
   * one taken last, or the one numbered `seat`. */
  resume(gameId: string, seat?: number): GameSession | null {
    const saved = seat === undefined ? readSeat(this.storage, gameId) : (readSeats(this.storage, gameId).find((s) => s.seat === seat) ?? null);
    return saved && new GameSession(this, gameId, saved);
  }

  /** Every seat of a game this storage holds (one browser may hold several), by seat. */
  seats(gameId: string): GameSession[] {
    return readSeats(this.storage, gameId).map((saved) => new GameSession(this, gameId, saved));
  }

  /** Revoke an unlisted game's (or a reserved seat's) invite code; with `reissue`, a new code
   * replaces it and is returned (else null). A join with the old code is then refused
   * (INVALID_INVITE). */
  async revokeInvite(gameId: string, inviteCode: string, { reissue = false }: { reissue?: boolean } = {}, options?: CallOptions): Promise<string | null> {
    const reply = await call(() => this.api.revokeInvite({ gameId, inviteCode, reissue }, this.withPlayer(options)));
    return reply.inviteCode || null;
  }

  /** Quick play: queue (or, with `{ ticket }`, resume waiting) until the server seats the
   * player. The ticket is kept in the storage while it waits (`quickPlayTicket()` after a
   * reload); the seat, once taken, is kept as `join` keeps one. Ends after "matched"; a
   * ticket the queue no longer has (cancelled, or its stream gone past the server's grace)
   * throws UNKNOWN_TICKET and is forgotten. Abort `options.signal` to stop waiting here (the
   * ticket waits on for the server's grace time: cancel it to leave the queue now). */
  async *quickPlay(request: QuickPlayInput | { readonly ticket: string }, options?: CallOptions): AsyncGenerator<QuickPlayUpdate, void, undefined> {
    const resuming = "ticket" in request;
    const kept = readTicket(this.storage);
    const about: Omit<SavedTicket, "ticket"> = resuming
      ? { gameType: kept?.ticket === request.ticket ? kept.gameType : "", playerName: kept?.ticket === request.ticket ? kept.playerName : "" }
      : { gameType: request.gameType, playerName: request.playerName ?? "" };
    const message = resuming
      ? { ticket: request.ticket }
      : {
          gameType: request.gameType,
          options: await this.optionValues(request.gameType, request.options),
          timeControl: request.timeControl && toTimeControl(request.timeControl),
          playerName: request.playerName ?? "",
          botWaitMs: request.botWaitMs ?? 0,
        };
    let ticket = resuming ? request.ticket : "";
    try {
      for await (const answer of this.api.quickPlay(message, this.withPlayer(options))) {
        if (answer.kind.case === "queued") {
          ticket = answer.kind.value.ticket;
          writeTicket(this.storage, { ticket, ...about });
          yield { kind: "queued", ticket, waiting: answer.kind.value.waiting };
        } else if (answer.kind.case === "matched") {
          const { gameId, seat, seatToken } = answer.kind.value;
          const session = this.hold(gameId, seat, seatToken);
          if (readTicket(this.storage)?.ticket === ticket) writeTicket(this.storage, null);
          yield { kind: "matched", gameId, seat, session };
          return;
        }
      }
    } catch (err) {
      const error = toTricktableError(err);
      if (error.reason === "UNKNOWN_TICKET" && readTicket(this.storage)?.ticket === ticket) writeTicket(this.storage, null);
      throw error;
    }
  }

  /** The quick play ticket this storage waits on, if any: `quickPlay({ ticket })` resumes it. */
  quickPlayTicket(): SavedTicket | null {
    return readTicket(this.storage);
  }

  /** Leave the quick play queue: true when the ticket left it (and is forgotten), false when it
   * had been seated meanwhile (resume it to learn the seat). */
  async cancelQuickPlay(ticket: string, options?: CallOptions): Promise<boolean> {
    const reply = await call(() => this.api.cancelQuickPlay({ ticket }, this.withPlayer(options)));
    if (reply.cancelled && readTicket(this.storage)?.ticket === ticket) writeTicket(this.storage, null);
    return reply.cancelled;
  }

  /** The games of the player whose token this client sends (most recent first), each with the
   * seat held there. Without a player token: MISSING_PLAYER_TOKEN. A seat's token is not in
   * it: take the seat again with `join(gameId, { seat })` and the same player token. */
  async listMyGames({ pageSize = 0 }: { pageSize?: number } = {}, options?: CallOptions): Promise<MyGame[]> {
    const reply = await call(() => this.api.listMyGames({ pageSize }, this.withPlayer(options)));
    return reply.games.map((mine) => ({ game: gameInfo(mine.game!), summary: mine.game!, seat: mine.seat }));
  }

  /** A spectator's session: public information only. */
  watch(gameId: string): GameSession {
    return new GameSession(this, gameId, null);
  }
}
