// The lobby: open games to join or watch, and a "new game" form built from ListGameTypes (each
// option's kind, default, range, choices and presets), so a new option needs no change here.

import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { type Api, explain, saveSeat } from "./api";
import { h, replace } from "./dom";
import { TimeControlSchema, TimeoutPolicy, type TimeControl } from "./gen/tricktable/v1/clocks_pb";
import { type CreateGameRequestSchema, type GameSummary } from "./gen/tricktable/v1/game_service_pb";
import { OptionKind, type GameType, type OptionSpec, type OptionValue, OptionValueSchema } from "./gen/tricktable/v1/game_types_pb";

const REFRESH_MS = 2000;

function shown(value: OptionValue | undefined): string {
  const v = value?.value;
  return v === undefined || v.case === undefined ? "" : String(v.value);
}

/** One form field per option; `read` gives the option's value as the form shows it. */
function optionField(spec: OptionSpec): { row: HTMLElement; read: () => OptionValue; set: (v: OptionValue) => void } {
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
  const read = (): OptionValue => {
    if (spec.kind === OptionKind.BOOL) return create(OptionValueSchema, { value: { case: "boolValue", value: (input as HTMLInputElement).checked } });
    if (spec.kind === OptionKind.INT) return create(OptionValueSchema, { value: { case: "intValue", value: BigInt(input.value || "0") } });
    return create(OptionValueSchema, { value: { case: "stringValue", value: input.value } });
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
      h("option", { value: "" }, "a person"),
      h("option", { value: "heuristic" }, "server bot (heuristic)"),
      h("option", { value: "random" }, "server bot (random)")) as HTMLSelectElement);
  const row = h("div", { class: "seat-players" }, h("p", {}, "You take seat 0."),
    ...choices.map((select, i) => h("label", { class: "option" }, h("span", { class: "name" }, `seat ${i + 1}`), select)));
  const read = () => {
    const bots: Record<number, string> = {};
    choices.forEach((select, i) => { if (select.value) bots[i + 1] = select.value; });
    return bots;
  };
  return { row, read };
}

/** The optional time control, in seconds as a person thinks of it (sent in milliseconds). */
function clockFields(): { row: HTMLElement; read: () => TimeControl | undefined } {
  const on = h("input", { type: "checkbox", id: "clock-on" }) as HTMLInputElement;
  const seconds = (id: string, value: string) => h("input", { type: "number", id, min: "0", step: "any", value }) as HTMLInputElement;
  const move = seconds("clock-move", "30");
  const bank = seconds("clock-bank", "120");
  const increment = seconds("clock-increment", "0");
  const policy = h("select", { id: "clock-policy" },
    h("option", { value: String(TimeoutPolicy.AUTO_MOVE) }, "the server plays a move"),
    h("option", { value: String(TimeoutPolicy.FORFEIT) }, "the seat forfeits")) as HTMLSelectElement;
  const ms = (input: HTMLInputElement) => BigInt(Math.round(Number(input.value || "0") * 1000));
  const field = (label: string, input: HTMLElement) => h("label", { class: "option" }, h("span", { class: "name" }, label), input);
  const row = h("fieldset", { class: "time-control" },
    h("legend", {}, h("label", {}, on, " Clocks")),
    field("move time (s)", move), field("bank (s)", bank), field("increment (s)", increment), field("on timeout", policy));
  const read = () => on.checked
    ? create(TimeControlSchema, { moveMs: ms(move), bankMs: ms(bank), incrementMs: ms(increment), onTimeout: Number(policy.value) as TimeoutPolicy })
    : undefined;
  return { row, read };
}

export class Lobby {
  private types: GameType[] = [];
  private timer = 0;
  private readonly games = h("div", { id: "open-games" });
  private readonly message = h("p", { id: "lobby-message", class: "refusal", hidden: true });

  constructor(private readonly root: HTMLElement, private readonly api: Api) {}

  async start(): Promise<void> {
    try {
      this.types = (await this.api.listGameTypes({})).gameTypes;
    } catch (err) {
      replace(this.root, this.message);
      this.refuse(err);
      return;
    }
    const form = h("form", { id: "new-game" });
    const type = h("select", { id: "game-type", name: "game_type" }, ...this.types.map((t) => h("option", { value: t.name }, `${t.title} (${t.seats} players)`))) as HTMLSelectElement;
    const name = h("input", { id: "player-name", name: "player_name", placeholder: "your name", maxlength: 64 }) as HTMLInputElement;
    const options = h("div", { class: "options" });
    const players = h("div", {});
    let readBots = (): Record<number, string> => ({});
    const clock = clockFields();
    let fields: { spec: OptionSpec; read: () => OptionValue; set: (v: OptionValue) => void; row: HTMLElement }[] = [];
    const showOptions = () => {
      const gameType = this.types.find((t) => t.name === type.value);
      fields = (gameType?.options ?? []).map((spec) => ({ spec, ...optionField(spec) }));
      for (const field of fields) {
        if (field.spec.presets.length === 0) continue;
        // An edition or preset sets other options' defaults: show them as it would.
        field.row.addEventListener("change", () => {
          const preset = field.spec.presets.find((p) => p.when === shown(field.read()));
          for (const [other, v] of Object.entries(preset?.defaults ?? {})) fields.find((f) => f.spec.name === other)?.set(v);
        });
      }
      replace(options, h("p", { class: "summary" }, gameType?.summary ?? ""), ...fields.map((f) => f.row));
      const seats = seatFields(gameType?.seats ?? 0);
      readBots = seats.read;
      replace(players, seats.row);
    };
    type.addEventListener("change", showOptions);
    showOptions();
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const chosen: Record<string, OptionValue> = {};
      for (const f of fields) {
        if (shown(f.read()) !== shown(f.spec.defaultValue)) chosen[f.spec.name] = f.read();
      }
      void this.createAndSit({ gameType: type.value, options: chosen, botSeats: readBots(), timeControl: clock.read() }, name.value);
    });
    replace(
      form,
      h("h2", {}, "New game"),
      h("label", {}, "Game ", type),
      h("label", {}, "Name ", name),
      options,
      players,
      clock.row,
      h("button", { type: "submit", id: "create" }, "Create and take a seat"),
    );
    const watch = h("input", { id: "watch-id", placeholder: "game id" }) as HTMLInputElement;
    replace(
      this.root,
      h("section", { class: "lobby" },
        h("div", {}, h("h2", {}, "Open games"), this.games,
          h("h2", {}, "Games"),
          h("ul", { id: "game-types" }, ...this.types.map((t) => h("li", { "data-game-type": t.name }, h("strong", {}, t.title), ` (${t.seats} players): ${t.summary}`))),
          h("p", {}, "Watch any game: ", watch, h("button", { onclick: () => { if (watch.value) location.hash = `#/game/${watch.value.trim()}`; } }, "Watch"))),
        form),
      this.message,
    );
    await this.refresh();
    this.timer = window.setInterval(() => void this.refresh(), REFRESH_MS);
  }

  stop(): void {
    window.clearInterval(this.timer);
  }

  private title(name: string): string {
    return this.types.find((t) => t.name === name)?.title ?? name;
  }

  private async refresh(): Promise<void> {
    try {
      const { games } = await this.api.listGames({ pageSize: 50 });
      replace(this.games, games.length ? h("table", {}, h("tr", {}, h("th", {}, "game"), h("th", {}, "seats"), h("th", {})), ...games.map((g) => this.row(g))) : h("p", {}, "No open game: create one."));
    } catch (err) {
      this.refuse(err);
    }
  }

  private row(game: GameSummary): HTMLElement {
    const seats = game.seats.map((s) => (s.taken ? s.playerName || `seat ${s.seat}` : "open")).join(", ");
    return h("tr", { "data-game": game.gameId },
      h("td", {}, this.title(game.gameType), h("small", {}, ` ${game.gameId}`)),
      h("td", {}, seats),
      h("td", {},
        h("button", { class: "sit", onclick: () => void this.sit(game.gameId, (document.getElementById("player-name") as HTMLInputElement).value) }, "Sit"),
        h("a", { class: "button watch", href: `#/game/${game.gameId}` }, "Watch")));
  }

  private async createAndSit(request: MessageInitShape<typeof CreateGameRequestSchema>, name: string): Promise<void> {
    try {
      const { game } = await this.api.createGame(request);
      await this.sit(game!.gameId, name, 0);
    } catch (err) {
      this.refuse(err);
    }
  }

  private async sit(gameId: string, playerName: string, seat?: number): Promise<void> {
    try {
      const joined = await this.api.joinGame({ gameId, playerName, seat });
      saveSeat(gameId, { seat: joined.seat, token: joined.seatToken });
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
