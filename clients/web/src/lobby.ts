// The lobby: open games to join or watch, and a "new game" form built from ListGameTypes (each
// option's kind, default, range, choices and presets), so a new option needs no change here.

import { GameStatus, type GameSummary, type GameType, type NewGame, type OptionInput, type OptionSpec, type TimeControlInput, type TricktableClient } from "@tricktable/client";
import { explain, isGone, playerToken } from "./connection";
import { keepInvite } from "./invites";
import { QuickPlay } from "./quickplay";
import { forgetGame, gamesHeld, useSeat } from "./seats";
import { h, replace } from "./dom";
import { TimeoutPolicy } from "@tricktable/client/gen/tricktable/v1/clocks_pb";
import { OptionKind, type OptionValue } from "@tricktable/client/gen/tricktable/v1/game_types_pb";

const REFRESH_MS = 2000;
/** How many of this browser's games the lobby lists. */
const YOUR_GAMES = 8;

/** Options that apply only when another option has a value: hidden otherwise. */
const APPLIES_WHEN: Record<string, Record<string, [string, string]>> = {
  "ninety-nine": {
    first_deal_trump: ["edition", "revised"],
    game_length_deals: ["game_end", "fixed_deals"],
    target_score: ["game_end", "target_score"],
    premium_fail_award: ["premium_bids", "true"],
    reveal_expose_timing: ["premium_bids", "true"],
    revealer_names_leader: ["premium_bids", "true"],
  },
  nominations: {
    target_score: ["end_mode", "target"],
    deal_count: ["end_mode", "deals"],
    double_hand_multiplier: ["all_pass", "double_hand"],
    double_hand_stacking: ["all_pass", "double_hand"],
    double_hand_cut: ["all_pass", "double_hand"],
    open_misere_points: ["open_misere", "true"],
    open_misere_expose: ["open_misere", "true"],
  },
};

/** An option nobody can change (one value allowed) or that changes nothing in play (how the
 * cards are dealt out, where the game says so) is not shown. */
function fixed(spec: OptionSpec): boolean {
  if (spec.kind === OptionKind.CHOICE && spec.choices.length <= 1) return true;
  if (spec.kind === OptionKind.INT && spec.minimum !== undefined && spec.minimum === spec.maximum) return true;
  return spec.description.includes("no effect on play");
}

function shown(value: OptionValue | undefined): string {
  const v = value?.value;
  return v === undefined || v.case === undefined ? "" : String(v.value);
}

/** One form field per option; `read` gives the option's value as the form shows it. */
function optionField(spec: OptionSpec): { row: HTMLElement; read: () => OptionInput; set: (v: OptionValue) => void } {
  const id = `option-${spec.name}`;
  let input: HTMLInputElement | HTMLSelectElement;
  if (spec.kind === OptionKind.BOOL) {
    input = h("input", { type: "checkbox", id, name: spec.name }) as HTMLInputElement;
  } else if (spec.kind === OptionKind.CHOICE) {
    input = h("select", { id, name: spec.name }, ...spec.choices.map((c) => h("option", { value: c }, c))) as HTMLSelectElement;
  } else {
    input = h("input", {
      type: "number", id, name: spec.name, step: 1,
      min: spec.minimum === undefined ? undefined : String(spec.minimum),
      max: spec.maximum === undefined ? undefined : String(spec.maximum),
    }) as HTMLInputElement;
  }
  const read = (): OptionInput => {
    if (spec.kind === OptionKind.BOOL) return (input as HTMLInputElement).checked;
    if (spec.kind === OptionKind.INT) return BigInt(input.value || "0");
    return input.value;
  };
  const set = (v: OptionValue) => {
    if (v.value.case === "boolValue") (input as HTMLInputElement).checked = v.value.value;
    else input.value = shown(v);
  };
  if (spec.defaultValue) set(spec.defaultValue);
  const row = h("label", { class: "option", title: spec.description }, h("span", { class: "name" }, spec.name.replaceAll("_", " ")), input, h("small", {}, spec.description));
  return { row, read, set };
}

/** Who plays each other seat: a person (who joins later) or one of the server's bots. The
 * creator takes seat 0. */
function seatFields(seats: number): { row: HTMLElement; read: () => Record<number, string> } {
  const choices = [...Array(seats).keys()].slice(1).map((seat) =>
    h("select", { id: `seat-${seat}-player`, "data-seat": seat },
      // A server bot by default: one person alone can play at once.
      h("option", { value: "heuristic" }, "a server bot"),
      h("option", { value: "" }, "a person (joins later)"),
      h("option", { value: "expert" }, "a strong server bot (it searches)"),
      h("option", { value: "random" }, "a server bot playing at random")) as HTMLSelectElement);
  const row = h("div", { class: "seat-players" }, h("p", {}, "You take the first seat. The other players:"),
    ...choices.map((select, i) => h("label", { class: "option" }, h("span", { class: "name" }, `player ${i + 2}`), select)));
  const read = () => {
    const bots: Record<number, string> = {};
    choices.forEach((select, i) => { if (select.value) bots[i + 1] = select.value; });
    return bots;
  };
  return { row, read };
}

/** The optional time control, in seconds as a person thinks of it (sent in milliseconds). */
function clockFields(): { row: HTMLElement; read: () => TimeControlInput | undefined } {
  const on = h("input", { type: "checkbox", id: "clock-on" }) as HTMLInputElement;
  const seconds = (id: string, value: string) => h("input", { type: "number", id, min: "0", step: "any", value }) as HTMLInputElement;
  const move = seconds("clock-move", "30");
  const bank = seconds("clock-bank", "120");
  const increment = seconds("clock-increment", "0");
  const policy = h("select", { id: "clock-policy" },
    h("option", { value: String(TimeoutPolicy.AUTO_MOVE) }, "the server plays a move"),
    h("option", { value: String(TimeoutPolicy.FORFEIT) }, "the seat forfeits")) as HTMLSelectElement;
  const ms = (input: HTMLInputElement) => Math.round(Number(input.value || "0") * 1000);
  const field = (label: string, input: HTMLElement) => h("label", { class: "option" }, h("span", { class: "name" }, label), input);
  const row = h("fieldset", { class: "time-control" },
    h("legend", {}, h("label", {}, on, " Clocks")),
    field("move time (s)", move), field("bank (s)", bank), field("increment (s)", increment), field("on timeout", policy));
  const read = (): TimeControlInput | undefined => on.checked
    ? { moveMs: ms(move), bankMs: ms(bank), incrementMs: ms(increment), onTimeout: Number(policy.value) === TimeoutPolicy.FORFEIT ? "forfeit" : "auto-move" }
    : undefined;
  return { row, read };
}

export class Lobby {
  private types: readonly GameType[] = [];
  private timer = 0;
  private readonly games = h("div", { id: "open-games" });
  private readonly playing = h("div", { id: "playing-games" });
  private quick?: QuickPlay;
  private readonly mine = h("div", { id: "your-games" });
  /** With a player token: the player's games (ListMyGames), on whatever device they began. */
  private readonly account = h("div", { id: "account-games" });
  private readonly mineSection = h("div", { class: "lobby-mine", hidden: true }, h("h2", {}, "Your games"), this.mine, this.account);
  private readonly message = h("p", { id: "lobby-message", class: "refusal", hidden: true });

  /** `gameType`: the game the new-game form starts with (after "new game" at a game's end). */
  constructor(private readonly root: HTMLElement, private readonly client: TricktableClient, private readonly gameType = "") {}

  async start(): Promise<void> {
    try {
      this.types = await this.client.gameTypes();
    } catch (err) {
      replace(this.root, this.message);
      this.refuse(err);
      return;
    }
    const form = h("form", { id: "new-game" });
    const type = h("select", { id: "game-type", name: "game_type" }, ...this.types.map((t) => h("option", { value: t.name }, `${t.title} (${t.seats} players)`))) as HTMLSelectElement;
    const name = h("input", { id: "player-name", name: "player_name", placeholder: "your name", maxlength: 64 }) as HTMLInputElement;
    const options = h("div", { class: "options" });
    const summary = h("p", { class: "summary" });
    const players = h("div", {});
    let readBots = (): Record<number, string> => ({});
    const clock = clockFields();
    const unlisted = h("input", { type: "checkbox", id: "unlisted" }) as HTMLInputElement;
    let fields: { spec: OptionSpec; read: () => OptionInput; set: (v: OptionValue) => void; row: HTMLElement }[] = [];
    const showOptions = () => {
      const gameType = this.types.find((t) => t.name === type.value);
      fields = (gameType?.options ?? []).map((spec) => ({ spec, ...optionField(spec) }));
      const applies = APPLIES_WHEN[gameType?.name ?? ""] ?? {};
      const showApplying = () => {
        for (const field of fields) {
          const when = applies[field.spec.name];
          const other = when && fields.find((f) => f.spec.name === when[0]);
          field.row.hidden = fixed(field.spec) || (other !== undefined && String(other.read()) !== when[1]);
        }
      };
      for (const field of fields) field.row.addEventListener("change", showApplying);
      for (const field of fields) {
        if (field.spec.presets.length === 0) continue;
        // An edition or preset sets other options' defaults: show them as it would.
        field.row.addEventListener("change", () => {
          const preset = field.spec.presets.find((p) => p.when === String(field.read()));
          for (const [other, v] of Object.entries(preset?.defaults ?? {})) fields.find((f) => f.spec.name === other)?.set(v);
        });
      }
      showApplying();
      summary.textContent = gameType?.summary ?? "";
      const shownCount = fields.filter((f) => !f.row.hidden).length;
      replace(options, h("details", { class: "rules" }, h("summary", {}, `Rules and options (${shownCount})`), ...fields.map((f) => f.row)));
      const seats = seatFields(gameType?.seats ?? 0);
      readBots = seats.read;
      replace(players, seats.row);
    };
    if (this.types.some((t) => t.name === this.gameType)) type.value = this.gameType;
    type.addEventListener("change", showOptions);
    showOptions();
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const chosen: Record<string, OptionInput> = {};
      for (const f of fields) {
        if (String(f.read()) !== shown(f.spec.defaultValue)) chosen[f.spec.name] = f.read();
      }
      const visibility = unlisted.checked ? "unlisted" : undefined;
      void this.createAndSit({ gameType: type.value, options: chosen, botSeats: readBots(), timeControl: clock.read(), visibility }, name.value);
    });
    replace(
      form,
      h("h2", {}, "New game"),
      h("label", {}, "Game ", type),
      h("label", {}, "Name ", name),
      summary,
      players,
      options,
      clock.row,
      h("label", { class: "unlisted" }, unlisted, " Unlisted: not in the lobby; players join with the table's link"),
      h("button", { type: "submit", id: "create" }, "Create and take a seat"),
    );
    const watch = h("input", { id: "watch-id", placeholder: "game id" }) as HTMLInputElement;
    this.quick = new QuickPlay(this.client, this.types, (err) => this.refuse(err));
    replace(
      this.root,
      h("section", { class: "lobby" },
        this.mineSection,
        h("div", { class: "lobby-open" },
          this.quick!.element,
          h("h2", {}, "Open games"), this.games,
          h("h2", {}, "Games in play"), this.playing,
          h("h2", {}, "Games"),
          h("ul", { id: "game-types" }, ...this.types.map((t) => h("li", { "data-game-type": t.name }, h("strong", {}, t.title), ` (${t.seats} players): ${t.summary}`))),
          h("p", {}, "Watch any game: ", watch, h("button", { onclick: () => { if (watch.value) location.hash = `#/game/${watch.value.trim()}`; } }, "Watch"))),
        form),
      this.message,
    );
    this.quick!.resume(); // a wait this browser began (before a reload) goes on
    await Promise.all([this.refresh(), this.showMine()]);
    this.timer = window.setInterval(() => void this.refresh(), REFRESH_MS);
  }

  stop(): void {
    window.clearInterval(this.timer);
    this.quick?.stop();
  }

  private title(name: string): string {
    return this.types.find((t) => t.name === name)?.title ?? name;
  }

  private async refresh(): Promise<void> {
    try {
      const [open, inPlay] = await Promise.all([this.client.listGames({ pageSize: 50 }), this.client.listGames({ pageSize: 50, status: "playing" })]);
      const games = open.summaries;
      const playing = inPlay.summaries;
      replace(this.games, games.length ? h("table", {}, h("tr", {}, h("th", {}, "game"), h("th", {}, "seats"), h("th", {})), ...games.map((g) => this.row(g))) : h("p", {}, "No game is waiting for players: create one."));
      replace(this.playing, playing.length ? h("table", {}, ...playing.map((g) => this.playingRow(g))) : h("p", {}, "No game is being played."));
    } catch (err) {
      this.refuse(err);
    }
  }

  /** The games this browser holds a seat in (kept in localStorage): back to the table. */
  private async showMine(): Promise<void> {
    const rows: HTMLElement[] = [];
    for (const gameId of gamesHeld().slice(0, YOUR_GAMES)) {
      try {
        const game = (await this.client.watch(gameId).snapshot()).summary;
        const names = this.client.seats(gameId).map((s) => game.seats[s.seat!]?.playerName || "your seat").join(", ");
        const state = game.status === GameStatus.WAITING ? "waiting for players" : game.status === GameStatus.PLAYING ? "in play" : "over";
        rows.push(h("tr", { "data-game": gameId },
          h("td", {}, this.title(game.gameType), h("small", {}, ` ${state}`)),
          h("td", {}, names),
          h("td", {}, h("a", { class: "button primary", href: `#/game/${gameId}` }, game.status === GameStatus.FINISHED || game.status === GameStatus.ABANDONED ? "See the end" : "Back to the table"))));
      } catch (err) {
        // Gone (expired): nothing to go back to, and nothing to keep.
        if (isGone(err)) forgetGame(this.client, gameId);
      }
    }
    replace(this.mine, h("table", { class: "games-list" }, ...rows));
    const account = await this.accountGames(rows.map((r) => r.dataset.game ?? ""));
    this.mineSection.hidden = !rows.length && !account;
  }

  /** With a player token: the games the player holds a seat in that this browser does not
   * (begun on another device), from ListMyGames; how many are shown. */
  private async accountGames(shown: string[]): Promise<number> {
    if (!playerToken()) {
      replace(this.account);
      return 0;
    }
    try {
      const games = (await this.client.listMyGames({ pageSize: YOUR_GAMES })).filter((g) => !shown.includes(g.game.gameId));
      replace(this.account, games.length ? h("table", { class: "games-list" }, ...games.map(({ game, summary, seat }) => {
        const state = game.status === "waiting" ? "waiting for players" : game.status === "playing" ? "in play" : "over";
        return h("tr", { "data-game": game.gameId, "data-seat": seat },
          h("td", {}, this.title(game.gameType), h("small", {}, ` ${state}`)),
          h("td", {}, summary.seats[seat]?.playerName || "your seat"),
          h("td", {}, h("a", { class: "button primary", href: `#/game/${encodeURIComponent(game.gameId)}` }, game.status === "finished" || game.status === "abandoned" ? "See the end" : "Back to the table")));
      })) : null);
      return games.length;
    } catch (err) {
      this.refuse(err);
      return 0;
    }
  }

  /** The page was given a player token (or another one): list the player's games again. */
  identityChanged(): void {
    void this.showMine();
  }

  private row(game: GameSummary): HTMLElement {
    const seats = game.seats.map((s) => (s.bot ? "bot" : s.taken ? s.playerName || "taken" : "open")).join(", ");
    return h("tr", { "data-game": game.gameId },
      h("td", {}, this.title(game.gameType), h("small", {}, ` ${game.gameId}`)),
      h("td", {}, seats),
      h("td", {},
        h("button", { class: "sit", onclick: () => void this.sit(game.gameId, (document.getElementById("player-name") as HTMLInputElement).value) }, "Sit"),
        h("a", { class: "button watch", href: `#/game/${game.gameId}` }, "Watch")));
  }

  /** A game being played: who plays it, and a link to watch it. */
  private playingRow(game: GameSummary): HTMLElement {
    const players = game.seats.map((s) => (s.bot ? "bot" : s.playerName || "a player")).join(", ");
    return h("tr", { "data-game": game.gameId },
      h("td", {}, this.title(game.gameType), h("small", {}, ` ${game.version} moves`)),
      h("td", {}, players),
      h("td", {}, h("a", { class: "button watch", href: `#/game/${game.gameId}` }, "Watch")));
  }

  private async createAndSit(request: NewGame, name: string): Promise<void> {
    try {
      const { gameId, inviteCode } = await this.client.createGame(request);
      // An unlisted table: the creator keeps its code (to share the link, or revoke it).
      if (inviteCode) keepInvite(gameId, inviteCode);
      await this.sit(gameId, name, 0, inviteCode ?? "");
    } catch (err) {
      this.refuse(err);
    }
  }

  private async sit(gameId: string, playerName: string, seat?: number, inviteCode = ""): Promise<void> {
    try {
      useSeat(await this.client.join(gameId, { playerName, seat, inviteCode }));
      location.hash = `#/game/${gameId}`;
    } catch (err) {
      this.refuse(err);
    }
  }

  private refuse(err: unknown): void {
    const r = explain(err);
    this.message.hidden = false;
    this.message.textContent = `${r.reason || r.code}: ${r.message}`;
  }
}
