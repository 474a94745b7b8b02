// Cards as people read them. A card is the package's plain card (`{ suit: "spades", rank:
// "queen" }`); its words are the package's `cardLabel` ("Q♠"). The protocol's cards, which the
// log's events and the game's details still carry, are read through `plainCard`.

import { cardLabel, plainCard, SUIT_SYMBOLS, suitName, type PlainCard, type SuitName } from "@tricktable/client";
import { type Card, type Suit } from "@tricktable/client/gen/tricktable/v1/cards_pb";
import { h } from "./dom";

/** A protocol card in words: "Q♠", "Joker"; "—" for none. */
export function cardText(card: Card | undefined): string {
  const plain = plainCard(card);
  return plain ? cardLabel(plain) : "—";
}

/** A suit by name as its symbol; null (no suit): "no trump". */
export function suitSymbol(suit: SuitName | null): string {
  return suit ? SUIT_SYMBOLS[suit] : "no trump";
}

/** A protocol suit as its symbol. */
export function suitText(suit: Suit): string {
  return suitSymbol(suitName(suit));
}

function cardColour(card: PlainCard): string {
  return card.rank === "joker" ? "joker" : card.suit === "hearts" || card.suit === "diamonds" ? "red" : "black";
}

/** A card face: its text ("Q♠") in the corner, and its suit large in the middle (drawn by CSS
 * from `data-pip`, so the text stays "Q♠"); `data-card` carries the text for people and tests
 * alike. `extra` classes: "small", "legal", "chosen"... */
export function cardFace(card: PlainCard, tag = "span", attrs: Record<string, string | boolean | EventListener | undefined> = {}, extra = ""): HTMLElement {
  const pip = card.rank === "joker" ? "★" : card.suit ? SUIT_SYMBOLS[card.suit] : "";
  const text = cardLabel(card);
  return h(tag, { class: `card ${cardColour(card)}${extra ? ` ${extra}` : ""}`, "data-card": text, "data-pip": pip, ...attrs }, text);
}

/** A protocol card's face, small (the game's details); nothing for no card. */
export function smallFace(card: Card | undefined): HTMLElement | null {
  const plain = plainCard(card);
  return plain ? cardFace(plain, "span", {}, "small") : null;
}
