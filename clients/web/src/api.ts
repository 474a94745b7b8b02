// The connection to the server, the seat kept across reloads, and refusals explained.
//
// The page is served by the server it talks to, so it calls its own origin: no CORS. The
// protocol is Connect with binary messages by default; `?protocol=connect-json` or
// `?protocol=grpc-web` in the address picks another (they all reach the same service), and
// `?server=` another server.

import { Code, ConnectError, createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { GameService } from "./gen/tricktable/v1/game_service_pb";

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

// -- the seat, per tab -------------------------------------------------------------------------
// sessionStorage is per tab and survives a reload: each tab can hold another seat of the same
// game, and a reload resumes the seat and the event stream where they were.

export interface Seat {
  seat: number;
  token: string;
}

const seatKey = (gameId: string) => `tricktable.seat.${gameId}`;
const versionKey = (gameId: string) => `tricktable.version.${gameId}`;

export function savedSeat(gameId: string): Seat | undefined {
  const text = sessionStorage.getItem(seatKey(gameId));
  return text ? (JSON.parse(text) as Seat) : undefined;
}

export function saveSeat(gameId: string, seat: Seat): void {
  sessionStorage.setItem(seatKey(gameId), JSON.stringify(seat));
}

/** The last version this tab has seen of a game (-1: none). */
export function savedVersion(gameId: string): bigint {
  const text = sessionStorage.getItem(versionKey(gameId));
  return text === null ? -1n : BigInt(text);
}

export function saveVersion(gameId: string, version: bigint): void {
  sessionStorage.setItem(versionKey(gameId), version.toString());
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

export function isStale(err: unknown): boolean {
  return ConnectError.from(err).code === Code.Aborted;
}
