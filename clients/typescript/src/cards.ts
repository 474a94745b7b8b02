// Cards as plain objects: a suit and a rank by name, named after the protocol's enums (so a
// rank the protocol adds is a name here too), and a hand sorted in the game's own rank order.

import { create } from "@bufbuild/protobuf";
import { CardSchema, Rank, Suit, type Card } from "./gen/tricktable/v1/cards_pb.js";

/** "clubs", "hearts", "spades" or "diamonds": the protocol's Suit names, lower case. */
export type SuitName = Lowercase<Exclude<keyof typeof Suit, "UNSPECIFIED">>;
/** "two" ... "ace", "joker": the protocol's Rank names, lower case. */
export type RankName = Lowercase<Exclude<keyof typeof Rank, "UNSPECIFIED">>;

/** A card. The Joker has no suit (null). */
export interface PlainCard {
  readonly suit: SuitName | null;
  readonly rank: RankName;
}

export function suitName(suit: Suit): SuitName | null {
  if (suit === Suit.UNSPECIFIED) return null;
  const name = Suit[suit] as string | undefined;
  return name === undefined ? null : (name.toLowerCase() as SuitName);
}

export function suitOf(name: SuitName | null): Suit {
  if (name === null) return Suit.UNSPECIFIED;
  const suit = Suit[name.toUpperCase() as keyof typeof Suit] as Suit | undefined;
  if (suit === undefined) throw new TypeError(`no suit called ${JSON.stringify(name)}`);
  return suit;
}

export function rankName(rank: Rank): RankName | null {
  if (rank === Rank.UNSPECIFIED) return null;
  const name = Rank[rank] as string | undefined;
  return name === undefined ? null : (name.toLowerCase() as RankName);
}

export function rankOf(name: RankName): Rank {
  const rank = Rank[name.toUpperCase() as keyof typeof Rank] as Rank | undefined;
  if (rank === undefined || rank === Rank.UNSPECIFIED) throw new TypeError(`no rank called ${JSON.stringify(name)}`);
  return rank;
}

/** The protocol's card as a plain one; null for an absent or unknown card (a card the viewer
 * may not see is absent, never a guess). */
export function plainCard(card: Card | undefined): PlainCard | null {
  if (!card) return null;
  const rank = rankName(card.rank);
  return rank === null ? null : { suit: suitName(card.suit), rank };
}

/** The plain cards of a list, skipping none: every card in a list is a real card. */
export function plainCards(cards: readonly Card[]): PlainCard[] {
  return cards.flatMap((card) => {
    const plain = plainCard(card);
    return plain ? [plain] : [];
  });
}

export function toCard(card: PlainCard): Card {
  return create(CardSchema, { suit: suitOf(card.suit), rank: rankOf(card.rank) });
}

/** A key for maps and sets: "queen/spades", "joker". */
export function cardKey(card: PlainCard): string {
  return card.suit === null ? card.rank : `${card.rank}/${card.suit}`;
}

export function sameCard(a: PlainCard, b: PlainCard): boolean {
  return a.suit === b.suit && a.rank === b.rank;
}

export const SUIT_SYMBOLS: Readonly<Record<SuitName, string>> = { clubs: "♣", hearts: "♥", spades: "♠", diamonds: "♦" };
const FACE_LETTERS: Partial<Record<RankName, string>> = { jack: "J", queen: "Q", king: "K", ace: "A" };

/** "Q♠", "10♥", "Joker". */
export function cardLabel(card: PlainCard): string {
  if (card.rank === "joker") return "Joker";
  const rank = FACE_LETTERS[card.rank] ?? String(rankOf(card.rank)); // a number rank is its value
  return `${rank}${card.suit ? SUIT_SYMBOLS[card.suit] : ""}`;
}

/** One suit of a hand (suit null: the Joker's row). */
export interface SuitRow {
  readonly suit: SuitName | null;
  readonly cards: PlainCard[];
}

/** The order suits are shown in: colours alternate. A display choice, not a rule. */
export const SUITS_SHOWN: readonly SuitName[] = ["spades", "hearts", "clubs", "diamonds"];

/** A hand by suit, each suit strongest first in the game's rank order (GameType.rankOrder);
 * only the suits it holds, in `order`, then the Joker's row. */
export function bySuit(cards: readonly PlainCard[], rankOrder: readonly Rank[], order: readonly SuitName[] = SUITS_SHOWN): SuitRow[] {
  const strength = (card: PlainCard) => {
    const at = rankOrder.indexOf(rankOf(card.rank));
    return at < 0 ? rankOrder.length : at; // a rank the order does not list (the Joker) last
  };
  const rows: SuitRow[] = [];
  for (const suit of [...order, null]) {
    const held = cards.filter((c) => c.suit === suit).sort((a, b) => strength(a) - strength(b));
    if (held.length) rows.push({ suit, cards: held });
  }
  return rows;
}
