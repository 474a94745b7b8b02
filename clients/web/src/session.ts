// One game as this tab follows it: the table's data, on the @tricktable/client package. The
// package's followTable keeps the table current: the seat's view, then its events through a
// stream that resumes by itself after a drop or a server restart, the view read again whenever
// the events move past it, the game read again while seats are open and (to learn who is
// connected) while it runs, the rematch offers after the end. Its TableState is what table.ts
// draws. This module chooses which seat this tab plays (seats.ts) and follows the game as that
// seat, keeps the log across a reload, and calls `changed` whenever there is something new to
// draw. table.ts only draws.
//
// The server is the only source of truth: the page draws only a table that is a view's
// (TableState.current), never one the model built from events alone.

import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import {
  followTable,
  sleep,
  toTricktableError,
  type GameSession,
  type PlainMove,
  type RematchState,
  type StreamEventsResponse,
  type TableFeed,
  type TableState,
  type TricktableClient,
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
/** After a refusal that ended the following (other than the seat's), the wait before the game
 * is followed again. */
const REFOLLOW_MS = 1000;

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
  /** The table as the package's model has it, from the last view read: what the page draws. */
  table?: TableState;
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
  /** The game as the package follows it (followTable): besides the table, the game as the
   * lobby shows it (options, visibility), its type's facts (rank order, bid reading), the last
   * view read (the game's details in words come from its detail), the server's clock. */
  feed?: TableFeed;
  private readonly spectator: GameSession;
  private readonly stop$ = new AbortController();

  constructor(readonly client: TricktableClient, readonly gameId: string, private readonly changed: () => void) {
    this.seat = tabSeat(client, gameId);
    this.spectator = client.watch(gameId);
    this.log = keptBatches(logKey(gameId));
    this.deals = keptBatches(dealsKey(gameId)).flatMap((b) => b.events.flatMap((e) => (e.kind.case === "dealScored" ? [e.kind.value] : [])));
  }

  /** Resolves once the game has been read (or could not be), and goes on following it. */
  async start(): Promise<void> {
    await new Promise<void>((read) => void this.follow(read));
    void this.findIdentitySeat();
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
    return this.seat ?? this.spectator;
  }

  /** The last version this tab has seen of the game (-1: none). */
  private get seenVersion(): number {
    const text = sessionStorage.getItem(versionKey(this.gameId));
    return text === null ? -1 : Number(text);
  }

  /** Follows the game as this tab's seat (or a spectator) sees it, for as long as the page
   * shows it: the stream from the version after the last one this tab has seen (the log), on
   * past the end with the rematch offers (up to the one naming the next game). A refusal ends
   * a following: a seat whose token is no longer good is watched instead at once, anything
   * else is followed again a moment later. `read` is called after the first read. */
  private async follow(read: () => void): Promise<void> {
    const signal = this.stop$.signal;
    while (!signal.aborted) {
      try {
        const feed = await followTable(this.viewer, (state, given) => this.show(state, given), {
          signal,
          fromVersion: this.seenVersion + 1,
          waitingPollMs: WAITING_POLL_MS,
          presencePollMs: PRESENCE_POLL_MS,
          followRematch: true,
          onEvents: (batch, given) => this.record(batch, given),
          onRead: () => {
            if (!this.note) return;
            this.note = ""; // the server answers
            this.changed();
          },
          onDrop: (error) => {
            this.note = `The event stream dropped (${error.serverMessage || error.codeName}); resuming…`;
            this.changed();
          },
          onRematch: (offer, next) => {
            this.learnRematch(offer, next);
            this.changed();
          },
        });
        read();
        if (feed.session !== this.viewer) await feed.switchSession(this.viewer); // the seat changed meanwhile
        await feed.done;
        return;
      } catch (err) {
        read();
        if (signal.aborted) return;
        if (this.refused(err)) continue;
        this.cannotRead(err);
        this.changed();
        await sleep(REFOLLOW_MS, signal);
      }
    }
  }

  /** A new table from the package: drawn when it is a view's. */
  private show(state: TableState, feed: TableFeed): void {
    this.feed = feed;
    if (!state.current) return; // brought on by events: the view read again comes next
    this.table = state;
    this.changed();
  }

  /** Refused as this tab's seat (its token no longer good: the seat was left): forget it and
   * watch instead (true). */
  private refused(err: unknown): boolean {
    const error = toTricktableError(err);
    const refused = error.codeName === "Unauthenticated" || error.codeName === "PermissionDenied";
    if (!this.seat || !refused || error.reason === "INVALID_PLAYER_TOKEN") return false;
    forgetSeat(this.seat);
    this.seat = undefined;
    this.note = "This browser's seat is no longer valid: you are watching.";
    this.changed();
    return true;
  }

  /** Reads the game again, as this tab's seat (or a spectator) sees it: followed on as the new
   * one when it has changed. */
  private async reread(): Promise<void> {
    const feed = this.feed;
    try {
      if (feed) await (feed.session === this.viewer ? feed.refresh() : feed.switchSession(this.viewer));
    } catch (err) {
      if (this.stop$.signal.aborted) return;
      if (this.refused(err)) return this.reread();
      this.cannotRead(err);
    }
    this.changed();
  }

  /** The note saying why the game could not be read. */
  private cannotRead(err: unknown): void {
    const why = explain(err);
    this.note = `Cannot read the game: ${why.reason || why.code} ${why.message}`;
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

  /** A batch of events as the stream brings it (before the table takes it): kept in the log. */
  private record(batch: StreamEventsResponse, feed: TableFeed): void {
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
    // A version the table shows already (a replay from an earlier one) brings no new table:
    // the log is drawn now.
    if (!batch.rematch && Number(batch.version) <= feed.state.version) this.changed();
  }

  // -- acting ----------------------------------------------------------------------------------

  /** Send a move; true when the server took it (else `refusal` says why). */
  async send(move: PlainMove): Promise<boolean> {
    if (!this.feed || !this.seat) return false;
    try {
      await this.feed.move(move); // the answer's view is drawn at once
      this.refusal = undefined;
      return true;
    } catch (err) {
      this.refusal = explain(err);
      if (toTricktableError(err).stale) this.refusal.message += " (the table has been brought up to date: try again)";
      this.changed();
      return false;
    }
  }

  /** Take an open seat (the client keeps its token in localStorage), and play it here. */
  async takeSeat(seat: number, playerName: string): Promise<void> {
    try {
      this.play(await this.client.join(this.gameId, { seat, playerName, inviteCode: this.inviteCode }));
    } catch (err) {
      this.refusal = explain(err);
    }
    await this.reread();
  }

  /** Play a seat this browser holds (taken in another tab, or before the browser closed). */
  async takeBack(seat: GameSession): Promise<void> {
    this.play(seat);
    await this.reread();
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
    await this.reread();
  }

  /** Play `seat` in this tab; the next read follows the game as it sees it. */
  private play(seat: GameSession): void {
    this.seat = seat;
    useSeat(seat);
    this.refusal = undefined;
  }

  /** The rematch as it stands; once it names the next game, this tab's seat moves there
   * (`next`: seat s of the ended game is seat s + 1 of the next, with the same token, which the
   * client keeps). */
  private learnRematch(offer: RematchState, next: GameSession | null): void {
    this.rematch = offer;
    if (!this.seat || !this.table) return;
    if (!offer.gameId) {
      this.rematchOpen = true;
      return;
    }
    if (next) useSeat(next);
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
    const seat = this.seat;
    if (!seat) return;
    try {
      const answer = await seat.rematch();
      this.refusal = undefined;
      this.rematchOpen = true; // asked for here: follow it
      this.learnRematch(answer, answer.gameId ? await seat.nextGame(answer.gameId) : null);
    } catch (err) {
      this.refusal = explain(err);
    }
    this.changed();
  }

  /** Leave the seat (while seats are open: the client forgets it, and the tab watches) or
   * resign (once the game runs). */
  async leave(): Promise<void> {
    const seat = this.seat;
    if (!seat) return;
    try {
      const game = await seat.leave();
      if (game.status === "waiting") {
        forgetSeat(seat); // the seat is open again: its token is spent
        this.seat = undefined;
      }
    } catch (err) {
      this.refusal = explain(err);
    }
    await this.reread();
  }
}
