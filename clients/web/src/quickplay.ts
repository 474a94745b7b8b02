// Quick play in the lobby: choose a game, wait (with a cancel button) while the server's queue
// finds the other players, and sit at the game it makes. The ticket is kept in localStorage,
// so a reload (or a lobby opened again) resumes the wait where it was: the client package's
// quickPlay keeps it, and seats the player (the seat's token kept as every seat's).

import { type GameType, type QuickPlayInput, type TricktableClient } from "@tricktable/client";
import { h, replace } from "./dom";
import { explain } from "./connection";
import { useSeat } from "./seats";

/** The wait before the empty seats go to server bots, when the player asks for them. */
const BOT_WAIT_MS = 30_000;

export class QuickPlay {
  readonly element = h("div", { id: "quick-play", class: "quick-play" });
  private abort?: AbortController;

  constructor(private readonly client: TricktableClient, private readonly types: readonly GameType[], private readonly refuse: (err: unknown) => void) {
    this.showForm();
  }

  /** Waits again for a ticket this browser holds. */
  resume(): void {
    const ticket = this.client.quickPlayTicket();
    if (ticket) void this.wait({ ticket: ticket.ticket }, ticket.gameType);
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
        onclick: () => void this.wait({ gameType: type.value, playerName: name.value, botWaitMs: bots.checked ? BOT_WAIT_MS : 0 }, type.value),
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
  private async wait(request: QuickPlayInput | { readonly ticket: string }, gameType: string): Promise<void> {
    this.abort?.abort();
    const abort = (this.abort = new AbortController());
    try {
      for await (const update of this.client.quickPlay(request, { signal: abort.signal })) {
        if (update.kind === "queued") {
          this.showWaiting(gameType, update.waiting, update.ticket);
        } else {
          useSeat(update.session);
          location.hash = `#/game/${encodeURIComponent(update.gameId)}`;
          return;
        }
      }
    } catch (err) {
      if (abort.signal.aborted) return;
      this.showForm();
      // The ticket is no longer in the queue (cancelled, or past its grace): forgotten.
      if ("ticket" in request && explain(err).reason === "UNKNOWN_TICKET") {
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
      if (!(await this.client.cancelQuickPlay(ticket))) {
        await this.wait({ ticket }, gameType);
        return;
      }
      this.showForm();
    } catch (err) {
      this.refuse(err);
    }
  }
}
