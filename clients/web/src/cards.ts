// Cards as people read them.

import { Rank, Suit, type Card } from "@tricktable/client/gen/tricktable/v1/cards_pb";
import { h } from "./dom";

export const SUIT_SYMBOL: Record<number, string> = {
  [Suit.CLUBS]: "♣",
  [Suit.HEARTS]: "♥",
  [Suit.SPADES]: "♠",
  [Suit.DIAMONDS]: "♦",
};
export const SUIT_NAME: Record<number, string> = {
  [Suit.CLUBS]: "clubs",
  [Suit.HEARTS]: "hearts",
  [Suit.SPADES]: "spades",
  [Suit.DIAMONDS]: "diamonds",
};
/** Suits in display order: colours alternate. */
export const SUITS_SHOWN = [Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS];

const RANK_TEXT: Record<number, string> = {
  [Rank.JACK]: "J",
  [Rank.QUEEN]: "Q",
  [Rank.KING]: "K",
  [Rank.ACE]: "A",
};

export function rankText(rank: Rank): string {
  return RANK_TEXT[rank] ?? String(rank);
}

export function cardText(card: Card | undefined): string {
  if (!card || card.rank === Rank.UNSPECIFIED) return "—";
  if (card.rank === Rank.JOKER) return "Joker";
  return `${rankText(card.rank)}${SUIT_SYMBOL[card.suit] ?? ""}`;
}

export function suitText(suit: Suit): string {
  return SUIT_SYMBOL[suit] ?? "no trump";
}

export function cardKey(card: Card): string {
  return `${card.suit}:${card.rank}`;
}

export function isRed(suit: Suit): boolean {
  return suit === Suit.HEARTS || suit === Suit.DIAMONDS;
}

export function cardColour(card: Card): string {
  return card.rank === Rank.JOKER ? "joker" : isRed(card.suit) ? "red" : "black";
}

/** A card face: its text ("Q♠") in the corner, and its suit large in the middle (drawn by CSS
 * from `data-pip`, so the text stays "Q♠"); `data-card` carries the text for people and tests
 * alike. `extra` classes: "small", "legal", "chosen"... */
export function cardFace(card: Card, tag = "span", attrs: Record<string, string | boolean | EventListener | undefined> = {}, extra = ""): HTMLElement {
  const pip = card.rank === Rank.JOKER ? "★" : (SUIT_SYMBOL[card.suit] ?? "");
  return h(tag, { class: `card ${cardColour(card)}${extra ? ` ${extra}` : ""}`, "data-card": cardText(card), "data-pip": pip, ...attrs }, cardText(card));
}

/** A hand by suit, each suit in the game's rank order (GameType.rankOrder, strongest first),
 * strongest last (the Joker has a row of its own). */
export function bySuit(cards: Card[], rankOrder: Rank[]): Map<Suit, Card[]> {
  const rows = new Map<Suit, Card[]>();
  for (const suit of [...SUITS_SHOWN, Suit.UNSPECIFIED]) rows.set(suit, []);
  for (const card of cards) rows.get(card.suit)?.push(card);
  const weakness = (card: Card) => rankOrder.indexOf(card.rank);
  for (const row of rows.values()) row.sort((a, b) => weakness(b) - weakness(a));
  return rows;
}
