// The table model: a pure reducer from what a seat (or a spectator) receives, its views and its
// event batches, to one plain object any UI renders (React, Vue, Svelte, the DOM). Nothing here
// knows a game's rules: the rank order, the card points and the number of seats come from the
// game's GameType; everything else is what the server sent.
//
// A view is the truth at its version and replaces what the events built. Events arriving after
// it bring the table forward at once (a card played leaves the hand and lands on the trick, a
// trick won becomes the last trick, a deal scored updates the scores); whose turn it is and the
// legal moves come only with the next view, so until then `legal` is empty and `current` false.

import { type Event } from "./gen/tricktable/v1/events_pb.js";
import { type StreamEventsResponse } from "./gen/tricktable/v1/game_service_pb.js";
import { type GameType } from "./gen/tricktable/v1/game_types_pb.js";
import { type TrickView, type View } from "./gen/tricktable/v1/views_pb.js";
import { bySuit, cardKey, plainCard, plainCards, rankOf, suitName, type PlainCard, type SuitName, type SuitRow } from "./cards.js";
import { plainClock, type ClockState } from "./clock.js";
import { type GameInfo, type GameStatusName } from "./game.js";
import { legalMoves, NO_MOVES, type LegalMoves } from "./moves.js";

export interface Play {
  readonly seat: number;
  readonly card: PlainCard;
}

export interface TrickState {
  readonly leader: number;
  /** In play order from the leader. */
  readonly plays: readonly Play[];
  /** Set once the trick is complete. */
  readonly winner: number | null;
  /** The card points in it, by the game's GameType.cardPoints; null in a game that counts
   * tricks. */
  readonly points: number | null;
}

export interface SeatState {
  readonly seat: number;
  readonly taken: boolean;
  readonly playerName: string;
  /** The server bot playing it; "" for a player's seat. */
  readonly bot: string;
  /** Whether its player is at the table (null: not known, until a GetGame view says). */
  readonly connected: boolean | null;
  readonly handSize: number;
  /** Its cards, when the viewer may see them (its own seat, an exposed hand); else null. */
  readonly cards: readonly PlainCard[] | null;
  readonly asideCount: number;
  /** The cards it laid aside, when the viewer may see them (its own bid cards, a declared
   * premium's); else null. */
  readonly aside: readonly PlainCard[] | null;
  readonly bid: number | null;
  readonly tricksWon: number;
  readonly pointsTaken: number | null;
  readonly score: number;
  readonly toAct: boolean;
  readonly mayAct: boolean;
  readonly clock: ClockState | null;
}

/** The result of a deal: what each seat scored, and the totals after it. */
export interface DealResult {
  readonly dealNo: number;
  readonly points: readonly number[];
  readonly totals: readonly number[];
}

/** A contract, where the game has one: Nominations' declarer and contract ("10" ... "13",
 * "misere", "open_misere"), Ninety-Nine's premium call ("declare", "reveal"). */
export interface Contract {
  readonly seat: number;
  readonly contract: string;
  readonly partner: number | null;
}

export interface TableState {
  readonly gameId: string;
  /** The game's facts, from its GameType. */
  readonly gameType: string;
  readonly title: string;
  readonly seatCount: number;
  readonly status: GameStatusName;
  /** The last version the table shows (a view's or an event batch's). */
  readonly version: number;
  /** The version of the last view: the expected version of the viewer's next move. */
  readonly viewVersion: number;
  /** Whether the table is the last view's (no event has come since): `legal` and `toAct` hold. */
  readonly current: boolean;
  /** The viewer's seat; null for a spectator. */
  readonly viewer: number | null;
  readonly phase: string;
  readonly dealNo: number;
  readonly dealer: number;
  readonly trump: SuitName | null;
  readonly turnUp: PlainCard | null;
  readonly seats: readonly SeatState[];
  /** The viewer's hand by suit, each suit in the game's rank order, strongest first. */
  readonly hand: readonly SuitRow[];
  readonly trick: TrickState | null;
  /** The last completed trick of the deal as the view lists it; between views, the one the
   * events just showed (a game whose views turn completed tricks down, as Sixty-Six's do, has
   * none again with its next view). */
  readonly lastTrick: TrickState | null;
  readonly bids: readonly (number | null)[];
  readonly contract: Contract | null;
  readonly scores: readonly number[];
  readonly toAct: readonly number[];
  readonly mayAct: readonly number[];
  /** The viewer must act now. */
  readonly yourTurn: boolean;
  readonly legal: LegalMoves;
  readonly finished: boolean;
  readonly winners: readonly number[];
  readonly resignedSeat: number | null;
  readonly lastDeal: DealResult | null;
}

/** The table before anything has been read. */
export function emptyTable(gameType: GameType, gameId: string): TableState {
  const seats = [...Array(gameType.seats).keys()];
  return {
    gameId,
    gameType: gameType.name,
    title: gameType.title,
    seatCount: gameType.seats,
    status: "waiting",
    version: -1,
    viewVersion: -1,
    current: false,
    viewer: null,
    phase: "",
    dealNo: 0,
    dealer: 0,
    trump: null,
    turnUp: null,
    seats: seats.map((seat) => ({
      seat, taken: false, playerName: "", bot: "", connected: null, handSize: 0, cards: null, asideCount: 0, aside: null,
      bid: null, tricksWon: 0, pointsTaken: null, score: 0, toAct: false, mayAct: false, clock: null,
    })),
    hand: [],
    trick: null,
    lastTrick: null,
    bids: seats.map(() => null),
    contract: null,
    scores: seats.map(() => 0),
    toAct: [],
    mayAct: [],
    yourTurn: false,
    legal: NO_MOVES,
    finished: false,
    winners: [],
    resignedSeat: null,
    lastDeal: null,
  };
}

export type TableInput =
  /** A lobby summary: who sits where, the status (taking a seat is no event of the game). */
  | { readonly type: "game"; readonly game: GameInfo }
  /** A view at `version` (GetGame's game.version, SubmitMove's view_version). */
  | { readonly type: "view"; readonly view: View; readonly version: number; readonly game?: GameInfo }
  /** One version's events, as StreamEvents sends them. */
  | { readonly type: "events"; readonly batch: StreamEventsResponse };

/** The table after `input`. Pure: `state` is not changed. */
export function reduceTable(state: TableState, input: TableInput, gameType: GameType): TableState {
  switch (input.type) {
    case "game":
      // A summary older than the view the table shows (a read overtaken by a later one: a
      // poll's from before a seat was taken and play began) is not taken: it would put back
      // the seats and status of then.
      return input.game.version < state.viewVersion ? state : withGame(state, input.game);
    case "view": {
      // An older view than the table shows (an answer overtaken by the stream, a read by a
      // later read) is not taken, nor the game's summary read with it, for the same reason.
      if (input.version < state.viewVersion) return state;
      const withSummary = input.game ? withGame(state, input.game) : state;
      return fromView(withSummary, input.view, input.version, gameType);
    }
    case "events":
      return fromEvents(state, input.batch, gameType);
  }
}

function withGame(state: TableState, game: GameInfo): TableState {
  return {
    ...state,
    status: game.status,
    resignedSeat: game.resignedSeat,
    seats: state.seats.map((s) => {
      const info = game.seats.find((g) => g.seat === s.seat);
      return info ? { ...s, taken: info.taken, playerName: info.playerName, bot: info.bot } : s;
    }),
  };
}

function trickPoints(cards: readonly PlainCard[], gameType: GameType): number | null {
  if (!gameType.cardPoints.length) return null;
  let points = 0;
  for (const card of cards) {
    if (card.rank === "joker") continue;
    const rank = rankOf(card.rank);
    points += gameType.cardPoints.find((p) => p.rank === rank)?.value ?? 0;
  }
  return points;
}

function trickOf(trick: TrickView | undefined, gameType: GameType): TrickState | null {
  if (!trick) return null;
  const plays = trick.cards.flatMap((card, i) => {
    const plain = plainCard(card);
    return plain ? [{ seat: trick.seats[i] ?? -1, card: plain }] : [];
  });
  return { leader: trick.leader, plays, winner: trick.winner ?? null, points: trickPoints(plays.map((p) => p.card), gameType) };
}

function contractOf(view: View): Contract | null {
  const detail = view.detail;
  switch (detail.case) {
    case "nominationsDetail":
      return detail.value.declarer === undefined || detail.value.contract === undefined
        ? null
        : { seat: detail.value.declarer, contract: detail.value.contract, partner: detail.value.partner ?? null };
    case "ninetyNineDetail":
      return detail.value.premiumSeat === undefined || detail.value.premium === undefined
        ? null
        : { seat: detail.value.premiumSeat, contract: detail.value.premium, partner: null };
    default:
      return null;
  }
}

function fromView(state: TableState, view: View, version: number, gameType: GameType): TableState {
  const viewer = view.viewer ?? null;
  const seats = state.seats.map((prior) => {
    const seen = view.seats.find((s) => s.seat === prior.seat);
    const clock = view.clocks.find((c) => c.seat === prior.seat);
    const presence = view.presence.find((p) => p.seat === prior.seat);
    if (!seen) return prior;
    return {
      ...prior,
      // GetGame's views say who is connected; SubmitMove's leave presence out: keep what was known.
      connected: presence ? presence.connected : prior.connected,
      handSize: seen.handSize,
      cards: seen.hand ? plainCards(seen.hand.cards) : null,
      asideCount: seen.asideCount,
      aside: seen.aside ? plainCards(seen.aside.cards) : null,
      bid: seen.bid ?? null,
      tricksWon: seen.tricksWon,
      pointsTaken: seen.pointsTaken ?? null,
      score: seen.score,
      toAct: view.toAct.includes(prior.seat),
      mayAct: view.mayAct.includes(prior.seat),
      clock: clock ? plainClock(clock) : null,
    };
  });
  const lastDeal = lastDealOf(view);
  // A game the service ended (a resignation, idleness, a forfeit on time) has a finished view
  // too: it stays abandoned, as its summary or its events said.
  const status: GameStatusName =
    state.status === "abandoned" ? "abandoned"
    : view.finished ? "finished"
    : state.status === "waiting" && seats.every((s) => s.taken) ? "playing"
    : state.status;
  return {
    ...state,
    status,
    version: Math.max(version, state.version),
    viewVersion: version,
    current: version >= state.version,
    viewer,
    phase: view.phase,
    dealNo: view.dealNo,
    dealer: view.dealer,
    trump: suitName(view.trump),
    turnUp: plainCard(view.turnUp),
    seats,
    hand: handOf(seats, viewer, gameType),
    trick: trickOf(view.trick, gameType),
    lastTrick: view.tricks.length ? trickOf(view.tricks[view.tricks.length - 1], gameType) : null,
    bids: seats.map((s) => s.bid),
    contract: contractOf(view),
    scores: seats.map((s) => s.score),
    toAct: [...view.toAct],
    mayAct: [...view.mayAct],
    yourTurn: viewer !== null && view.toAct.includes(viewer),
    legal: legalMoves(view),
    finished: view.finished,
    winners: [...view.winners],
    lastDeal: lastDeal ?? state.lastDeal,
  };
}

function lastDealOf(view: View): DealResult | null {
  const detail = view.detail.value;
  const deal = detail && "lastDeal" in detail ? detail.lastDeal : undefined;
  if (!deal || !deal.totals.length) return null;
  return { dealNo: deal.dealNo, points: [...deal.points], totals: [...deal.totals] };
}

function handOf(seats: readonly SeatState[], viewer: number | null, gameType: GameType): SuitRow[] {
  const cards = viewer === null ? null : seats[viewer]?.cards;
  return cards ? bySuit(cards, gameType.rankOrder) : [];
}

// -- events ------------------------------------------------------------------------------------

function fromEvents(state: TableState, batch: StreamEventsResponse, gameType: GameType): TableState {
  const version = Number(batch.version);
  if (version <= state.version) return state; // already shown (a view at or after it, a replay)
  let next: Mutable = { ...state, seats: state.seats.map((s) => ({ ...s })) };
  for (const event of batch.events) next = applyEvent(next, event, gameType);
  if (batch.resignedSeat !== undefined) {
    next.status = "abandoned";
    next.resignedSeat = batch.resignedSeat;
  }
  const seats = next.seats;
  return {
    ...next,
    version,
    current: false,
    legal: NO_MOVES,
    yourTurn: false,
    hand: handOf(seats, next.viewer, gameType),
    bids: seats.map((s) => s.bid),
    scores: seats.map((s) => s.score),
  };
}

/** A table being built from one batch's events (a copy: the state reduced stays as it was). */
type MutableSeat = { -readonly [K in keyof SeatState]: SeatState[K] };
type Mutable = { -readonly [K in Exclude<keyof TableState, "seats">]: TableState[K] } & { seats: MutableSeat[] };

function withoutCard(cards: readonly PlainCard[] | null, card: PlainCard): PlainCard[] | null {
  if (cards === null) return null;
  const at = cards.findIndex((c) => cardKey(c) === cardKey(card));
  return at < 0 ? [...cards] : [...cards.slice(0, at), ...cards.slice(at + 1)];
}

function applyEvent(state: Mutable, event: Event, gameType: GameType): Mutable {
  const e = event.kind;
  const seat = (n: number) => state.seats[n];
  switch (e.case) {
    case "dealStarted": {
      state.dealNo = e.value.dealNo;
      state.dealer = e.value.dealer;
      state.trump = suitName(e.value.trump);
      state.turnUp = plainCard(e.value.turnUp);
      state.trick = null;
      state.lastTrick = null;
      state.contract = null;
      for (const s of state.seats) {
        const hand = e.value.hands[s.seat];
        s.handSize = e.value.handSizes[s.seat] ?? 0;
        s.cards = hand?.visible ? plainCards(hand.cards) : null;
        s.asideCount = 0;
        s.aside = null;
        s.bid = null;
        s.tricksWon = 0;
        s.pointsTaken = s.pointsTaken === null ? null : 0;
      }
      break;
    }
    case "cardsLaidAside": {
      const s = seat(e.value.seat);
      if (!s) break;
      s.asideCount += e.value.count;
      s.handSize -= e.value.count;
      // The cards themselves only where the event shows them (the seat's own bid cards).
      const laid = e.value.cards ? plainCards(e.value.cards.cards) : null;
      if (laid) s.aside = [...(s.aside ?? []), ...laid];
      for (const card of laid ?? []) s.cards = withoutCard(s.cards, card);
      break;
    }
    case "cardsExposed": {
      const s = seat(e.value.seat);
      if (s && e.value.what === "hand") s.cards = plainCards(e.value.cards);
      if (s && e.value.what === "bid_cards") s.aside = plainCards(e.value.cards);
      break;
    }
    case "cardPlayed": {
      const card = plainCard(e.value.card);
      const s = seat(e.value.seat);
      if (!card || !s) break;
      s.handSize -= 1;
      s.cards = withoutCard(s.cards, card);
      const open = state.trick && state.trick.winner === null ? state.trick : { leader: e.value.seat, plays: [], winner: null, points: null };
      const plays = [...open.plays, { seat: e.value.seat, card }];
      state.trick = { ...open, plays, points: trickPoints(plays.map((p) => p.card), gameType) };
      break;
    }
    case "trickWon": {
      const cards = plainCards(e.value.cards);
      const known = state.trick?.plays.length === cards.length ? state.trick.plays : undefined;
      const plays = known ?? cards.map((card, i) => ({ seat: (e.value.leader + i) % state.seatCount, card }));
      state.lastTrick = { leader: e.value.leader, plays, winner: e.value.winner, points: trickPoints(cards, gameType) };
      state.trick = null;
      const winner = seat(e.value.winner);
      if (winner) {
        winner.tricksWon += 1;
        if (winner.pointsTaken !== null && gameType.cardPoints.length) winner.pointsTaken += e.value.points;
      }
      break;
    }
    case "cardDrawn": {
      const s = seat(e.value.seat);
      if (!s) break;
      s.handSize += 1;
      const card = plainCard(e.value.card);
      if (card && s.cards) s.cards = [...s.cards, card];
      break;
    }
    case "trumpExchanged": {
      const s = seat(e.value.seat);
      const given = plainCard(e.value.given);
      const taken = plainCard(e.value.taken);
      if (s && given && taken) {
        const rest = withoutCard(s.cards, given);
        s.cards = rest && [...rest, taken];
        state.turnUp = given;
      }
      break;
    }
    case "auctionWon":
      state.contract = { seat: e.value.declarer, contract: e.value.tricks === undefined ? e.value.contract : String(e.value.tricks), partner: null };
      break;
    case "contractDeclared":
      state.trump = suitName(e.value.trump);
      break;
    case "partnerRevealed":
      if (state.contract) state.contract = { ...state.contract, partner: e.value.partner ?? null };
      break;
    case "dealScored":
      state.lastDeal = { dealNo: e.value.dealNo, points: [...e.value.points], totals: [...e.value.totals] };
      for (const s of state.seats) s.score = e.value.totals[s.seat] ?? s.score;
      break;
    case "gameOver":
      state.finished = true;
      state.status = "finished";
      state.winners = [...e.value.winners];
      for (const s of state.seats) s.score = e.value.totals[s.seat] ?? s.score;
      break;
    case "gameAbandoned":
      state.status = "abandoned";
      break;
    case "timedOut": {
      const s = seat(e.value.seat);
      if (s?.clock) s.clock = { ...s.clock, timeouts: s.clock.timeouts + 1 };
      break;
    }
    default:
      break; // calls, bids, cuts, marriages: the next view shows what they changed
  }
  return state;
}
