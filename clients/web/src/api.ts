// The connection to the server, and refusals explained (seats.ts keeps the seats).
//
// The page is served by the server it talks to, so it calls its own origin: no CORS. The
// protocol is Connect with binary messages by default; `?protocol=connect-json` or
// `?protocol=grpc-web` in the address picks another (they all reach the same service), and
// `?server=` another server.

import { Code, ConnectError, createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { type MessageInitShape } from "@bufbuild/protobuf";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { GameService, GameStatus, type CreateGameRequestSchema, type GameSummary } from "./gen/tricktable/v1/game_service_pb";
import { type GameType } from "./gen/tricktable/v1/game_types_pb";
import { holdSeat } from "./seats";

export type Api = Client<typeof GameService>;
export type Protocol = "connect-binary" | "connect-json" | "grpc-web";

export function protocolFromAddress(): Protocol {
  const asked = new URLSearchParams(location.search).get("protocol");
  return asked === "connect-json" || asked === "grpc-web" ? asked : "connect-binary";
}

/** The server to call: this page's own, or another named by `?server=https://host:port` (a
 * page served from another site; that server must list this page's origin with --web-origin). */
export function serverFromAddress(): string {
  return new URLSearchParams(location.search).get("server") ?? location.origin;
}

export function transportFor(protocol: Protocol, baseUrl: string): Transport {
  return protocol === "grpc-web"
    ? createGrpcWebTransport({ baseUrl })
    : createConnectTransport({ baseUrl, useBinaryFormat: protocol === "connect-binary" });
}

export function connect(protocol: Protocol, baseUrl: string): Api {
  return createClient(GameService, transportFor(protocol, baseUrl));
}

/** Call options carrying a seat token (none: a spectator's call). */
export function as(token: string | undefined, signal?: AbortSignal): CallOptions {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return { headers, signal };
}

// -- the lobby's calls (the table's are in session.ts) ----------------------------------------

export async function gameTypes(api: Api): Promise<GameType[]> {
  return (await api.listGameTypes({})).gameTypes;
}

/** The games waiting for players. */
export async function openGames(api: Api): Promise<GameSummary[]> {
  return (await api.listGames({ pageSize: 50 })).games;
}

/** The public games being played, to watch. */
export async function playingGames(api: Api): Promise<GameSummary[]> {
  return (await api.listGames({ pageSize: 50, status: GameStatus.PLAYING })).games;
}

/** A game as a spectator sees it (the lobby's "your games"). */
export async function gameSummary(api: Api, gameId: string): Promise<GameSummary | undefined> {
  return (await api.getGame({ gameId, compactLayAside: true })).game; // as every read of the page
}

/** A new game, and an unlisted one's invite code ("" for a public game). */
export async function createGame(api: Api, request: MessageInitShape<typeof CreateGameRequestSchema>): Promise<{ game: GameSummary; inviteCode: string }> {
  const made = await api.createGame(request);
  return { game: made.game!, inviteCode: made.inviteCode };
}

/** Take a seat (the first open one without `seat`; an unlisted game's with its invite code);
 * this browser keeps it (seats.ts). */
export async function sit(api: Api, gameId: string, playerName: string, seat?: number, inviteCode = ""): Promise<void> {
  const joined = await api.joinGame({ gameId, playerName, seat, inviteCode });
  holdSeat(gameId, { seat: joined.seat, token: joined.seatToken, name: playerName });
}

// -- refusals ------------------------------------------------------------------------------------

export interface Refusal {
  code: string; // "FailedPrecondition", "Aborted", ...
  reason: string; // the ErrorInfo reason: "NOT_YOUR_TURN", "MUST_FOLLOW_SUIT", ...
  message: string; // the server's words
}

export function explain(err: unknown): Refusal {
  const error = ConnectError.from(err);
  const info = error.findDetails(ErrorInfoSchema)[0];
  return { code: Code[error.code], reason: info?.reason ?? "", message: error.rawMessage };
}

/** The game does not exist (any more). */
export function isGone(err: unknown): boolean {
  return ConnectError.from(err).code === Code.NotFound;
}

export function isStale(err: unknown): boolean {
  return ConnectError.from(err).code === Code.Aborted;
}
