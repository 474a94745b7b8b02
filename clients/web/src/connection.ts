// The connection to the server: one @tricktable/client, its seats kept in localStorage, and the
// player token an embedding site may give.
//
// The page is served by the server it talks to, so it calls its own origin: no CORS. The
// protocol is Connect with binary messages by default; `?protocol=connect-json` or
// `?protocol=grpc-web` in the address picks another (they all reach the same service), and
// `?server=` another server.
//
// A player token (the operator's JWT whose `sub` is the player id, for a server started with
// --auth-jwt-secret or --auth-jwks) is given by the site that embeds or links to the table:
// `window.tricktable.setPlayerToken(jwt)` from its script, or `?player_token=<jwt>` after the
// route in the address's fragment (`#/?player_token=…`, `#/game/<id>?player_token=…`), which no
// server sees and which the page takes out of the address bar at once. It is kept for this
// tab only (sessionStorage) and sent with every call as `x-player-token`.

import { createTransport, TricktableClient, toTricktableError, type Protocol, type TransportOptions } from "@tricktable/client";
import { type Transport } from "@connectrpc/connect";

export function protocolFromAddress(): Protocol {
  const asked = new URLSearchParams(location.search).get("protocol");
  return asked === "connect-json" || asked === "grpc-web" ? asked : "connect";
}

/** The server to call: this page's own, or another named by `?server=https://host:port` (a
 * page served from another site; that server must list this page's origin with --web-origin). */
export function serverFromAddress(): string {
  return new URLSearchParams(location.search).get("server") ?? location.origin;
}

const PLAYER_TOKEN = "tricktable.player-token";

/** The player token this tab was given; null when none. */
export function playerToken(): string | null {
  return sessionStorage.getItem(PLAYER_TOKEN);
}

/** Send `token` with every call from now on (null or "": none). */
export function setPlayerToken(token: string | null): void {
  if (token) sessionStorage.setItem(PLAYER_TOKEN, token);
  else sessionStorage.removeItem(PLAYER_TOKEN);
}

/** The route in the address's fragment, after taking a `?player_token=` out of it (kept as
 * this tab's token, and removed from the address bar and the history). */
export function routeFromAddress(): string {
  const [route, query = ""] = location.hash.split("?", 2);
  const params = new URLSearchParams(query);
  const token = params.get("player_token");
  if (token !== null) {
    setPlayerToken(token);
    params.delete("player_token");
    const rest = params.toString();
    history.replaceState(null, "", `${location.pathname}${location.search}${route}${rest ? `?${rest}` : ""}`);
  }
  return route;
}

function transportOptions(): TransportOptions {
  return { baseUrl: serverFromAddress(), protocol: protocolFromAddress() };
}

/** The page's client: its seats' tokens in localStorage (a seat outlives its tab), the player
 * token read at each call. */
export function connect(): TricktableClient {
  return new TricktableClient({ ...transportOptions(), storage: localStorage, playerToken });
}

/** The same server for the other services (TournamentService). */
export function transport(): Transport {
  return createTransport(transportOptions());
}

// -- refusals ------------------------------------------------------------------------------------

export interface Refusal {
  code: string; // "FailedPrecondition", "Aborted", ...
  reason: string; // the ErrorInfo reason: "NOT_YOUR_TURN", "MUST_FOLLOW_SUIT", ...
  message: string; // the server's words
}

export function explain(err: unknown): Refusal {
  const error = toTricktableError(err);
  return { code: error.codeName, reason: error.rawReason, message: error.serverMessage };
}

/** The game does not exist (any more). */
export function isGone(err: unknown): boolean {
  return toTricktableError(err).codeName === "NotFound";
}
