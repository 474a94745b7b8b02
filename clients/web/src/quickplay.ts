// Quick play in the lobby: choose a game, wait (with a cancel button) while the server's queue
// finds the other players, and sit at the game it makes. The ticket is kept in localStorage,
// so a reload (or a lobby opened again) resumes the wait where it was.

import { Code, ConnectError } from "@connectrpc/connect";
import { type Api } from "./api";
import { h, replace } from "./dom";
import { type GameType } from "./gen/tricktable/v1/game_types_pb";
import { type QuickPlayRequestSchema } from "./gen/tricktable/v1/game_service_pb";
import { type MessageInitShape } from "@bufbuild/protobuf";
import { holdSeat } from "./seats";

const TICKET = "tricktable.quickplay";
/** The wait before the empty seats go to server bots, when the player asks for them. */
const BOT_WAIT_MS = 30_000;

interface Kept {
  ticket: string;
  gameType: string;
  name: string;
}

function kept(): Kept | undefined {
  try {
    const value = JSON.parse(localStorage.getItem(TICKET) ?? "null") as Kept | null;
    return value && typeof value.ticket === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

export class QuickPlay {
  readonly element = h("div", { id: "quick-play", class: "quick-play" });
  private abort?: AbortController;

  constructor(private readonly api: Api, private readonly types: GameType[], private readonly refuse: (err: unknown) => void) {
    this.showForm();
  }

  /** Waits again for a ticket this browser holds. */
  resume(): void {
    const ticket = kept();
    if (ticket) void this.wait({ ticket: ticket.ticket }, ticket.gameType, ticket.name);
  }

  stop(): void {
    this.abort?.abort();
  }

  private title(name: string): string {
    return this.types.find((t) => t.name === name)?.title ?? name;
  }

  private showForm(): void {
    const type = h("select", { id: "quick-type" }, ...this.types.map((t) => h("option", { value: t.name }, t.title))) as HTMLSelectElement;
    const name = h("input", { id: "quick-name", placeholder: "your name", maxlength: 64 }) as HTMLInputElement;
    const bots = h("input", { type: "checkbox", id: "quick-bots" }) as HTMLInputElement;
    replace(this.element,
      h("h2", {}, "Quick play"),
      h("p", { class: "explain" }, "The server seats you with the next players who want the same game."),
      h("label", {}, "Game ", type), " ", h("label", {}, "Name ", name), " ",
      h("label", {}, bots, ` server bots take the empty seats after ${BOT_WAIT_MS / 1000} s`), " ",
      h("button", {
        id: "quick-start", class: "primary",
        onclick: () => void this.wait({ gameType: type.value, playerName: name.value, botWaitMs: bots.checked ? BOT_WAIT_MS : 0 }, type.value, name.value),
      }, "Quick play"));
  }

  private showWaiting(gameType: string, waiting: number, ticket: string): void {
    replace(this.element,
      h("h2", {}, "Quick play"),
      h("p", { id: "quick-waiting", "data-waiting": waiting },
        `Looking for players for ${this.title(gameType)}… `, h("small", {}, `${waiting} waiting`)),
      h("button", { id: "quick-cancel", onclick: () => void this.cancel(ticket, gameType) }, "Cancel"));
  }

  /** Queue (or resume with a ticket) and follow the stream until seated. */
  private async wait(request: MessageInitShape<typeof QuickPlayRequestSchema>, gameType: string, name: string): Promise<void> {
    this.abort?.abort();
    const abort = (this.abort = new AbortController());
    try {
      for await (const answer of this.api.quickPlay(request, { signal: abort.signal })) {
        if (answer.kind.case === "queued") {
          localStorage.setItem(TICKET, JSON.stringify({ ticket: answer.kind.value.ticket, gameType, name }));
          this.showWaiting(gameType, answer.kind.value.waiting, answer.kind.value.ticket);
        } else if (answer.kind.case === "matched") {
          const { gameId, seat, seatToken } = answer.kind.value;
          localStorage.removeItem(TICKET);
          holdSeat(gameId, { seat, token: seatToken, name });
          location.hash = `#/game/${encodeURIComponent(gameId)}`;
          return;
        }
      }
    } catch (err) {
      if (abort.signal.aborted) return;
      const gone = ConnectError.from(err).code === Code.NotFound; // cancelled, or past its grace
      if (gone) localStorage.removeItem(TICKET);
      this.showForm();
      if (gone && request.ticket) {
        this.element.append(h("p", { id: "quick-over", class: "note" }, "The earlier wait for players has ended: start again."));
      } else {
        this.refuse(err);
      }
    }
  }

  /** Leave the queue; a ticket seated meanwhile has a game: go and play it. */
  private async cancel(ticket: string, gameType: string): Promise<void> {
    this.abort?.abort();
    try {
      const answer = await this.api.cancelQuickPlay({ ticket });
      if (!answer.cancelled) {
        await this.wait({ ticket }, gameType, kept()?.name ?? "");
        return;
      }
      localStorage.removeItem(TICKET);
      this.showForm();
    } catch (err) {
      this.refuse(err);
    }
  }
}
