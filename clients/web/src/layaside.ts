// Laying cards aside: the one choice a view offers, however the server sent it.
//
// The page asks for the compact form (GetGameRequest.compactLayAside): "lay aside any `count`
// of these cards" comes as View.layAsideChoice, ~260 bytes, instead of every combination listed
// in View.legalMoves (560 moves of 3 cards in Counterpoint, ~12.5 KB). A server from before the
// compact form ignores the flag and lists the moves: both read as the same offer here, so the
// table draws and sends a lay-aside one way.

import { create } from "@bufbuild/protobuf";
import { type Card } from "./gen/tricktable/v1/cards_pb";
import { MoveSchema, type Move } from "./gen/tricktable/v1/moves_pb";
import { type View } from "./gen/tricktable/v1/views_pb";
import { cardKey } from "./cards";

/** Lay aside any `count` distinct cards of `cards`. */
export interface LayAsideOffer {
  cards: Card[];
  count: number;
}

/** The view's lay-aside offer: its layAsideChoice, else the LayAside moves it lists (an older
 * server's answer); undefined when the viewer may not lay cards aside now. */
export function layAsideOffer(view: View): LayAsideOffer | undefined {
  const choice = view.layAsideChoice;
  if (choice) return { cards: choice.cards, count: choice.count };
  const listed = view.legalMoves.flatMap((m) => (m.kind.case === "layAside" ? [m.kind.value.cards] : []));
  if (!listed.length) return undefined;
  // Every listed move lays aside the same number of cards; the cards any of them names are the
  // ones that may be picked (the whole hand, in the games there are).
  const cards = new Map<string, Card>();
  for (const card of listed.flat()) cards.set(cardKey(card), card);
  return { cards: [...cards.values()], count: listed[0].length };
}

/** The LayAside move of the cards picked (by cardKey), in the offer's order; undefined unless
 * exactly `count` of the offer's cards are picked. */
export function layAsideMove(offer: LayAsideOffer, picked: ReadonlySet<string>): Move | undefined {
  const cards = offer.cards.filter((c) => picked.has(cardKey(c)));
  if (cards.length !== offer.count || cards.length !== picked.size) return undefined;
  return create(MoveSchema, { kind: { case: "layAside", value: { cards } } });
}
