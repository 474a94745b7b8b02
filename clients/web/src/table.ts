// The card table: one game as this tab's seat (or a spectator) sees it.
//
// The server is the only source of truth. The page shows GetGame's view, follows StreamEvents
// (resuming from the last version it saw, also after a reload), and reads the view again after
// each batch. Legal moves come ready-made in the view: cards that are legal plays light up,
// laying cards aside is picking them in the hand (offered as one compact choice of cards, see
// layaside.ts), other moves are buttons. A card that is not a legal play can still be clicked:
// the server refuses it, and the page shows why.

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { type Api, type Refusal, type Seat, as, explain, isStale, saveSeat, savedSeat, savedVersion, saveVersion } from "./api";
import { clockText, ServerTime } from "./clocks";
import { bySuit, cardFace, cardKey, cardText, SUIT_NAME, suitText } from "./cards";
import { detailRows } from "./detail";
import { h, replace, type Child } from "./dom";
import { describeEvent } from "./events";
import { type Card } from "./gen/tricktable/v1/cards_pb";
import { GameStatus, StreamEventsResponseSchema, type GameSummary, type StreamEventsResponse } from "./gen/tricktable/v1/game_service_pb";
import { type GameType } from "./gen/tricktable/v1/game_types_pb";
import { MoveSchema, type Move } from "./gen/tricktable/v1/moves_pb";
import { type SeatView, type TrickView, type View } from "./gen/tricktable/v1/views_pb";
import { layAsideMove, layAsideOffer } from "./layaside";
import { describeMove } from "./moves";

/** The batches of events the log keeps (and the tab keeps across a reload). */
const LOG_BATCHES = 200;
/** Taking a seat is no event of the game: while seats are open, the page asks again this often. */
const WAITING_POLL_MS = 1000;
/** While a game runs, the page reads it again this often, to learn who is (still) connected:
 * presence is no event of the game. */
const PRESENCE_POLL_MS = 5000;
/** How often the running clocks are redrawn. */
const CLOCK_TICK_MS = 100;
/** More moves than this of one kind are offered in a list rather than as buttons. */
const MAX_BUTTONS = 16;

function requestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16)); // randomUUID needs https
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const logKey = (gameId: string) => `tricktable.log.${gameId}`;

export class Table {
  private seat?: Seat;
  private game?: GameSummary;
  /** The game's type, as ListGameTypes gives it: its facts (rank order, card points). */
  private gameType?: GameType;
  private view?: View;
  private refusal?: Refusal;
  private note = "";
  private readonly chosen = new Set<string>(); // cards picked to lay aside
  private log: StreamEventsResponse[]; // described when drawn, with the players' names then
  private readonly stop$ = new AbortController();
  private readonly serverTime = new ServerTime();
  private ticker = 0;

  constructor(private readonly root: HTMLElement, private readonly api: Api, private readonly gameId: string) {
    this.seat = savedSeat(gameId);
    try {
      const kept = JSON.parse(sessionStorage.getItem(logKey(gameId)) ?? "[]") as string[];
      this.log = kept.map((b64) => fromBinary(StreamEventsResponseSchema, base64Decode(b64)));
    } catch {
      this.log = []; // unreadable (another version of this page wrote it): start afresh
    }
  }

  async start(): Promise<void> {
    await this.refresh();
    void this.follow();
    void this.poll();
    this.ticker = window.setInterval(() => this.tick(), CLOCK_TICK_MS);
  }

  /** Reads the game again now and then: taking a seat and presence are no events of the game. */
  private async poll(): Promise<void> {
    while (!this.stop$.signal.aborted && !this.over) {
      const waiting = !this.game || this.game.status === GameStatus.WAITING;
      await new Promise((resolve) => setTimeout(resolve, waiting ? WAITING_POLL_MS : PRESENCE_POLL_MS));
      if (!this.stop$.signal.aborted) await this.refresh();
    }
  }

  private get over(): boolean {
    return this.game?.status === GameStatus.FINISHED || this.game?.status === GameStatus.ABANDONED;
  }

  stop(): void {
    this.stop$.abort();
    window.clearInterval(this.ticker);
  }

  private get token(): string | undefined {
    return this.seat?.token;
  }

  private name = (seat: number): string => {
    const player = this.game?.seats[seat]?.playerName;
    const you = seat === this.seat?.seat ? ", you" : "";
    return player ? `${player} (seat ${seat}${you})` : `Seat ${seat}${you}`;
  };

  private async refresh(): Promise<void> {
    try {
      // compactLayAside: a lay-aside turn comes as one choice (~260 bytes), not 560 moves.
      const reply = await this.api.getGame({ gameId: this.gameId, compactLayAside: true }, as(this.token, this.stop$.signal));
      if (reply.game && this.gameType?.name !== reply.game.gameType) {
        const types = (await this.api.listGameTypes({}, { signal: this.stop$.signal })).gameTypes;
        this.gameType = types.find((t) => t.name === reply.game?.gameType);
      }
      this.game = reply.game;
      this.view = reply.view;
      if (reply.view) this.serverTime.learn(reply.view);
      this.note = "";
    } catch (err) {
      if (this.stop$.signal.aborted) return;
      const why = explain(err);
      this.note = `Cannot read the game: ${why.reason || why.code} ${why.message}`;
    }
    this.render();
  }

  /** StreamEvents from the version after the last one seen, for as long as the page shows the
   * game; a dropped stream, or one a restarting server ended, is resumed from where it stopped. */
  private async follow(): Promise<void> {
    while (!this.stop$.signal.aborted) {
      try {
        if (this.note) await this.refresh(); // back after a drop: read the game, clear the note
        const from = savedVersion(this.gameId) + 1n;
        const batches = this.api.streamEvents({ gameId: this.gameId, fromVersion: from }, as(this.token, this.stop$.signal));
        for await (const batch of batches) {
          this.record(batch);
          // Batches the view already shows (a replay from an earlier version) need no reload.
          if (!this.game || batch.version > this.game.version) await this.refresh();
          else this.render();
        }
        await this.refresh();
        if (this.over) return;
        await new Promise((resolve) => setTimeout(resolve, 1000)); // the server was restarting
      } catch (err) {
        if (this.stop$.signal.aborted) return;
        this.note = `The event stream dropped (${explain(err).message}); resuming…`;
        this.render();
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private record(batch: StreamEventsResponse): void {
    this.log = [...this.log, batch].slice(-LOG_BATCHES);
    const kept = this.log.map((b) => base64Encode(toBinary(StreamEventsResponseSchema, b)));
    sessionStorage.setItem(logKey(this.gameId), JSON.stringify(kept));
    saveVersion(this.gameId, batch.version);
  }

  // -- acting ----------------------------------------------------------------------------------

  private async send(move: Move): Promise<void> {
    if (!this.game || !this.seat) return;
    try {
      await this.api.submitMove(
        // The page reads the game again after a move, but the answer's view is built anyway:
        // compactLayAside keeps it small when the next turn is a lay-aside.
        { gameId: this.gameId, move, expectedVersion: this.game.version, requestId: requestId(), compactLayAside: true },
        as(this.token),
      );
      this.refusal = undefined;
      this.chosen.clear();
    } catch (err) {
      this.refusal = explain(err);
      if (isStale(err)) this.refusal.message += " (the table has been brought up to date: try again)";
    }
    await this.refresh();
  }

  private async takeSeat(seat: number): Promise<void> {
    const name = (document.getElementById("seat-name") as HTMLInputElement | null)?.value ?? "";
    try {
      const joined = await this.api.joinGame({ gameId: this.gameId, seat, playerName: name });
      this.seat = { seat: joined.seat, token: joined.seatToken };
      saveSeat(this.gameId, this.seat);
      this.refusal = undefined;
    } catch (err) {
      this.refusal = explain(err);
    }
    await this.refresh();
  }

  private async leave(): Promise<void> {
    try {
      await this.api.leaveGame({ gameId: this.gameId }, as(this.token));
    } catch (err) {
      this.refusal = explain(err);
    }
    await this.refresh();
  }

  private clickCard(card: Card): void {
    const view = this.view!;
    if (layAsideOffer(view)) {
      const key = cardKey(card);
      if (this.chosen.has(key)) this.chosen.delete(key);
      else this.chosen.add(key);
      this.render();
      return;
    }
    const legal = view.legalMoves.find((m) => m.kind.case === "playCard" && m.kind.value.card && cardKey(m.kind.value.card) === cardKey(card));
    void this.send(legal ?? create(MoveSchema, { kind: { case: "playCard", value: { card } } }));
  }

  private layChosenAside(): void {
    const offer = this.view && layAsideOffer(this.view);
    const move = offer && layAsideMove(offer, this.chosen);
    if (move) void this.send(move);
  }

  // -- drawing ---------------------------------------------------------------------------------

  private render(): void {
    const view = this.view;
    const game = this.game;
    document.getElementById("where")!.textContent = game ? `${game.gameType} · ${game.gameId}` : this.gameId;
    if (!view || !game) {
      replace(this.root, h("p", { id: "note", class: "note" }, this.note), h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
      return;
    }
    replace(
      this.root,
      h("section", { class: "table", "data-phase": view.phase },
        h("div", { class: "bar" },
          h("span", { id: "status" }, this.status(view, game)),
          h("span", { id: "version", "data-version": String(game.version) }, `version ${game.version}`),
          h("span", { id: "viewer" }, this.seat ? `You: ${this.name(this.seat.seat)}` : "Spectator"),
          this.seat && game.status !== GameStatus.FINISHED && game.status !== GameStatus.ABANDONED
            ? h("button", { id: "leave", onclick: () => void this.leave() }, game.status === GameStatus.WAITING ? "Leave the seat" : "Resign")
            : null,
          h("a", { href: "#/" }, "Lobby")),
        this.refusalBox(),
        this.note ? h("p", { id: "note", class: "note" }, this.note) : null,
        game.status === GameStatus.WAITING ? this.openSeats(game) : null,
        h("div", { class: "felt" },
          h("div", { class: "seats" }, ...view.seats.map((s) => this.seatBox(s, view))),
          h("div", { class: "centre" },
            h("div", { class: "facts" },
              h("span", {}, `phase ${view.phase.replaceAll("_", " ")}`),
              h("span", {}, `deal ${view.dealNo}`),
              h("span", {}, `dealer ${this.name(view.dealer)}`),
              h("span", { id: "trump" }, `trumps ${suitText(view.trump)}`),
              view.turnUp?.rank ? h("span", {}, "turn-up ", cardFace(view.turnUp)) : null),
            this.trick(view.trick, "trick", "The trick"),
            view.tricks.length ? this.trick(view.tricks[view.tricks.length - 1], "last-trick", "Last trick") : null,
            this.details(view))),
        this.seat && view.viewer !== undefined ? this.hand(view) : null,
        this.moves(view),
        h("details", { open: true, class: "log" }, h("summary", {}, "What happened"), h("ol", { id: "log" }, ...this.logLines().map((line) => h("li", {}, line))))),
    );
  }

  private logLines(): string[] {
    return this.log.flatMap((batch) => [
      ...batch.events.map((event) => describeEvent(event, this.name)),
      ...(batch.resignedSeat === undefined ? [] : [`${this.name(batch.resignedSeat)} resigned`]),
    ]);
  }

  private status(view: View, game: GameSummary): string {
    if (game.status === GameStatus.ABANDONED) {
      return game.resignedSeat === undefined ? "Abandoned" : `Abandoned: ${this.name(game.resignedSeat)} resigned`;
    }
    if (view.finished) return `Game over: ${view.winners.map(this.name).join(" and ")} ${view.winners.length > 1 ? "win" : "wins"}`;
    if (game.status === GameStatus.WAITING) return "Waiting for players";
    if (this.seat && view.toAct.includes(this.seat.seat)) return "Your turn";
    return `Waiting for ${view.toAct.map(this.name).join(" and ")}`;
  }

  private refusalBox(): Child {
    if (!this.refusal) return null;
    return h("p", { id: "refusal", class: "refusal", "data-reason": this.refusal.reason },
      h("strong", {}, this.refusal.reason || this.refusal.code), ` ${this.refusal.message}`);
  }

  private openSeats(game: GameSummary): HTMLElement {
    const open = game.seats.filter((s) => !s.taken);
    return h("div", { class: "open-seats" },
      h("p", {}, `${open.length} open seat${open.length === 1 ? "" : "s"}. Others join from the lobby or from this page in another tab.`),
      this.seat ? null : h("span", {},
        h("input", { id: "seat-name", placeholder: "your name", maxlength: 64 }),
        ...open.map((s) => h("button", { class: "take-seat", "data-seat": s.seat, onclick: () => void this.takeSeat(s.seat) }, `Take seat ${s.seat}`))));
  }

  /** Redraws the running clocks (only their text: the rest of the table stays as it is). */
  private tick(): void {
    const now = this.serverTime.now();
    for (const clock of this.view?.clocks ?? []) {
      if (!clock.running) continue;
      const shown = this.root.querySelector(`.clock[data-seat="${clock.seat}"]`);
      if (shown) shown.textContent = clockText(clock, now);
    }
  }

  private clock(seat: number, view: View): Child {
    const clock = view.clocks.find((c) => c.seat === seat);
    if (!clock) return null;
    return h("div", { class: `clock${clock.running ? " running" : ""}`, "data-seat": seat, "data-timeouts": clock.timeouts },
      clockText(clock, this.serverTime.now()));
  }

  /** A note when a person's seat has nobody at it (a bot's seat is always connected). */
  private absence(seat: number, view: View): Child {
    const presence = view.presence.find((p) => p.seat === seat);
    if (!presence || presence.connected || seat === view.viewer || this.game?.status !== GameStatus.PLAYING) return null;
    return h("div", { class: "absent" }, "not connected: waiting for the player to reconnect");
  }

  private seatBox(seat: SeatView, view: View): HTMLElement {
    const acting = view.toAct.includes(seat.seat);
    const optional = !acting && view.mayAct.includes(seat.seat);
    const facts: Child[] = [
      h("span", {}, `${seat.handSize} cards`),
      seat.bid !== undefined ? h("span", { class: "bid" }, `bid ${seat.bid}`) : null,
      seat.asideCount ? h("span", {}, `${seat.asideCount} aside`) : null,
      h("span", {}, `tricks ${seat.tricksWon}`),
      seat.pointsTaken !== undefined ? h("span", {}, `points ${seat.pointsTaken}`) : null,
      h("span", { class: "score" }, `score ${seat.score}`),
    ];
    const exposed = seat.seat !== view.viewer && seat.hand ? h("div", { class: "exposed" }, "hand ", ...seat.hand.cards.map((c) => cardFace(c))) : null;
    const aside = seat.aside?.cards.length ? h("div", { class: "aside" }, "aside ", ...seat.aside.cards.map((c) => cardFace(c))) : null;
    return h("div", { class: `seat${acting ? " acting" : ""}${seat.seat === view.viewer ? " mine" : ""}`, "data-seat": seat.seat },
      h("div", { class: "who" }, this.name(seat.seat),
        acting ? h("span", { class: "badge" }, "to act") : null,
        optional ? h("span", { class: "badge optional" }, "may act") : null),
      this.clock(seat.seat, view), this.absence(seat.seat, view),
      h("div", { class: "facts" }, ...facts), exposed, aside);
  }

  private trick(trick: TrickView | undefined, id: string, title: string): HTMLElement {
    const played = trick?.cards ?? [];
    return h("div", { id, class: "trick" },
      h("h3", {}, title, trick?.winner !== undefined ? ` — won by ${this.name(trick.winner)}` : ""),
      played.length
        ? h("div", { class: "played" }, ...played.map((card, i) => h("figure", {}, cardFace(card), h("figcaption", {}, this.name(trick!.seats[i])))))
        : h("p", { class: "empty" }, "no card yet"));
  }

  private details(view: View): HTMLElement {
    return h("dl", { class: "detail" }, ...detailRows(view, this.name).flatMap(([label, content]) => [h("dt", {}, label), h("dd", {}, content)]));
  }

  private hand(view: View): HTMLElement {
    const me = view.seats[view.viewer!];
    const cards = me?.hand?.cards ?? [];
    const legal = new Set(view.legalMoves.flatMap((m) => (m.kind.case === "playCard" && m.kind.value.card ? [cardKey(m.kind.value.card)] : [])));
    const rows = [...bySuit(cards, this.gameType?.rankOrder ?? [])].filter(([, row]) => row.length);
    return h("div", { id: "hand", class: "hand" },
      h("h3", {}, "Your hand"),
      ...rows.map(([suit, row]) =>
        h("div", { class: "suit-row", "data-suit": SUIT_NAME[suit] ?? "joker" },
          ...row.map((card) => cardFace(card, "button", {
            class: `card ${cardFace(card).className.split(" ")[1]}${legal.has(cardKey(card)) ? " legal" : ""}${this.chosen.has(cardKey(card)) ? " chosen" : ""}`,
            title: legal.has(cardKey(card)) ? `play ${cardText(card)}` : cardText(card),
            onclick: () => this.clickCard(card),
          })))));
  }

  private moves(view: View): Child {
    const offer = layAsideOffer(view);
    if (!this.seat || (!view.legalMoves.length && !offer)) return null;
    const others = view.legalMoves.filter((m) => m.kind.case !== "playCard" && m.kind.case !== "layAside");
    const parts: Child[] = [];
    if (!view.toAct.includes(this.seat.seat)) {
      // Only optional moves (a Sixty-Six claim): the game does not wait for them, no clock runs.
      parts.push(h("p", { class: "optional" }, "You may, if you wish (the game does not wait for it):"));
    }
    if (offer) {
      parts.push(h("p", { class: "lay-aside", "data-count": offer.count },
        `Pick ${offer.count} cards in your hand to lay aside (${this.chosen.size} picked) `,
        h("button", { id: "lay-aside", disabled: !layAsideMove(offer, this.chosen), onclick: () => this.layChosenAside() }, "Lay aside")));
    }
    const byKind = new Map<string, Move[]>();
    for (const move of others) byKind.set(move.kind.case!, [...(byKind.get(move.kind.case!) ?? []), move]);
    for (const [kind, moves] of byKind) {
      if (moves.length <= MAX_BUTTONS) {
        parts.push(h("span", { class: "kind" }, ...moves.map((m) => h("button", { class: "move", "data-kind": kind, "data-move": describeMove(m), onclick: () => void this.send(m) }, describeMove(m)))));
      } else {
        const list = h("select", { class: "move-list", "data-kind": kind }, ...moves.map((m, i) => h("option", { value: i }, describeMove(m)))) as HTMLSelectElement;
        parts.push(h("span", { class: "kind" }, list, h("button", { onclick: () => void this.send(moves[Number(list.value)]) }, "Send")));
      }
    }
    return h("div", { id: "moves", class: "moves" }, ...parts);
  }
}
