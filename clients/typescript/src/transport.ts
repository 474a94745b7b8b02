// The wire: Connect (binary messages by default, or JSON) or gRPC-Web, over fetch. Browsers and
// Node 20+ both have fetch; a caller may pass another (or a whole Transport, such as
// @connectrpc/connect-node's) instead.

import { type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";

/** "connect": Connect with binary messages (the default, smallest); "connect-json": Connect
 * with JSON (readable in a browser's network panel); "grpc-web": gRPC-Web. */
export type Protocol = "connect" | "connect-json" | "grpc-web";

export interface TransportOptions {
  /** The server's web door, "https://host:port" (tricktable serve --web-port). */
  readonly baseUrl: string;
  readonly protocol?: Protocol;
  /** The fetch to use; globalThis.fetch when not given. */
  readonly fetch?: typeof globalThis.fetch;
}

export function createTransport(options: TransportOptions): Transport {
  const { baseUrl, protocol = "connect" } = options;
  // fetch is read when a call is made, so a fetch installed later (a test's, a polyfill) counts.
  const fetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  switch (protocol) {
    case "grpc-web":
      return createGrpcWebTransport({ baseUrl, fetch });
    case "connect":
    case "connect-json":
      return createConnectTransport({ baseUrl, fetch, useBinaryFormat: protocol === "connect" });
    default:
      throw new TypeError(`no protocol called ${JSON.stringify(protocol satisfies never)}`);
  }
}
