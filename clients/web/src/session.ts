// One game as this tab follows it: the table's whole data layer (with api.ts for the
// connection and seats.ts for the seats kept). It reads GetGame, follows StreamEvents (resuming
// from the last version seen, also after a reload), sends moves, takes and leaves seats, and
// calls `changed` whenever there is something new to draw. table.ts only draws.
//
// The server is the only source of truth: after each batch of events the game is read again.

import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";
import { type Api, type Refusal, as, explain, isStale } from "./api";
import { ServerTime } from "./clocks";
import { type DealScored } from "./gen/tricktable/v1/events_pb";
import { GameStatus, StreamEventsResponseSchema, type GameSummary, type RematchOffer, type StreamEventsResponse } from "./gen/tricktable/v1/game_service_pb";
import { type GameType } from "./gen/tricktable/v1/game_types_pb";
import { type Move } from "./gen/tricktable/v1/moves_pb";
import { type View } from "./gen/tricktable/v1/views_pb";
import { type Seat, forgetSeat, heldSeats, holdSeat, tabSeat, useSeat } from "./seats";

/** The batches of events the log keeps (and the tab keeps across a reload). */
const LOG_BATCHES = 200;
/** Taking a seat is no event of the game: while seats are open, the page asks again this often. */
const WAITING_POLL_MS = 1000;
/** While a game runs, the page reads it again this often, to learn who is (still) connected:
 * presence is no event of the game. */
const PRESENCE_POLL_MS = 5000;

function requestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16)); // randomUUID needs https
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

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

export class GameSession {
  seat?: Seat;
  game?: GameSummary;
  /** The game's type, as ListGameTypes gives it: its facts (rank order, bid reading). */
  gameType?: GameType;
  view?: View;
  refusal?: Refusal;
  note = "";
  /** The last batches of events, oldest first. */
  log: StreamEventsResponse[];
  /** Every deal scored so far (the score sheet), from the events: kept beyond the log's end. */
  deals: DealScored[];
  /** After the end: the rematch offered so far (who has accepted; the next game once every
   * player has), from the ended game's stream or this seat's own Rematch call. */
  rematch?: RematchOffer;
  /** An unlisted game's invite code, from the link this tab was opened with (#/join/…). */
  inviteCode = "";
  readonly serverTime = new ServerTime();
  private readonly stop$ = new AbortController();
  /** Ends the event stream when the tab's seat changes: it is followed again as the new seat
   * sees it. */
  private restream = new AbortController();

  constructor(private readonly api: Api, readonly gameId: string, private readonly changed: () => void) {
    this.seat = tabSeat(gameId);
    this.log = keptBatches(logKey(gameId));
    this.deals = keptBatches(dealsKey(gameId)).flatMap((b) => b.events.flatMap((e) => (e.kind.case === "dealScored" ? [e.kind.value] : [])));
  }

  async start(): Promise<void> {
    await this.refresh();
    void this.follow();
    void this.poll();
  }

  stop(): void {
    this.stop$.abort();
  }

  get over(): boolean {
    return this.game?.status === GameStatus.FINISHED || this.game?.status === GameStatus.ABANDONED;
  }

  /** The seats this browser holds in this game that this tab does not play. */
  get seatsToTakeBack(): Seat[] {
    return heldSeats(this.gameId).filter((s) => s.seat !== this.seat?.seat);
  }

  /** The last version this tab has seen of the game (-1: none). */
  private get seenVersion(): bigint {
    const text = sessionStorage.getItem(versionKey(this.gameId));
    return text === null ? -1n : BigInt(text);
  }

  /** Reads the game again now and then: taking a seat and presence are no events of the game. */
  private async poll(): Promise<void> {
    while (!this.stop$.signal.aborted && !this.over) {
      const waiting = !this.game || this.game.status === GameStatus.WAITING;
      await new Promise((resolve) => setTimeout(resolve, waiting ? WAITING_POLL_MS : PRESENCE_POLL_MS));
      if (!this.stop$.signal.aborted) await this.refresh();
    }
  }

  async refresh(): Promise<void> {
    try {
      // compactLayAside: a lay-aside turn comes as one choice (~260 bytes), not 560 moves.
      const reply = await this.api.getGame({ gameId: this.gameId, compactLayAside: true }, as(this.seat?.token, this.stop$.signal));
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
      const code = ConnectError.from(err).code;
      if (this.seat && (code === Code.Unauthenticated || code === Code.PermissionDenied)) {
        // The seat's token is no longer good (the seat was left): watch instead.
        forgetSeat(this.gameId, this.seat.seat);
        this.seat = undefined;
        this.note = "This browser's seat is no longer valid: you are watching.";
        this.changed();
        return this.refresh();
      }
      const why = explain(err);
      this.note = `Cannot read the game: ${why.reason || why.code} ${why.message}`;
    }
    this.changed();
  }

  /** StreamEvents from the version after the last one seen, for as long as the page shows the
   * game; a dropped stream, or one a restarting server ended, is resumed from where it stopped. */
  private async follow(): Promise<void> {
    while (!this.stop$.signal.aborted) {
      try {
        if (this.note) await this.refresh(); // back after a drop: read the game, clear the note
        const from = this.seenVersion + 1n;
        this.restream = new AbortController();
        const signal = eitherAborted(this.stop$.signal, this.restream.signal);
        const wasOver = this.over;
        let received = 0;
        const batches = this.api.streamEvents({ gameId: this.gameId, fromVersion: from, followRematch: true }, as(this.seat?.token, signal));
        for await (const batch of batches) {
          received += 1;
          this.record(batch);
          if (batch.rematch) this.learnRematch(batch.rematch);
          // Batches the view already shows (a replay from an earlier version) need no reload.
          if (!this.game || batch.version > this.game.version) await this.refresh();
          else this.changed();
        }
        await this.refresh();
        // After the game's last batch the stream, opened again, follows the seats' rematch
        // offers, and ends with the one naming the next game (or at once when one has).
        if (this.over && (this.rematch?.gameId || (wasOver && !received))) return;
        if (this.over) continue;
        await new Promise((resolve) => setTimeout(resolve, 1000)); // the server was restarting
      } catch (err) {
        if (this.stop$.signal.aborted) return;
        if (this.restream.signal.aborted) continue; // another seat: follow the game as it sees it
        this.note = `The event stream dropped (${explain(err).message}); resuming…`;
        this.changed();
        await new Promise((resolve) => setTimeout(resolve, 1000));
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
  async send(move: Move): Promise<boolean> {
    if (!this.game || !this.seat) return false;
    let taken = false;
    try {
      await this.api.submitMove(
        // The page reads the game again after a move, but the answer's view is built anyway:
        // compactLayAside keeps it small when the next turn is a lay-aside.
        { gameId: this.gameId, move, expectedVersion: this.game.version, requestId: requestId(), compactLayAside: true },
        as(this.seat.token),
      );
      this.refusal = undefined;
      taken = true;
    } catch (err) {
      this.refusal = explain(err);
      if (isStale(err)) this.refusal.message += " (the table has been brought up to date: try again)";
    }
    await this.refresh();
    return taken;
  }

  async takeSeat(seat: number, playerName: string): Promise<void> {
    try {
      const joined = await this.api.joinGame({ gameId: this.gameId, seat, playerName, inviteCode: this.inviteCode });
      this.seat = { seat: joined.seat, token: joined.seatToken, name: playerName };
      holdSeat(this.gameId, this.seat);
      this.restream.abort();
      this.refusal = undefined;
    } catch (err) {
      this.refusal = explain(err);
    }
    await this.refresh();
  }

  /** Play a seat this browser holds (taken in another tab, or before the browser closed). */
  async takeBack(seat: Seat): Promise<void> {
    this.seat = seat;
    useSeat(this.gameId, seat);
    this.restream.abort();
    this.refusal = undefined;
    await this.refresh();
  }

  /** The rematch as it stands; once it names the next game, this tab's seat moves there: seat
   * s of the ended game is seat s + 1 of the next, with the same token (the Rematch RPC). */
  private learnRematch(offer: RematchOffer): void {
    this.rematch = offer;
    const seat = this.seat;
    if (!seat || !this.game) return;
    if (!offer.gameId) {
      this.rematchOpen = true;
      return;
    }
    const next: Seat = { seat: (seat.seat + 1) % this.game.seats.length, token: seat.token, name: seat.name };
    holdSeat(offer.gameId, next);
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
      const answer = await this.api.rematch({ gameId: this.gameId }, as(this.seat.token));
      this.refusal = undefined;
      this.rematchOpen = true; // asked for here: follow it
      if (answer.rematch) this.learnRematch(answer.rematch);
    } catch (err) {
      this.refusal = explain(err);
    }
    this.changed();
  }

  /** Leave the seat (while seats are open) or resign (once the game runs). */
  async leave(): Promise<void> {
    const seat = this.seat;
    if (!seat) return;
    try {
      const waiting = this.game?.status === GameStatus.WAITING;
      await this.api.leaveGame({ gameId: this.gameId }, as(seat.token));
      if (waiting) {
        forgetSeat(this.gameId, seat.seat); // the seat is open again: its token is spent
        this.seat = undefined;
      }
    } catch (err) {
      this.refusal = explain(err);
    }
    await this.refresh();
  }
}
