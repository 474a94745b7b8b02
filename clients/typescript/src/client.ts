// The client: one server's game service, its game types, the lobby, and seats taken.

import { createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { GameService } from "./gen/tricktable/v1/game_service_pb.js";
import { type GameType } from "./gen/tricktable/v1/game_types_pb.js";
import { toTricktableError } from "./errors.js";
import { gameInfo, toOptionValue, toTimeControl, type GameInfo, type OptionInput, type TimeControlInput } from "./game.js";
import { GameSession } from "./session.js";
import { memoryStorage, readSeat, writeSeat, type SeatStorage } from "./storage.js";
import { createTransport, type TransportOptions } from "./transport.js";

export type ClientOptions = TransportOptions & {
  /** Another transport (gRPC-Web through a proxy, @connectrpc/connect-node's): baseUrl,
   * protocol and fetch are then not used. */
  readonly transport?: Transport;
  /** Where seats' tokens and the last versions seen are kept: `localStorage` in a browser (a
   * seat outlives its tab); memory when not given. */
  readonly storage?: SeatStorage;
};

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
}

export interface GameList {
  readonly games: readonly GameInfo[];
  /** For the next page; "" when there are no more. */
  readonly nextPageToken: string;
}

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

  constructor(options: ClientOptions) {
    this.api = createClient(GameService, options.transport ?? createTransport(options));
    this.storage = options.storage ?? memoryStorage();
  }

  /** The games the server offers, with their facts and options (asked once). */
  gameTypes(options?: CallOptions): Promise<readonly GameType[]> {
    if (!this.types) {
      this.types = call(async () => (await this.api.listGameTypes({}, options)).gameTypes);
      this.types.catch(() => (this.types = undefined)); // a failure is not kept: ask again next time
    }
    return this.types;
  }

  async gameType(name: string): Promise<GameType> {
    const found = (await this.gameTypes()).find((t) => t.name === name);
    if (!found) throw new RangeError(`the server offers no game called ${JSON.stringify(name)}`);
    return found;
  }

  async createGame(game: NewGame, options?: CallOptions): Promise<GameInfo> {
    const specs = (await this.gameTypes()).find((t) => t.name === game.gameType)?.options ?? [];
    const chosen = Object.fromEntries(
      Object.entries(game.options ?? {}).map(([name, value]) => [name, toOptionValue(specs.find((s) => s.name === name), value)]),
    );
    const seed = typeof game.seed === "string" ? new TextEncoder().encode(game.seed) : game.seed;
    const reply = await call(() =>
      this.api.createGame(
        {
          gameType: game.gameType,
          options: chosen,
          botSeats: { ...game.botSeats },
          timeControl: game.timeControl && toTimeControl(game.timeControl),
          seed,
        },
        options,
      ),
    );
    return gameInfo(reply.game!);
  }

  /** Games with open seats (the lobby). */
  async listGames(filter: { gameType?: string; pageSize?: number; pageToken?: string } = {}, options?: CallOptions): Promise<GameList> {
    const reply = await call(() => this.api.listGames(filter, options));
    return { games: reply.games.map(gameInfo), nextPageToken: reply.nextPageToken };
  }

  /** Take a seat (the first open one unless `seat` is given). Its token goes to the storage,
   * so `resume` finds the seat again after a reload. */
  async join(gameId: string, seat: { seat?: number; playerName?: string } = {}, options?: CallOptions): Promise<GameSession> {
    const reply = await call(() => this.api.joinGame({ gameId, seat: seat.seat, playerName: seat.playerName ?? "" }, options));
    writeSeat(this.storage, gameId, { seat: reply.seat, token: reply.seatToken });
    return new GameSession(this, gameId, { seat: reply.seat, token: reply.seatToken });
  }

  /** The seat this storage holds at a game, if any (a reload, another tab with localStorage). */
  resume(gameId: string): GameSession | null {
    const saved = readSeat(this.storage, gameId);
    return saved && new GameSession(this, gameId, saved);
  }

  /** A spectator's session: public information only. */
  watch(gameId: string): GameSession {
    return new GameSession(this, gameId, null);
  }
}
