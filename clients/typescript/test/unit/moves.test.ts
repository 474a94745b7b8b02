import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { MoveSchema } from "../../src/gen/tricktable/v1/moves_pb.js";
import { ViewSchema } from "../../src/gen/tricktable/v1/views_pb.js";
import { isLegal, layAside, legalMoves, moveKey, plainMove, Rank, Suit, toMove, type PlainCard, type PlainMove } from "../../src/index.js";

const EVERY_KIND: PlainMove[] = [
  { kind: "playCard", card: { suit: "hearts", rank: "ace" } },
  { kind: "layAside", cards: [{ suit: "clubs", rank: "two" }, { suit: "spades", rank: "three" }] },
  { kind: "call", call: "pass" },
  { kind: "chooseSeat", seat: 2 },
  { kind: "exchangeTrump" },
  { kind: "declareMarriage", suit: "diamonds" },
  { kind: "closeStock" },
  { kind: "claim" },
  { kind: "drawCards" },
  { kind: "bid", contract: "tricks", tricks: 10 },
  { kind: "bid", contract: "misere" },
  { kind: "declareContract", trump: null, called: { suit: "spades", rank: "ace" } },
  { kind: "declareContract", trump: "hearts", called: { suit: "spades", rank: "king" } },
  { kind: "cut", depth: 17 },
];

test("every move kind goes to the protocol and back unchanged", () => {
  for (const move of EVERY_KIND) assert.deepEqual(plainMove(toMove(move)), move, move.kind);
  assert.equal(plainMove(create(MoveSchema, {})), null, "an empty move is no move");
  const sent = toMove({ kind: "declareContract", trump: null, called: { suit: "spades", rank: "ace" } });
  assert.equal(sent.kind.case === "declareContract" && sent.kind.value.trump, Suit.UNSPECIFIED, "no trump is SUIT_UNSPECIFIED");
});

test("two equal moves share a key however their objects were written", () => {
  const a: PlainMove = { kind: "playCard", card: { suit: "hearts", rank: "ace" } };
  const b = { card: { rank: "ace", suit: "hearts" }, kind: "playCard" } as PlainMove;
  assert.equal(moveKey(a), moveKey(b));
  assert.notEqual(moveKey(a), moveKey({ kind: "playCard", card: { suit: "hearts", rank: "king" } }));
});

const card = (suit: Suit, rank: Rank) => ({ suit, rank });
const hand = [card(Suit.CLUBS, Rank.TWO), card(Suit.HEARTS, Rank.ACE), card(Suit.SPADES, Rank.TEN), card(Suit.DIAMONDS, Rank.KING)];

test("a compact lay-aside offer is one choice, beside the moves listed", () => {
  const view = create(ViewSchema, {
    legalMoves: [toMove({ kind: "call", call: "pass" })],
    layAsideChoice: { cards: hand, count: 3 },
  });
  const legal = legalMoves(view);
  assert.deepEqual(legal.moves, [{ kind: "call", call: "pass" }]);
  assert.equal(legal.layAside?.count, 3);
  assert.equal(legal.layAside?.cards.length, 4);
  const picked: PlainCard[] = [{ suit: "spades", rank: "ten" }, { suit: "clubs", rank: "two" }, { suit: "hearts", rank: "ace" }];
  assert.deepEqual(layAside(legal.layAside!, picked), {
    kind: "layAside",
    cards: [{ suit: "clubs", rank: "two" }, { suit: "hearts", rank: "ace" }, { suit: "spades", rank: "ten" }],
  }, "in the offer's order");
  assert.throws(() => layAside(legal.layAside!, picked.slice(0, 2)), /pick 3 distinct cards/);
  assert.throws(() => layAside(legal.layAside!, [picked[0]!, picked[0]!, picked[1]!]), /distinct/);
  assert.throws(() => layAside(legal.layAside!, [...picked.slice(0, 2), { suit: "hearts", rank: "two" }]), /pick 3/, "a card not offered");
  assert.ok(isLegal(legal, { kind: "layAside", cards: picked }));
  assert.ok(isLegal(legal, { kind: "call", call: "pass" }));
  assert.ok(!isLegal(legal, { kind: "call", call: "declare" }));
});

test("lay-asides an older server lists one by one read as the same offer", () => {
  const combos = [
    [hand[0]!, hand[1]!],
    [hand[0]!, hand[2]!],
    [hand[1]!, hand[3]!],
  ].map((cards) => create(MoveSchema, { kind: { case: "layAside", value: { cards } } }));
  const legal = legalMoves(create(ViewSchema, { legalMoves: combos }));
  assert.deepEqual(legal.moves, [], "no lay-aside among the moves");
  assert.equal(legal.layAside?.count, 2);
  assert.deepEqual(new Set(legal.layAside?.cards.map((c) => `${c.rank}/${c.suit}`)), new Set(["two/clubs", "ace/hearts", "ten/spades", "king/diamonds"]));
});

test("a spectator's view offers nothing", () => {
  assert.deepEqual(legalMoves(create(ViewSchema, {})), { moves: [], layAside: null });
});
