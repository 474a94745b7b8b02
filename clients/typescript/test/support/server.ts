// A real `tricktable serve` for the integration tests, started the way an operator starts it,
// from this checkout through dev.py (its .venv): any free port for gRPC and for the web door
// (--port 0 --web-port 0), the web port read from its "serving" log line. Never a fixed port.

import { spawn, type ChildProcess } from "node:child_process";
import { createServer, Socket, type Server } from "node:net";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The repository root: test/support -> build/test/support when compiled. */
const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(HERE, "..", "..", "..", "..", "..");

export interface RunningServer {
  readonly webPort: number;
  readonly baseUrl: string;
  /** What the server has logged so far. */
  readonly log: string[];
  stop(): Promise<void>;
}

/** `python3 dev.py tricktable serve` with free ports and `args`; resolves once it serves. */
export async function startServer(args: readonly string[] = []): Promise<RunningServer> {
  const python = process.env.TRICKTABLE_PYTHON ?? "python3";
  const child: ChildProcess = spawn(
    python,
    [resolve(ROOT, "dev.py"), "tricktable", "serve", "--port", "0", "--web-port", "0", "--host", "127.0.0.1",
      "--log-format", "json", "--grace", "1", "--bot-delay", "0.05", ...args],
    { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  const log: string[] = [];
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once("exit", done));
    try {
      process.kill(-child.pid!, "SIGKILL"); // its whole group: workers too
    } catch {
      // already gone
    }
    await exited;
  };
  const webPort = await new Promise<number>((found, failed) => {
    const lines = createInterface({ input: child.stderr! });
    lines.on("line", (line) => {
      log.push(line);
      try {
        const entry = JSON.parse(line) as { event?: string; web_port?: number };
        if (entry.event === "serving" && entry.web_port) found(entry.web_port);
      } catch {
        // dev.py's own lines (installing the .venv) are not JSON
      }
    });
    child.once("exit", (code) => failed(new Error(`tricktable serve exited (${code}): ${log.join("\n")}`)));
    child.once("error", failed);
  });
  return { webPort, baseUrl: `http://127.0.0.1:${webPort}`, log, stop };
}

/** A TCP proxy in front of a port, whose connections a test can cut: a dropped network, as a
 * client sees one. */
export interface CuttableProxy {
  readonly port: number;
  readonly baseUrl: string;
  /** Connections made through it so far. */
  readonly connections: number;
  /** Drop every open connection (both sides, at once). */
  cut(): void;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<CuttableProxy> {
  const open = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((client) => {
    connections += 1;
    const upstream = new Socket();
    upstream.connect(targetPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => undefined); // a cut socket errors: expected here
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    cut: () => {
      for (const socket of open) socket.resetAndDestroy();
    },
    close: () =>
      new Promise<void>((closed) => {
        for (const socket of open) socket.destroy();
        server.close(() => closed());
      }),
  };
}
