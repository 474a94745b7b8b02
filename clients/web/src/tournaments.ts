// Hosted tournaments and the ladder (TournamentService): #/tournaments lists them, #/tournament/<id>
// follows one live (StreamTournament: each game started and ended, the standings after each),
// with a link to watch each game, and #/ladder/<game> shows a game type's rated ladder.

import { createClient, type Client, type Transport } from "@connectrpc/connect";
import { h, replace } from "./dom";
import {
  TournamentService,
  TournamentStatus,
  type StandingRow,
  type TournamentGame,
} from "@tricktable/client/gen/tricktable/v1/tournament_service_pb";

export type TournamentApi = Client<typeof TournamentService>;

export function tournamentClient(transport: Transport): TournamentApi {
  return createClient(TournamentService, transport);
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function standingsTable(rows: StandingRow[]): HTMLElement {
  return h("table", { class: "standings" },
    h("thead", {}, h("tr", {}, ...["#", "entrant", "games", "wins", "win share", "95% CI", "score", "rating", "duplicate", "forfeits"].map((c) => h("th", {}, c)))),
    h("tbody", {}, ...rows.map((r) => h("tr", {},
      h("td", {}, r.rank), h("td", {}, r.name), h("td", {}, r.games), h("td", {}, r.wins),
      h("td", {}, pct(r.winShare)), h("td", {}, `${pct(r.winShareLow)}–${pct(r.winShareHigh)}`),
      h("td", {}, r.meanScore.toFixed(1)), h("td", {}, `${r.mu.toFixed(1)} ± ${r.sigma.toFixed(1)}`),
      h("td", {}, r.duplicateScore.toFixed(1)), h("td", {}, r.forfeits)))));
}

function gameLine(game: TournamentGame, names: string[]): HTMLElement {
  const seats = game.seats.map((e) => names[e] ?? String(e)).join(" · ");
  const result = game.ended ? ` — ${game.scores.join(" : ")}` : game.started ? " — playing" : "";
  return h("li", { id: `tgame-${game.number}` },
    game.gameId ? h("a", { href: `#/game/${encodeURIComponent(game.gameId)}` }, `game ${game.number}`) : `game ${game.number}`,
    ` ${seats}${result}`);
}

export class TournamentList {
  private stopped = false;
  constructor(private root: HTMLElement, private api: TournamentApi) {}
  stop(): void { this.stopped = true; }
  async start(): Promise<void> {
    const listed = await this.api.listTournaments({});
    if (this.stopped) return;
    replace(this.root, h("section", {}, h("h2", {}, "Tournaments"),
      h("ul", { class: "tournaments" }, ...listed.tournaments.map((t) => h("li", {},
        h("a", { href: `#/tournament/${t.tournamentId}` }, t.name || t.tournamentId),
        ` ${t.gameType}: ${t.gamesEnded} of ${t.gamesTotal} games, ${TournamentStatus[t.status].toLowerCase()}`)))));
  }
}

export class TournamentView {
  private abort = new AbortController();
  constructor(private root: HTMLElement, private api: TournamentApi, private id: string) {}
  stop(): void { this.abort.abort(); }
  async start(): Promise<void> {
    const got = await this.api.getTournament({ tournamentId: this.id }, { signal: this.abort.signal });
    const t = got.tournament!;
    const names = t.entrants.map((e) => e.name);
    const games = new Map(got.games.map((g) => [g.number, g]));
    const table = h("div", {}, standingsTable(t.standings));
    const status = h("p", { class: "status" }, TournamentStatus[t.status].toLowerCase());
    const list = h("ol", { class: "tournament-games", start: 0 }, ...got.games.map((g) => gameLine(g, names)));
    replace(this.root, h("section", {}, h("h2", {}, `${t.name || t.tournamentId} (${t.gameType})`), status, table, h("h3", {}, "Games"), list));
    const redraw = (game: TournamentGame) => {
      games.set(game.number, game);
      document.getElementById(`tgame-${game.number}`)?.replaceWith(gameLine(game, names));
    };
    try {
      for await (const event of this.api.streamTournament({ tournamentId: this.id, fromVersion: t.version + 1n }, { signal: this.abort.signal })) {
        if (event.kind.case === "gameStarted") redraw(event.kind.value.game!);
        if (event.kind.case === "gameEnded") {
          redraw(event.kind.value.game!);
          replace(table, standingsTable(event.kind.value.standings));
        }
        if (event.kind.case === "ended") {
          replace(table, standingsTable(event.kind.value.standings));
          status.textContent = TournamentStatus[event.kind.value.status].toLowerCase();
        }
      }
    } catch (err) {
      if (!this.abort.signal.aborted) status.textContent = `stream ended: ${String(err)}`;
    }
  }
}

export class LadderView {
  private stopped = false;
  constructor(private root: HTMLElement, private api: TournamentApi, private game: string) {}
  stop(): void { this.stopped = true; }
  async start(): Promise<void> {
    const ladder = await this.api.getLadder({ gameType: this.game });
    if (this.stopped) return;
    replace(this.root, h("section", {}, h("h2", {}, `Ladder: ${this.game}`),
      h("table", { class: "standings" },
        h("thead", {}, h("tr", {}, ...["#", "bot", "games", "rating", "ordinal", "win share", "95% CI", "available"].map((c) => h("th", {}, c)))),
        h("tbody", {}, ...ladder.rows.map((r) => h("tr", {},
          h("td", {}, r.rank), h("td", {}, r.name), h("td", {}, r.games),
          h("td", {}, `${r.mu.toFixed(1)} ± ${r.sigma.toFixed(1)}`), h("td", {}, r.ordinal.toFixed(1)),
          h("td", {}, pct(r.winShare)), h("td", {}, `${pct(r.winShareLow)}–${pct(r.winShareHigh)}`),
          h("td", {}, r.available ? "yes" : "no")))))));
  }
}
