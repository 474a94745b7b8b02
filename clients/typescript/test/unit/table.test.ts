import assert from "node:assert/strict";
import { test } from "node:test";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { GameTypeSchema } from "../../src/gen/tricktable/v1/game_types_pb.js";
import { StreamEventsResponseSchema } from "../../src/gen/tricktable/v1/game_service_pb.js";
import { EventSchema } from "../../src/gen/tricktable/v1/events_pb.js";
import { MoveSchema } from "../../src/gen/tricktable/v1/moves_pb.js";
import { ViewSchema } from "../../src/gen/tricktable/v1/views_pb.js";
import { emptyTable, Rank, reduceTable, Suit, type GameInfo, type TableInput, type TableState } from "../../src/index.js";

// A two-seat game that counts card points (its facts as ListGameTypes gives them).
const GAME = create(GameTypeSchema, {
  name: "test-game",
  title: "Test",
  seats: 2,
  rankOrder: [Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.NINE],
  cardPoints: [
    { rank: Rank.ACE, value: 11 },
    { rank: Rank.TEN, value: 10 },
    { rank: Rank.KING, value: 4 },
  ],
});
const c = (suit: Suit, rank: Rank) => ({ suit, rank });
const AH = c(Suit.HEARTS, Rank.ACE);
const TH = c(Suit.HEARTS, Rank.TEN);
const KS = c(Suit.SPADES, Rank.KING);
const NS = c(Suit.SPADES, Rank.NINE);
const JH = c(Suit.HEARTS, Rank.JACK);

const view = (init: MessageInitShape<typeof ViewSchema>) => create(ViewSchema, { game: "test-game", ...init });
const events = (version: number, ...kinds: MessageInitShape<typeof EventSchema>[]): TableInput => ({
  type: "events",
  batch: create(StreamEventsResponseSchema, { version: BigInt(version), events: kinds.map((k) => create(EventSchema, k)) }),
});

function seatZeroLeads(): TableState {
  const start = emptyTable(GAME, "g1");
  return reduceTable(start, {
    type: "view",
    version: 5,
    view: view({
      viewer: 0,
      phase: "play",
      dealNo: 1,
      dealer: 1,
      trump: Suit.SPADES,
      toAct: [0],
      seats: [
        { seat: 0, handSize: 4, hand: { cards: [JH, KS, AH, NS] }, score: 3 },
        { seat: 1, handSize: 4, score: 1 },
      ],
      trick: { leader: 0 },
      legalMoves: [AH, KS, NS, JH].map((card) => create(MoveSchema, { kind: { case: "playCard", value: { card } } })),
    }),
  }, GAME);
}

test("a view: the hand by suit in the game's rank order, whose turn, the legal moves, the game's facts", () => {
  const table = seatZeroLeads();
  assert.equal(table.seatCount, 2);
  assert.equal(table.title, "Test");
  assert.equal(table.viewer, 0);
  assert.ok(table.yourTurn && table.current);
  assert.equal(table.trump, "spades");
  assert.deepEqual(table.hand.map((row) => [row.suit, row.cards.map((card) => card.rank)]), [
    ["spades", ["king", "nine"]],
    ["hearts", ["ace", "jack"]],
  ]);
  assert.equal(table.legal.moves.length, 4);
  assert.deepEqual(table.scores, [3, 1]);
  assert.deepEqual(table.seats[1]!.cards, null, "the other hand is hidden");
  assert.deepEqual(table.trick, { leader: 0, plays: [], winner: null, points: 0 });
});

test("events bring the table forward until the next view: the trick, the last trick, the scores", () => {
  const before = seatZeroLeads();
  const frozen = structuredClone(before);
  const played = reduceTable(before, events(6, { kind: { case: "cardPlayed", value: { seat: 0, card: AH } } }), GAME);
  assert.deepEqual(before, frozen, "the state reduced is not changed");
  assert.equal(played.version, 6);
  assert.equal(played.viewVersion, 5);
  assert.ok(!played.current && !played.yourTurn);
  assert.deepEqual(played.legal, { moves: [], layAside: null }, "no move is legal until the next view says");
  assert.deepEqual(played.hand.map((r) => r.cards.length), [2, 1], "the ace has left the hand");
  assert.equal(played.seats[0]!.handSize, 3);
  assert.deepEqual(played.trick?.plays, [{ seat: 0, card: { suit: "hearts", rank: "ace" } }]);
  assert.equal(played.trick?.points, 11, "card points from the game type");

  const won = reduceTable(
    played,
    events(
      7,
      { kind: { case: "cardPlayed", value: { seat: 1, card: TH } } },
      { kind: { case: "trickWon", value: { trickNo: 1, winner: 0, leader: 0, cards: [AH, TH], points: 21 } } },
    ),
    GAME,
  );
  assert.equal(won.trick, null);
  assert.deepEqual(won.lastTrick, {
    leader: 0,
    plays: [
      { seat: 0, card: { suit: "hearts", rank: "ace" } },
      { seat: 1, card: { suit: "hearts", rank: "ten" } },
    ],
    winner: 0,
    points: 21,
  });
  assert.deepEqual(won.seats.map((s) => s.tricksWon), [1, 0]);
  assert.equal(won.seats[1]!.handSize, 3);

  const over = reduceTable(
    won,
    events(
      8,
      { kind: { case: "dealScored", value: { dealNo: 1, points: [2, 0], totals: [5, 1] } } },
      { kind: { case: "gameOver", value: { totals: [5, 1], winners: [0] } } },
    ),
    GAME,
  );
  assert.deepEqual(over.scores, [5, 1]);
  assert.deepEqual(over.lastDeal, { dealNo: 1, points: [2, 0], totals: [5, 1] });
  assert.ok(over.finished);
  assert.equal(over.status, "finished");
  assert.deepEqual(over.winners, [0]);

  assert.equal(reduceTable(over, events(7), GAME), over, "a version already shown changes nothing");
});

test("a view replaces what the events built; an older view than the table's is not taken", () => {
  const played = reduceTable(seatZeroLeads(), events(6, { kind: { case: "cardPlayed", value: { seat: 0, card: AH } } }), GAME);
  const newer = reduceTable(played, { type: "view", version: 6, view: view({ viewer: 0, toAct: [1], seats: [{ seat: 0, handSize: 3, hand: { cards: [JH, KS, NS] } }, { seat: 1, handSize: 4 }], trick: { leader: 0, seats: [0], cards: [AH] } }) }, GAME);
  assert.ok(newer.current);
  assert.deepEqual(newer.toAct, [1]);
  assert.deepEqual(newer.trick?.plays, played.trick?.plays);
  const older = reduceTable(newer, { type: "view", version: 5, view: view({ viewer: 0, toAct: [0] }) }, GAME);
  assert.deepEqual(older.toAct, [1]);
});

test("a read overtaken by a later one puts back neither its view nor its seats and status", () => {
  // A poll read while seat 1 was open (version 0), answered after the read that saw it taken.
  const info = (version: number, status: GameInfo["status"], bob: boolean): GameInfo => ({
    gameId: "g1", gameType: "test-game", status, version, options: {}, createdAtMs: 0, resignedSeat: null,
    timeControl: null, visibility: "public", reservedSeats: [],
    seats: [{ seat: 0, taken: true, playerName: "Ada", bot: "" }, { seat: 1, taken: bob, playerName: bob ? "Bob" : "", bot: "" }],
  });
  const playing = reduceTable(seatZeroLeads(), { type: "game", game: info(5, "playing", true) }, GAME);
  assert.equal(playing.seats[1]?.playerName, "Bob");
  const stale = info(0, "waiting", false);
  for (const input of [
    { type: "view", version: 0, view: view({ viewer: 0 }), game: stale },
    { type: "game", game: stale },
  ] satisfies TableInput[]) {
    const after = reduceTable(playing, input, GAME);
    assert.equal(after.seats[1]?.playerName, "Bob", input.type);
    assert.equal(after.status, "playing", input.type);
  }
  const later = reduceTable(playing, { type: "game", game: { ...info(5, "playing", true), seats: [] } }, GAME);
  assert.equal(later.seats[1]?.playerName, "Bob", "a summary as new as the view is taken (no seats: none changed)");
});

test("a new deal from events: hands as dealt, the last deal's tricks gone", () => {
  const dealt = reduceTable(
    seatZeroLeads(),
    events(9, {
      kind: {
        case: "dealStarted",
        value: { dealNo: 2, dealer: 0, handSizes: [2, 2], hands: [{ visible: true, cards: [NS, TH] }, { visible: false }], trump: Suit.HEARTS, turnUp: JH },
      },
    }),
    GAME,
  );
  assert.equal(dealt.dealNo, 2);
  assert.equal(dealt.trump, "hearts");
  assert.deepEqual(dealt.turnUp, { suit: "hearts", rank: "jack" });
  assert.deepEqual(dealt.hand.map((r) => r.suit), ["spades", "hearts"]);
  assert.equal(dealt.seats[1]!.cards, null);
  assert.equal(dealt.trick, null);
  assert.equal(dealt.lastTrick, null);
});

test("a resignation abandons the game", () => {
  const batch = create(StreamEventsResponseSchema, { version: 6n, resignedSeat: 1 });
  const abandoned = reduceTable(seatZeroLeads(), { type: "events", batch }, GAME);
  assert.equal(abandoned.status, "abandoned");
  assert.equal(abandoned.resignedSeat, 1);
});

test("cards laid aside: the viewer's own from the view and its event, another seat's only once exposed", () => {
  const start = reduceTable(emptyTable(GAME, "g1"), {
    type: "view",
    version: 3,
    view: view({
      viewer: 0,
      seats: [
        { seat: 0, handSize: 4, hand: { cards: [JH, KS, AH, NS] }, asideCount: 1, aside: { cards: [TH] } },
        { seat: 1, handSize: 4, asideCount: 1 },
      ],
    }),
  }, GAME);
  assert.deepEqual(start.seats[0]!.aside, [{ suit: "hearts", rank: "ten" }]);
  assert.equal(start.seats[1]!.aside, null, "another seat's bid cards are face down");

  const laid = reduceTable(
    start,
    events(
      4,
      { kind: { case: "cardsLaidAside", value: { seat: 0, count: 1, cards: { cards: [NS] } } } },
      { kind: { case: "cardsLaidAside", value: { seat: 1, count: 1 } } },
    ),
    GAME,
  );
  assert.deepEqual(laid.seats[0]!.aside, [{ suit: "hearts", rank: "ten" }, { suit: "spades", rank: "nine" }]);
  assert.deepEqual(laid.seats[0]!.cards?.map((card) => card.rank), ["jack", "king", "ace"], "the card left the hand");
  assert.deepEqual(laid.seats.map((s) => s.asideCount), [2, 2]);
  assert.equal(laid.seats[1]!.aside, null);

  const shown = reduceTable(laid, events(5, { kind: { case: "cardsExposed", value: { seat: 1, what: "bid_cards", cards: [KS, JH] } } }), GAME);
  assert.deepEqual(shown.seats[1]!.aside, [{ suit: "spades", rank: "king" }, { suit: "hearts", rank: "jack" }], "a premium shows them to all");

  const dealt = reduceTable(shown, events(6, { kind: { case: "dealStarted", value: { dealNo: 2, handSizes: [4, 4], hands: [{ visible: true, cards: [JH] }, { visible: false }] } } }), GAME);
  assert.deepEqual(dealt.seats.map((s) => [s.asideCount, s.aside]), [[0, null], [0, null]], "a new deal has none aside");
});

test("a game the service ended stays abandoned though its view is finished", () => {
  const game = {
    gameId: "g1", gameType: "test-game", status: "abandoned", version: 7, options: {}, createdAtMs: 0, resignedSeat: 1,
    timeControl: null, visibility: "public", reservedSeats: [],
    seats: [0, 1].map((seat) => ({ seat, taken: true, playerName: `p${seat}`, bot: "" })),
  } as const;
  const ended = reduceTable(seatZeroLeads(), { type: "view", version: 7, view: view({ viewer: 0, finished: true }), game }, GAME);
  assert.equal(ended.status, "abandoned");
  assert.equal(ended.resignedSeat, 1);
  assert.ok(ended.finished, "the view says no one may act any more");

  const idle = reduceTable(seatZeroLeads(), events(6, { kind: { case: "gameAbandoned", value: {} } }), GAME);
  const read = reduceTable(idle, { type: "view", version: 6, view: view({ viewer: 0, finished: true }) }, GAME);
  assert.equal(read.status, "abandoned", "a view without a summary keeps what the events said");
});
