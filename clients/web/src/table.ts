// The card table: one game as this tab's seat (or a spectator) sees it, drawn as a table with
// the seats around it (this tab's seat at the bottom), the trick in the middle and the hand
// below. session.ts holds the data (the package's followTable keeps it current); this module
// only draws and turns clicks into its calls.
// What it draws is the package's table model (TableState): the seats, the hand by suit in the
// game's rank order, the trick and the last trick, bids, scores, whose turn, clocks, the legal
// moves; only the game's details in words (detail.ts) and the score sheet read the protocol.
//
// Legal moves come ready-made in the model: cards that are legal plays light up, laying cards
// aside is picking them in the hand (the bid they make shown as they are picked), a Nominations
// contract is trumps then the card to call, other moves are buttons with a line on what they
// do. A card that is not a legal play can still be clicked: the server refuses it and the page
// shows why.

import {
  cardKey,
  cardLabel,
  layAside,
  playOf,
  SUIT_SYMBOLS,
  type GameInfo,
  type LayAsideOffer,
  type PlainCard,
  type PlainMove,
  type SeatState,
  type SuitName,
  type TableState,
  type TricktableClient,
} from "@tricktable/client";
import { explain } from "./connection";
import { clockText } from "./clocks";
import { cardFace, suitSymbol } from "./cards";
import { detailRows, lastDeal, scoreSheet } from "./detail";
import { h, replace, type Child } from "./dom";
import { describeEvent } from "./events";
import { type View } from "@tricktable/client/gen/tricktable/v1/views_pb";
import { describeMove } from "./moves";
import { forgetInvite, invite, inviteLink, keepInvite } from "./invites";
import { TableSession } from "./session";
import { bidRule, bidText, explainMoves, moveLabel, seatName } from "./words";

/** How often the running clocks are redrawn. */
const CLOCK_TICK_MS = 100;
/** More moves than this of one kind are offered in a list rather than as buttons. */
const MAX_BUTTONS = 16;
/** Where each seat sits, by its distance clockwise from the seat at the bottom. */
const PLACES: Record<number, string[]> = {
  2: ["bottom", "top"],
  3: ["bottom", "left", "right"],
  4: ["bottom", "left", "top", "right"],
};

export class Table {
  private readonly session: TableSession;
  private readonly chosen = new Set<string>(); // cards picked to lay aside
  private contractTrump?: SuitName | null; // Nominations: the trumps chosen (null: none), before the card to call
  private confirmingResign = false;
  private logPinned = true; // the log follows its newest line unless the reader scrolled up
  private ticker = 0;

  private inviteNote = "";

  /** `inviteCode`: an unlisted game's, from the link the page was opened with (#/join/…). */
  constructor(private readonly root: HTMLElement, private readonly client: TricktableClient, gameId: string, inviteCode = "") {
    this.session = new TableSession(client, gameId, () => this.render());
    this.session.inviteCode = inviteCode;
    // The rematch has begun: this tab's seat plays the next game.
    this.session.onNextGame = (next) => { location.hash = `#/game/${encodeURIComponent(next)}`; };
  }

  async start(): Promise<void> {
    await this.session.start();
    this.ticker = window.setInterval(() => this.tick(), CLOCK_TICK_MS);
  }

  stop(): void {
    this.session.stop();
    window.clearInterval(this.ticker);
  }

  private get mySeat(): number | undefined {
    return this.session.seat?.seat ?? undefined;
  }

  /** The page was given a player token (or another one): the seat its player holds here. */
  identityChanged(): void {
    void this.session.findIdentitySeat();
  }

  /** The server's time now, as the views have taught it. */
  private now = (): number => this.session.feed?.serverTime.now() ?? Date.now();

  /** A seat's name, "(you)" after this tab's own. */
  private name = (seat: number): string => `${seatName(this.session.table, seat)}${seat === this.mySeat ? " (you)" : ""}`;

  // -- acting ----------------------------------------------------------------------------------

  private async send(move: PlainMove): Promise<void> {
    if (await this.session.send(move)) {
      this.chosen.clear();
      this.contractTrump = undefined;
      this.render();
    }
  }

  private clickCard(card: PlainCard): void {
    const legal = this.session.table!.legal;
    const offer = legal.layAside;
    if (offer) {
      const key = cardKey(card);
      if (this.chosen.has(key)) this.chosen.delete(key);
      else if (this.chosen.size < offer.count) this.chosen.add(key); // exactly `count`, no more
      this.render();
      return;
    }
    // Not a legal play: sent all the same, and the server's refusal says why.
    void this.send(playOf(legal, card) ?? { kind: "playCard", card });
  }

  /** The lay-aside of the cards picked; undefined unless exactly the number needed are. */
  private chosenLayAside(offer: LayAsideOffer): PlainMove | undefined {
    const picked = offer.cards.filter((c) => this.chosen.has(cardKey(c)));
    if (picked.length !== offer.count || picked.length !== this.chosen.size) return undefined;
    return layAside(offer, picked);
  }

  private layChosenAside(): void {
    const offer = this.session.table?.legal.layAside;
    const move = offer && this.chosenLayAside(offer);
    if (move) void this.send(move);
  }

  private async resign(): Promise<void> {
    this.confirmingResign = false;
    await this.session.leave();
  }

  // -- drawing ---------------------------------------------------------------------------------

  private render(): void {
    const { table, feed } = this.session;
    document.getElementById("where")!.textContent = feed?.gameType.title ?? "";
    if (!table || !feed) {
      replace(this.root, h("p", { id: "note", class: "note" }, this.session.note || "Loading…"), h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
      return;
    }
    const { view, game } = feed;
    const oldLog = this.root.querySelector("#log");
    if (oldLog) this.logPinned = oldLog.scrollTop + oldLog.clientHeight >= oldLog.scrollHeight - 4;
    const over = this.session.over;
    replace(
      this.root,
      h("section", {
        class: "table", "data-phase": table.phase, "data-seats": table.seatCount,
        // With a player token, once the player's games are read: their seat here, or "none".
        "data-identity-seat": this.session.identityChecked ? String(this.session.identitySeat ?? "none") : undefined,
      },
        h("div", { class: "bar" },
          h("span", { id: "status", class: this.mySeat !== undefined && table.toAct.includes(this.mySeat) && !over ? "mine" : "" }, this.status(table)),
          h("span", { id: "version", "data-version": String(table.viewVersion), hidden: true }),
          h("span", { id: "viewer" }, this.session.seat ? `You: ${seatName(table, this.session.seat.seat!)}` : "Spectator"),
          this.session.seat && !over
            ? h("button", { id: "leave", onclick: () => this.askToLeave(table) }, table.status === "waiting" ? "Leave the seat" : "Resign")
            : null,
          h("a", { href: "#/", class: "lobby-link" }, "Lobby")),
        this.confirmBox(),
        this.takeBackBox(),
        this.identityBox(),
        this.refusalBox(),
        this.session.note ? h("p", { id: "note", class: "note" }, this.session.note) : null,
        table.status === "waiting" ? this.openSeats(table, game) : null,
        table.status === "waiting" ? this.inviteBox() : null,
        over ? this.gameOver(view, table) : null,
        this.felt(table),
        this.moves(table, game),
        this.session.seat && table.viewer !== null ? this.hand(table) : null,
        this.about(view, table),
        h("details", { open: true, class: "log" }, h("summary", {}, "What happened"),
          h("ol", { id: "log" }, ...this.logLines().map((line) => h("li", {}, line))))),
    );
    const log = this.root.querySelector("#log");
    if (log && this.logPinned) log.scrollTop = log.scrollHeight;
  }

  private logLines(): string[] {
    let declarer: number | undefined;
    return this.session.log.flatMap((batch) => [
      ...batch.events.map((event) => {
        if (event.kind.case === "contractDeclared") declarer = event.kind.value.declarer;
        if (event.kind.case === "dealStarted") declarer = undefined;
        return describeEvent(event, this.name, declarer);
      }),
      ...(batch.resignedSeat === undefined ? [] : [`${this.name(batch.resignedSeat)} resigned`]),
    ]);
  }

  private status(table: TableState): string {
    if (table.status === "abandoned") {
      return table.resignedSeat === null ? "Abandoned" : `Abandoned: ${this.name(table.resignedSeat)} resigned`;
    }
    if (table.finished) return `Game over: ${table.winners.map(this.name).join(" and ")} ${table.winners.length > 1 ? "win" : "wins"}`;
    if (table.status === "waiting") return "Waiting for players";
    if (this.mySeat !== undefined && table.toAct.includes(this.mySeat)) return "Your turn";
    return `Waiting for ${table.toAct.map(this.name).join(" and ")}`;
  }

  private askToLeave(table: TableState): void {
    if (table.status === "waiting") {
      void this.session.leave(); // nothing is lost: the seat is open again
      return;
    }
    this.confirmingResign = true;
    this.render();
  }

  /** Resigning ends the game for everyone: it is asked first. */
  private confirmBox(): Child {
    if (!this.confirmingResign || this.session.over) return null;
    return h("div", { id: "confirm-resign", class: "confirm", role: "alertdialog" },
      h("p", {}, h("strong", {}, "Resign this game?"), " The game ends now, for every player, and cannot be taken back."),
      h("button", { id: "resign-yes", class: "danger", onclick: () => void this.resign() }, "Yes, resign"),
      h("button", { id: "resign-no", onclick: () => { this.confirmingResign = false; this.render(); } }, "Keep playing"));
  }

  /** The seats this browser holds that this tab does not play: take one back. */
  private takeBackBox(): Child {
    const seats = this.session.seatsToTakeBack;
    if (!seats.length || this.session.over) return null;
    const table = this.session.table;
    return h("div", { id: "take-back", class: "note" },
      this.session.seat ? "This browser also holds " : `This browser holds ${seats.length === 1 ? "a seat" : "seats"} in this game. `,
      ...seats.map((seat) => h("button", { class: `take-back${this.session.seat ? "" : " primary"}`, "data-seat": seat.seat!, onclick: () => void this.session.takeBack(seat) },
        this.session.seat ? `${seatName(table, seat.seat!)}'s seat: play it here` : `Take my seat back (${seatName(table, seat.seat!)})`)));
  }

  /** With a player token: the seat this player holds here, taken on another device, which this
   * browser holds no token for: take it back (the server gives this browser a token of it). */
  private identityBox(): Child {
    const seat = this.session.identitySeat;
    if (seat === undefined || this.session.over || this.mySeat === seat) return null;
    return h("div", { id: "identity-seat", class: "note" },
      `You hold ${seatName(this.session.table, seat)}'s seat at this game (taken on another device). `,
      h("button", { id: "take-back-identity", class: "take-back primary", "data-seat": seat, onclick: () => void this.session.takeIdentitySeatBack() },
        `Take my seat back (${seatName(this.session.table, seat)})`));
  }

  private refusalBox(): Child {
    const refusal = this.session.refusal;
    if (!refusal) return null;
    return h("p", { id: "refusal", class: "refusal", "data-reason": refusal.reason },
      h("strong", {}, refusal.reason || refusal.code), ` ${refusal.message}`);
  }

  private openSeats(table: TableState, game: GameInfo): HTMLElement {
    const open = table.seats.filter((s) => !s.taken);
    return h("div", { class: "open-seats" },
      h("p", {}, `${open.length} open seat${open.length === 1 ? "" : "s"}. `,
        game.visibility === "unlisted" ? "This table is unlisted: players join with its link." : "Send this page's address to the players, or they join from the lobby."),
      this.session.seat ? null : h("span", {},
        h("input", { id: "seat-name", placeholder: "your name", maxlength: 64 }),
        ...open.map((s) => h("button", {
          class: "take-seat", "data-seat": s.seat,
          onclick: () => void this.takeSeat(s.seat),
        }, `Sit as ${seatName(table, s.seat)}`))));
  }

  private async takeSeat(seat: number): Promise<void> {
    await this.session.takeSeat(seat, (document.getElementById("seat-name") as HTMLInputElement | null)?.value ?? "");
    // Seated: the invite code has done its work, and leaves the address bar (and the history).
    if (this.session.seat && this.session.inviteCode) history.replaceState(null, "", `#/game/${encodeURIComponent(this.session.gameId)}`);
  }

  /** An unlisted table's link, for the creator (this browser keeps the code): copy it to the
   * players, or revoke it. The code is in the address's fragment, which no server sees. */
  private inviteBox(): Child {
    const code = invite(this.session.gameId);
    if (!code && !this.inviteNote) return null;
    const link = h("input", { id: "invite-link", readonly: true, value: code ? inviteLink(this.session.gameId, code) : "" }) as HTMLInputElement;
    return h("div", { id: "invite", class: "note" },
      code ? h("p", {}, h("strong", {}, "Invite link: "), "whoever opens it may take a seat. ", link,
        h("button", { id: "copy-invite", onclick: () => { link.select(); void navigator.clipboard?.writeText(link.value).catch(() => undefined); } }, "Copy"),
        h("button", { id: "revoke-invite", onclick: () => void this.revokeInvite(code, false) }, "Revoke the link"),
        h("button", { id: "reissue-invite", onclick: () => void this.revokeInvite(code, true) }, "New link")) : null,
      this.inviteNote ? h("p", { id: "invite-note" }, this.inviteNote) : null);
  }

  private async revokeInvite(code: string, reissue: boolean): Promise<void> {
    try {
      const reissued = await this.client.revokeInvite(this.session.gameId, code, { reissue });
      if (reissued) keepInvite(this.session.gameId, reissued);
      else forgetInvite(this.session.gameId);
      this.inviteNote = reissue ? "A new link replaces the old one, which no longer lets anyone in." : "The link was revoked: nobody can join with it any more.";
    } catch (err) {
      const why = explain(err);
      this.inviteNote = `The link could not be revoked: ${why.reason || why.code} ${why.message}`;
    }
    this.render();
  }

  /** "Play again": who has accepted the rematch, and this seat's button while it has not. */
  private playAgain(table: TableState): Child {
    const offer = this.session.rematch;
    const accepted = offer?.accepted ?? [];
    const humans = table.seats.filter((s) => !s.bot).map((s) => s.seat);
    const waitingFor = humans.filter((s) => !accepted.includes(s));
    const mine = this.mySeat;
    if (offer?.gameId) {
      return h("p", { id: "rematch", class: "note" }, "The next game has started. ", h("a", { id: "rematch-game", class: "button primary", href: `#/game/${encodeURIComponent(offer.gameId)}` }, mine === undefined ? "Watch it" : "Go to it"));
    }
    if (mine === undefined && !accepted.length) return null;
    return h("p", { id: "rematch", class: "note" },
      mine !== undefined && !accepted.includes(mine)
        ? h("button", { id: "play-again", class: "primary", onclick: () => void this.session.playAgain() }, "Play again")
        : null,
      accepted.length ? ` Accepted: ${accepted.map(this.name).join(", ")}.` : " The same game again, each player one seat on.",
      accepted.length && waitingFor.length ? ` Waiting for ${waitingFor.map(this.name).join(" and ")}.` : "");
  }

  /** The end of the game: the standing, the deal-by-deal score sheet, and what next. */
  private gameOver(view: View, table: TableState): HTMLElement {
    const standing = [...table.seats].sort((a, b) => b.score - a.score);
    const deals = this.session.deals.length ? this.session.deals : [lastDeal(view)].filter((d) => d !== undefined);
    return h("div", { id: "game-over", class: "game-over" },
      h("h2", {}, table.finished ? "Final standing" : "The game was abandoned"),
      h("ol", { class: "standing" }, ...standing.map((s) => h("li", { "data-seat": s.seat, class: table.winners.includes(s.seat) ? "winner" : "" },
        h("strong", {}, this.name(s.seat)), ` ${s.score}`, table.winners.includes(s.seat) ? h("span", { class: "badge" }, "wins") : null))),
      deals.length ? h("details", { open: true }, h("summary", {}, "Score sheet"), scoreSheet(deals, this.name, "score-sheet")) : null,
      table.seats.every((s) => s.taken) ? this.playAgain(table) : null,
      h("p", { class: "next" },
        h("a", { id: "play-new-game", class: "button primary", href: `#/new/${encodeURIComponent(table.gameType)}` }, "New game"),
        " ",
        h("a", { class: "button", href: "#/" }, "Lobby")));
  }

  /** Redraws the running clocks (only their text: the rest of the table stays as it is). */
  private tick(): void {
    const now = this.now();
    for (const seat of this.session.table?.seats ?? []) {
      if (!seat.clock?.running) continue;
      const shown = this.root.querySelector(`.clock[data-seat="${seat.seat}"]`);
      if (shown) shown.textContent = clockText(seat.clock, now);
    }
  }

  private clock(seat: SeatState): Child {
    const clock = seat.clock;
    if (!clock) return null;
    return h("div", { class: `clock${clock.running ? " running" : ""}`, "data-seat": seat.seat, "data-timeouts": clock.timeouts },
      clockText(clock, this.now()));
  }

  /** A note when a person's seat has nobody at it (a bot's seat is always connected). */
  private absence(seat: SeatState, table: TableState): Child {
    if (seat.connected !== false || seat.seat === table.viewer || table.status !== "playing") return null;
    return h("div", { class: "absent" }, "not connected: waiting for the player to reconnect");
  }

  /** Where a seat sits at this table: this tab's seat (or the first, for a spectator) at the
   * bottom, the others clockwise. */
  private place(seat: number, table: TableState): string {
    const n = table.seatCount;
    const bottom = this.mySeat ?? 0;
    return PLACES[n]?.[(seat - bottom + n) % n] ?? "top";
  }

  private felt(table: TableState): HTMLElement {
    return h("div", { class: "felt" },
      ...table.seats.map((s) => this.seatBox(s, table)),
      h("div", { class: "centre" },
        h("div", { class: "facts" },
          h("span", {}, `Deal ${table.dealNo}`),
          h("span", { id: "trump" }, table.trump ? `Trumps ${SUIT_SYMBOLS[table.trump]}` : "No trump"),
          table.turnUp ? h("span", { class: "turn-up" }, "turn-up ", cardFace(table.turnUp, "span", {}, "small")) : null),
        this.trick(table)));
  }

  private seatBox(seat: SeatState, table: TableState): HTMLElement {
    const acting = seat.toAct;
    const optional = !acting && seat.mayAct;
    const facts: Child[] = [
      h("span", {}, `${seat.handSize} cards`),
      seat.bid !== null ? h("span", { class: "bid" }, `bid ${seat.bid}`) : null,
      seat.asideCount ? h("span", {}, `${seat.asideCount} aside`) : null,
      h("span", {}, `${seat.tricksWon} trick${seat.tricksWon === 1 ? "" : "s"}`),
      seat.pointsTaken !== null ? h("span", {}, `${seat.pointsTaken} points`) : null,
      h("span", { class: "score" }, `score ${seat.score}`),
    ];
    const small = (cards: readonly PlainCard[]) => cards.map((c) => cardFace(c, "span", {}, "small"));
    const mine = seat.seat === table.viewer;
    const exposed = !mine && seat.cards ? h("div", { class: "exposed" }, "hand ", ...small(seat.cards)) : null;
    const aside = seat.aside?.length ? h("div", { class: "aside" }, "aside ", ...small(seat.aside)) : null;
    return h("div", { class: `seat at-${this.place(seat.seat, table)}${acting ? " acting" : ""}${mine ? " mine" : ""}`, "data-seat": seat.seat },
      h("div", { class: "who" }, h("span", { class: "name" }, this.name(seat.seat)),
        seat.seat === table.dealer ? h("span", { class: "badge dealer", title: "dealer" }, "dealer") : null,
        acting ? h("span", { class: "badge" }, mine ? "your turn" : "to act") : null,
        optional ? h("span", { class: "badge optional" }, "may act") : null),
      this.clock(seat), this.absence(seat, table),
      h("div", { class: "facts" }, ...facts), exposed, aside);
  }

  /** The trick on the table, each card before the seat that played it; the last trick beside
   * it while no card of the next one is down. */
  private trick(table: TableState): HTMLElement {
    const played = table.trick?.plays ?? [];
    const won = table.lastTrick?.winner ?? null;
    return h("div", { id: "trick", class: "trick" },
      ...played.map((play) => h("figure", { class: `played at-${this.place(play.seat, table)}` },
        cardFace(play.card), h("figcaption", {}, seatName(table, play.seat)))),
      played.length ? null : h("p", { class: "empty" }, won !== null ? `${this.name(won)} won the last trick` : ""));
  }

  /** The game's state in words, the last trick and the last deal (folded away on a phone). */
  private about(view: View, table: TableState): HTMLElement {
    const rows = detailRows(view, table, this.name);
    const last = table.lastTrick;
    const deal = lastDeal(view);
    return h("div", { class: "about" },
      rows.length ? h("dl", { class: "detail" }, ...rows.flatMap(([label, content]) => [h("dt", {}, label), h("dd", {}, content)])) : null,
      last ? h("div", { id: "last-trick", class: "last-trick" }, h("span", {}, `Last trick${last.winner !== null ? `, won by ${this.name(last.winner)}` : ""}: `),
        ...last.plays.map((play) => cardFace(play.card, "span", {}, "small"))) : null,
      deal && !this.session.over ? h("details", { class: "last-deal" }, h("summary", {}, `Deal ${deal.dealNo} scored`), scoreSheet([deal], this.name)) : null);
  }

  /** The hand as the model groups it (by suit, in the game's rank order, strongest first),
   * each suit drawn weakest to strongest, left to right. */
  private hand(table: TableState): HTMLElement {
    const legal = new Set(table.legal.moves.flatMap((m) => (m.kind === "playCard" ? [cardKey(m.card)] : [])));
    return h("div", { id: "hand", class: "hand" },
      ...table.hand.map((row) =>
        h("div", { class: "suit-row", "data-suit": row.suit ?? "joker" },
          ...[...row.cards].reverse().map((card) => {
            const key = cardKey(card);
            const extra = `${legal.has(key) ? "legal" : ""}${this.chosen.has(key) ? " chosen" : ""}`;
            return cardFace(card, "button", { title: legal.has(key) ? `play ${cardLabel(card)}` : cardLabel(card), onclick: () => this.clickCard(card) }, extra.trim());
          }))));
  }

  private layAside(table: TableState, game: GameInfo): Child {
    const offer = table.legal.layAside;
    if (!offer) return null;
    // In the order they were picked (the Set keeps it).
    const picked = [...this.chosen].flatMap((key) => offer.cards.filter((c) => cardKey(c) === key));
    const reading = this.session.feed?.gameType.bidReading;
    const highReadings = game.options.high_readings === true;
    const made = reading ? bidText(picked, reading, table.turnUp, highReadings) : "";
    return h("div", { class: "lay-aside", "data-count": offer.count },
      h("p", {}, h("strong", {}, `Pick ${offer.count} cards to lay aside (${this.chosen.size} picked)`), made ? h("span", { id: "bid-made" }, ` ${made}`) : null, " ",
        h("button", { id: "lay-aside", class: "primary", disabled: !this.chosenLayAside(offer), onclick: () => this.layChosenAside() }, "Lay aside")),
      reading ? h("p", { class: "explain" }, bidRule(reading, highReadings)) : null);
  }

  /** Nominations' contract: trumps first, then the card to call (its holder is the partner). */
  private contract(moves: readonly PlainMove[]): HTMLElement {
    const declared = moves.flatMap((m) => (m.kind === "declareContract" ? [m] : []));
    // No trump last.
    const trumps = [...new Set(declared.map((d) => d.trump))].sort((a, b) => (a === null ? 1 : b === null ? -1 : 0));
    const chosen = this.contractTrump;
    const callable = declared.filter((d) => d.trump === chosen);
    const bySuitRow = new Map<SuitName | null, typeof callable>();
    for (const d of callable) bySuitRow.set(d.called.suit, [...(bySuitRow.get(d.called.suit) ?? []), d]);
    return h("div", { class: "contract" },
      h("p", { class: "explain" }, "You won the auction. Choose trumps, then the card to call: its holder is your partner (a card of your own: you play alone)."),
      h("div", { class: "kind" }, ...trumps.map((trump) => h("button", {
        class: `trump-choice${trump === chosen ? " chosen" : ""}`, "data-trump": trump ?? "none",
        onclick: () => { this.contractTrump = trump; this.render(); },
      }, trump ? `${suitSymbol(trump)} trumps` : "No trump"))),
      chosen === undefined ? null : h("div", { class: "call-cards" },
        h("p", {}, "Call a card:"),
        ...[...bySuitRow.values()].map((row) => h("div", { class: "suit-row" },
          ...row.map((d) => cardFace(d.called, "button", { onclick: () => void this.send(d), title: `call ${cardLabel(d.called)}` }, "call-card small"))))));
  }

  private moves(table: TableState, game: GameInfo): Child {
    const offer = table.legal.layAside;
    if (!this.session.seat || (!table.legal.moves.length && !offer)) return null;
    const others = table.legal.moves.filter((m) => m.kind !== "playCard");
    const parts: Child[] = [];
    if (this.mySeat !== undefined && !table.toAct.includes(this.mySeat)) {
      // Only optional moves (a Sixty-Six claim): the game does not wait for them, no clock runs.
      parts.push(h("p", { class: "optional" }, "You may, if you wish (the game does not wait for it):"));
    }
    parts.push(this.layAside(table, game));
    if (others.some((m) => m.kind === "declareContract")) parts.push(this.contract(others));
    const byKind = new Map<string, PlainMove[]>();
    for (const move of others) {
      if (move.kind === "declareContract") continue;
      byKind.set(move.kind, [...(byKind.get(move.kind) ?? []), move]);
    }
    for (const [kind, moves] of byKind) {
      const why = explainMoves(kind, moves);
      let choices: Child;
      if (moves.length <= MAX_BUTTONS) {
        choices = h("span", { class: "kind" }, ...moves.map((m) => h("button", {
          class: "move", "data-kind": kind, "data-move": describeMove(m), onclick: () => void this.send(m),
        }, moveLabel(m, this.name, describeMove(m)))));
      } else {
        const list = h("select", { class: "move-list", "data-kind": kind }, ...moves.map((m, i) => h("option", { value: i }, moveLabel(m, this.name, describeMove(m))))) as HTMLSelectElement;
        choices = h("span", { class: "kind" }, list, h("button", { onclick: () => void this.send(moves[Number(list.value)]!) }, "Send"));
      }
      parts.push(h("div", { class: "choice", "data-kind": kind }, choices, why ? h("small", { class: "explain" }, why) : null));
    }
    return h("div", { id: "moves", class: "moves" }, ...parts);
  }
}
