import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { CardSchema } from "../../src/gen/tricktable/v1/cards_pb.js";
import { bySuit, cardKey, cardLabel, plainCard, Rank, Suit, toCard, type PlainCard } from "../../src/index.js";

test("a card's names are the protocol's enum names, both ways", () => {
  const card = create(CardSchema, { suit: Suit.SPADES, rank: Rank.QUEEN });
  assert.deepEqual(plainCard(card), { suit: "spades", rank: "queen" });
  assert.deepEqual(toCard({ suit: "spades", rank: "queen" }), card);
  assert.deepEqual(plainCard(create(CardSchema, { rank: Rank.JOKER })), { suit: null, rank: "joker" });
  assert.equal(plainCard(create(CardSchema, {})), null, "an unset card is no card");
  assert.equal(plainCard(undefined), null);
  assert.throws(() => toCard({ suit: "stars" as "spades", rank: "ace" }), /no suit called "stars"/);
});

test("labels and keys", () => {
  assert.equal(cardLabel({ suit: "hearts", rank: "ten" }), "10♥");
  assert.equal(cardLabel({ suit: "clubs", rank: "jack" }), "J♣");
  assert.equal(cardLabel({ suit: null, rank: "joker" }), "Joker");
  assert.notEqual(cardKey({ suit: "hearts", rank: "ten" }), cardKey({ suit: "clubs", rank: "ten" }));
});

test("a hand by suit follows the rank order it is given (the Ten high, as in Sixty-Six)", () => {
  const sixtySix = [Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.NINE];
  const hand: PlainCard[] = [
    { suit: "hearts", rank: "king" },
    { suit: "spades", rank: "nine" },
    { suit: "hearts", rank: "ten" },
    { suit: "spades", rank: "ace" },
    { suit: "hearts", rank: "ace" },
  ];
  const rows = bySuit(hand, sixtySix);
  assert.deepEqual(
    rows.map((r) => [r.suit, r.cards.map((c) => c.rank)]),
    [
      ["spades", ["ace", "nine"]],
      ["hearts", ["ace", "ten", "king"]],
    ],
  );
  const plain = [Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.TEN, Rank.NINE];
  assert.deepEqual(bySuit(hand, plain)[1]!.cards.map((c) => c.rank), ["ace", "king", "ten"], "another game, another order");
  const withJoker = bySuit([{ suit: null, rank: "joker" }, { suit: "clubs", rank: "two" }], plain);
  assert.deepEqual(withJoker.map((r) => r.suit), ["clubs", null], "the Joker's row comes last");
});
