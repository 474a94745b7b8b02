// One game as this tab follows it: the table's data, on the @tricktable/client package. The
// package's seat session (GameSession) reads the game, sends moves, leaves, and gives the
// game's events as a stream that resumes by itself after a drop or a server restart; each view
// read goes through the package's table model (reduceTable), and what table.ts draws is that
// model's TableState. This module chooses which seat this tab plays (seats.ts), keeps the log
// across a reload, follows the rematch, and calls `changed` whenever there is something new to
// draw. table.ts only draws.
//
// The server is the only source of truth: after each batch of events the game is read again
// (the table is the view's, never one the page built from events itself).

import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import {
  emptyTable,
  reduceTable,
  rematchState,
  ServerTime,
  sleep,
  toTricktableError,
  type GameInfo,
  type GameSession,
  type GameType,
  type PlainMove,
  type RematchState,
  type StreamEventsResponse,
  type TableState,
  type TricktableClient,
  type View,
} from "@tricktable/client";
import { type DealScored } from "@tricktable/client/gen/tricktable/v1/events_pb";
import { StreamEventsResponseSchema } from "@tricktable/client/gen/tricktable/v1/game_service_pb";
import { type Refusal, explain, playerToken } from "./connection";
import { forgetSeat, tabSeat, useSeat } from "./seats";

/** The batches of events the log keeps (and the tab keeps across a reload). */
const LOG_BATCHES = 200;
/** Taking a seat is no event of the game: while seats are open, the page asks again this often. */
const WAITING_POLL_MS = 1000;
/** While a game runs, the page reads it again this often, to learn who is (still) connected:
 * presence is no event of the game. */
const PRESENCE_POLL_MS = 5000;

/** A signal aborted when either is (AbortSignal.any, which Safari before 17.4 lacks). */
function eitherAborted(a: AbortSignal, b: AbortSignal): AbortSignal {
  const both = new AbortController();
  for (const signal of [a, b]) {
    if (signal.aborted) both.abort();
    else signal.addEventListener("abort", () => both.abort(), { once: true });
  }
  return both.signal;
}

const logKey = (gameId: string) => `tricktable.log.${gameId}`;
const dealsKey = (gameId: string) => `tricktable.deals.${gameId}`;
const versionKey = (gameId: string) => `tricktable.version.${gameId}`;

function keptBatches(key: string): StreamEventsResponse[] {
  try {
    const kept = JSON.parse(sessionStorage.getItem(key) ?? "[]") as string[];
    return kept.map((b64) => fromBinary(StreamEventsResponseSchema, base64Decode(b64)));
  } catch {
    return []; // unreadable (another version of this page wrote it): start afresh
  }
}

function keep(key: string, batches: StreamEventsResponse[]): void {
  sessionStorage.setItem(key, JSON.stringify(batches.map((b) => base64Encode(toBinary(StreamEventsResponseSchema, b)))));
}

export class TableSession {
  /** The seat this tab plays (a package seat session); undefined: a spectator. */
  seat?: GameSession;
  /** The game as the lobby shows it: its options, its visibility. */
  game?: GameInfo;
  /** The game's type, as ListGameTypes gives it: its facts (rank order, bid reading). */
  gameType?: GameType;
  /** The table as the package's model has it, from the last view read: what the page draws. */
  table?: TableState;
  /** The last view read (the game's details in words, drawn from its detail). */
  view?: View;
  refusal?: Refusal;
  note = "";
  /** The last batches of events, oldest first. */
  log: StreamEventsResponse[];
  /** Every deal scored so far (the score sheet), from the events: kept beyond the log's end. */
  deals: DealScored[];
  /** After the end: the rematch offered so far (who has accepted; the next game once every
   * player has), from the ended game's stream or this seat's own Rematch call. */
  rematch?: RematchState;
  /** An unlisted game's invite code, from the link this tab was opened with (#/join/…). */
  inviteCode = "";
  /** With a player token, on a browser that holds none of the player's seats here: the seat
   * the player's identity holds at this game (taken on another device), to take back. */
  identitySeat?: number;
  /** Whether the player's games have been read (with a player token) since the page began. */
  identityChecked = false;
  readonly serverTime = new ServerTime();
  private readonly stop$ = new AbortController();
  /** Ends the event stream when the tab's seat changes: it is followed again as the new seat
   * sees it. */
  private restream = new AbortController();

  constructor(readonly client: TricktableClient, readonly gameId: string, private readonly changed: () => void) {
    this.seat = tabSeat(client, gameId);
    this.log = keptBatches(logKey(gameId));
    this.deals = keptBatches(dealsKey(gameId)).flatMap((b) => b.events.flatMap((e) => (e.kind.case === "dealScored" ? [e.kind.value] : [])));
  }

  async start(): Promise<void> {
    await this.refresh();
    void this.findIdentitySeat();
    void this.follow();
    void this.poll();
  }

  stop(): void {
    this.stop$.abort();
  }

  get over(): boolean {
    return this.table?.status === "finished" || this.table?.status === "abandoned";
  }

  /** The seats this browser holds in this game that this tab does not play. */
  get seatsToTakeBack(): GameSession[] {
    return this.client.seats(this.gameId).filter((s) => s.seat !== this.seat?.seat);
  }

  /** This tab's seat session, or a spectator's. */
  private get viewer(): GameSession {
    return this.seat ?? this.client.watch(this.gameId);
  }

  /** The last version this tab has seen of the game (-1: none). */
  private get seenVersion(): number {
    const text = sessionStorage.getItem(versionKey(this.gameId));
    return text === null ? -1 : Number(text);
  }

  /** Reads the game again now and then: taking a seat and presence are no events of the game. */
  private async poll(): Promise<void> {
    while (!this.stop$.signal.aborted && !this.over) {
      const waiting = !this.table || this.table.status === "waiting";
      await sleep(waiting ? WAITING_POLL_MS : PRESENCE_POLL_MS, this.stop$.signal);
      if (!this.stop$.signal.aborted) await this.refresh();
    }
  }

  async refresh(): Promise<void> {
    try {
      const snap = await this.viewer.snapshot({ signal: this.stop$.signal });
      if (this.gameType?.name !== snap.game.gameType) this.gameType = await this.client.gameType(snap.game.gameType);
      // An answer overtaken by a later one (two reads at once) is not drawn.
      if (!this.table || snap.version >= this.table.viewVersion) {
        const input = { type: "view", view: snap.view, version: snap.version, game: snap.game } as const;
        this.table = reduceTable(this.table ?? emptyTable(this.gameType, this.gameId), input, this.gameType);
        this.view = snap.view;
        this.game = snap.game;
      }
      this.serverTime.learn(snap.view);
      this.note = "";
    } catch (err) {
      if (this.stop$.signal.aborted) return;
      const error = toTricktableError(err);
      const refused = error.codeName === "Unauthenticated" || error.codeName === "PermissionDenied";
      if (this.seat && refused && error.reason !== "INVALID_PLAYER_TOKEN") {
        // The seat's token is no longer good (the seat was left): watch instead.
        forgetSeat(this.seat);
        this.seat = undefined;
        this.restream.abort(); // followed again as a spectator sees it
        this.note = "This browser's seat is no longer valid: you are watching.";
        this.changed();
        return this.refresh();
      }
      const why = explain(err);
      this.note = `Cannot read the game: ${why.reason || why.code} ${why.message}`;
    }
    this.changed();
  }

  /** With a player token: the seat this player holds here, when this browser holds none of
   * it (ListMyGames). Asked at the start and when the page is given a token. */
  async findIdentitySeat(): Promise<void> {
    if (!playerToken()) {
      this.identitySeat = undefined;
      this.identityChecked = false;
      this.changed();
      return;
    }
    try {
      const mine = (await this.client.listMyGames({ pageSize: 50 }, { signal: this.stop$.signal })).find((g) => g.game.gameId === this.gameId);
      const held = this.client.seats(this.gameId).some((s) => s.seat === mine?.seat);
      this.identitySeat = mine && !held ? mine.seat : undefined;
      this.identityChecked = true;
    } catch (err) {
      if (this.stop$.signal.aborted) return;
      this.identitySeat = undefined;
      const why = explain(err);
      this.note = `Your games could not be read: ${why.reason || why.code} ${why.message}`;
    }
    this.changed();
  }

  /** StreamEvents from the version after the last one this tab has seen, for as long as the
   * page shows the game; the package's stream resumes by itself after a drop, and goes on past
   * the end with the rematch offers (up to the one naming the next game). */
  private async follow(): Promise<void> {
    while (!this.stop$.signal.aborted) {
      this.restream = new AbortController();
      const signal = eitherAborted(this.stop$.signal, this.restream.signal);
      try {
        const batches = this.viewer.events({
          fromVersion: this.seenVersion + 1,
          signal,
          followRematch: true,
          onDrop: (error) => {
            this.note = `The event stream dropped (${error.serverMessage || error.codeName}); resuming…`;
            this.changed();
          },
        });
        for await (const batch of batches) {
          this.record(batch);
          if (batch.rematch) this.learnRematch(rematchState(batch.rematch));
          // Batches the view already shows (a replay from an earlier version) need no reload;
          // after a drop the game is read again, which clears the note.
          if (!this.table || this.note || Number(batch.version) > this.table.viewVersion) await this.refresh();
          else this.changed();
        }
        if (this.stop$.signal.aborted) return;
        if (this.restream.signal.aborted) continue; // another seat: follow the game as it sees it
        await this.refresh(); // the game's last view
        return;
      } catch (err) {
        if (this.stop$.signal.aborted) return;
        if (this.restream.signal.aborted) continue;
        // Refused (a seat token no longer good, say): the game read again says what to do.
        const why = explain(err);
        this.note = `The event stream was refused: ${why.reason || why.code} ${why.message}`;
        this.changed();
        await sleep(1000, this.stop$.signal);
        await this.refresh();
      }
    }
  }

  private record(batch: StreamEventsResponse): void {
    this.log = [...this.log, batch].slice(-LOG_BATCHES);
    keep(logKey(this.gameId), this.log);
    const scored = batch.events.filter((e) => e.kind.case === "dealScored");
    if (scored.length) {
      this.deals.push(...scored.map((e) => e.kind.value as DealScored));
      const kept = keptBatches(dealsKey(this.gameId));
      kept.push({ ...batch, events: scored });
      keep(dealsKey(this.gameId), kept);
    }
    sessionStorage.setItem(versionKey(this.gameId), batch.version.toString());
  }

  // -- acting ----------------------------------------------------------------------------------

  /** Send a move; true when the server took it (else `refusal` says why). */
  async send(move: PlainMove): Promise<boolean> {
    if (!this.table || !this.seat) return false;
    let taken = false;
    try {
      // The page reads the game again after a move; the answer's view is compact anyway.
      await this.seat.move(move, this.table.viewVersion);
      this.refusal = undefined;
      taken = true;
    } catch (err) {
      this.refusal = explain(err);
      if (toTricktableError(err).stale) this.refusal.message += " (the table has been brought up to date: try again)";
    }
    await this.refresh();
    return taken;
  }

  /** Take an open seat (the client keeps its token in localStorage), and play it here. */
  async takeSeat(seat: number, playerName: string): Promise<void> {
    try {
      this.play(await this.client.join(this.gameId, { seat, playerName, inviteCode: this.inviteCode }));
    } catch (err) {
      this.refusal = explain(err);
    }
    await this.refresh();
  }

  /** Play a seat this browser holds (taken in another tab, or before the browser closed). */
  async takeBack(seat: GameSession): Promise<void> {
    this.play(seat);
    await this.refresh();
  }

  /** Take back the seat this player's identity holds here (taken on another device): the
   * server answers the same seat with a new token for this browser. */
  async takeIdentitySeatBack(): Promise<void> {
    try {
      this.play(await this.client.join(this.gameId, { seat: this.identitySeat }));
      this.identitySeat = undefined;
    } catch (err) {
      this.refusal = explain(err);
    }
    await this.refresh();
  }

  private play(seat: GameSession): void {
    this.seat = seat;
    useSeat(seat);
    this.restream.abort();
    this.refusal = undefined;
  }

  /** The rematch as it stands; once it names the next game, this tab's seat moves there: seat
   * s of the ended game is seat s + 1 of the next, with the same token (the client keeps it). */
  private learnRematch(offer: RematchState): void {
    this.rematch = offer;
    const seat = this.seat;
    if (!seat || !this.table) return;
    if (!offer.gameId) {
      this.rematchOpen = true;
      return;
    }
    const next = this.client.hold(offer.gameId, (seat.seat! + 1) % this.table.seatCount, seat.token!);
    useSeat(next);
    // Followed at once only when this tab saw the offer being made: a tab opened later on the
    // ended game (to see its end) offers a link to the next game instead.
    if (this.rematchOpen) this.onNextGame?.(offer.gameId);
  }

  /** Whether this tab saw the rematch while it was still being accepted. */
  private rematchOpen = false;

  /** Called once the rematch has made the next game and this tab's seat is there. */
  onNextGame?: (gameId: string) => void;

  /** "Play again": this seat accepts the rematch of the ended game. */
  async playAgain(): Promise<void> {
    if (!this.seat) return;
    try {
      const answer = await this.seat.rematch();
      this.refusal = undefined;
      this.rematchOpen = true; // asked for here: follow it
      this.learnRematch(answer);
    } catch (err) {
      this.refusal = explain(err);
    }
    this.changed();
  }

  /** Leave the seat (while seats are open: the client forgets it) or resign (once the game
   * runs). */
  async leave(): Promise<void> {
    const seat = this.seat;
    if (!seat) return;
    try {
      const game = await seat.leave();
      if (game.status === "waiting") {
        forgetSeat(seat); // the seat is open again: its token is spent
        this.seat = undefined;
        this.restream.abort();
      }
    } catch (err) {
      this.refusal = explain(err);
    }
    await this.refresh();
  }
}
