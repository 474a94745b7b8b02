// Moves as plain objects, one kind per case of the protocol's Move, and the viewer's legal moves
// read from a view: the ones the view lists, and its lay-aside offer (the compact form a request
// asks for with compactLayAside, or the listed lay-asides an older server sends) as one choice.

import { create, toBinary } from "@bufbuild/protobuf";
import { MoveSchema, type Move } from "./gen/tricktable/v1/moves_pb.js";
import { type View } from "./gen/tricktable/v1/views_pb.js";
import { cardKey, plainCard, plainCards, suitName, suitOf, toCard, type PlainCard, type SuitName } from "./cards.js";

export type PlainMove =
  | { readonly kind: "playCard"; readonly card: PlainCard }
  | { readonly kind: "layAside"; readonly cards: readonly PlainCard[] }
  | { readonly kind: "call"; readonly call: string }
  | { readonly kind: "chooseSeat"; readonly seat: number }
  | { readonly kind: "exchangeTrump" }
  | { readonly kind: "declareMarriage"; readonly suit: SuitName }
  | { readonly kind: "closeStock" }
  | { readonly kind: "claim" }
  | { readonly kind: "drawCards" }
  | { readonly kind: "bid"; readonly contract: string; readonly tricks?: number }
  | { readonly kind: "declareContract"; readonly trump: SuitName | null; readonly called: PlainCard }
  | { readonly kind: "cut"; readonly depth: number };

/** The move kinds: the cases of the protocol's Move (GameType.moveKinds names a game's). */
export type MoveKind = PlainMove["kind"];

/** The protocol's move as a plain one; null for an empty move or one of a kind this package
 * does not know (a newer server's). */
export function plainMove(move: Move): PlainMove | null {
  const kind = move.kind;
  switch (kind.case) {
    case "playCard": {
      const card = plainCard(kind.value.card);
      return card && { kind: "playCard", card };
    }
    case "layAside":
      return { kind: "layAside", cards: plainCards(kind.value.cards) };
    case "call":
      return { kind: "call", call: kind.value.call };
    case "chooseSeat":
      return { kind: "chooseSeat", seat: kind.value.seat };
    case "exchangeTrump":
    case "closeStock":
    case "claim":
    case "drawCards":
      return { kind: kind.case };
    case "declareMarriage": {
      const suit = suitName(kind.value.suit);
      return suit && { kind: "declareMarriage", suit };
    }
    case "bid":
      return kind.value.tricks === undefined
        ? { kind: "bid", contract: kind.value.contract }
        : { kind: "bid", contract: kind.value.contract, tricks: kind.value.tricks };
    case "declareContract": {
      const called = plainCard(kind.value.called);
      return called && { kind: "declareContract", trump: suitName(kind.value.trump), called };
    }
    case "cut":
      return { kind: "cut", depth: kind.value.depth };
    default:
      return null;
  }
}

/** The plain move as the protocol's, ready to send. */
export function toMove(move: PlainMove): Move {
  switch (move.kind) {
    case "playCard":
      return create(MoveSchema, { kind: { case: "playCard", value: { card: toCard(move.card) } } });
    case "layAside":
      return create(MoveSchema, { kind: { case: "layAside", value: { cards: move.cards.map(toCard) } } });
    case "call":
      return create(MoveSchema, { kind: { case: "call", value: { call: move.call } } });
    case "chooseSeat":
      return create(MoveSchema, { kind: { case: "chooseSeat", value: { seat: move.seat } } });
    case "exchangeTrump":
    case "closeStock":
    case "claim":
    case "drawCards":
      return create(MoveSchema, { kind: { case: move.kind, value: {} } });
    case "declareMarriage":
      return create(MoveSchema, { kind: { case: "declareMarriage", value: { suit: suitOf(move.suit) } } });
    case "bid":
      return create(MoveSchema, { kind: { case: "bid", value: { contract: move.contract, tricks: move.tricks } } });
    case "declareContract":
      return create(MoveSchema, {
        kind: { case: "declareContract", value: { trump: suitOf(move.trump), called: toCard(move.called) } },
      });
    case "cut":
      return create(MoveSchema, { kind: { case: "cut", value: { depth: move.depth } } });
  }
}

/** "Lay aside any `count` distinct cards of `cards`." */
export interface LayAsideOffer {
  readonly cards: readonly PlainCard[];
  readonly count: number;
}

/** What the viewer may do now: the moves listed, and laying cards aside as one offer (its
 * moves are not among `moves`). Nothing for a spectator or a seat that may not act. */
export interface LegalMoves {
  readonly moves: readonly PlainMove[];
  readonly layAside: LayAsideOffer | null;
}

export const NO_MOVES: LegalMoves = { moves: [], layAside: null };

export function legalMoves(view: View): LegalMoves {
  const listed = view.legalMoves.flatMap((m) => {
    const move = plainMove(m);
    return move ? [move] : [];
  });
  const moves = listed.filter((m) => m.kind !== "layAside");
  const choice = view.layAsideChoice;
  if (choice) return { moves, layAside: { cards: plainCards(choice.cards), count: choice.count } };
  const asides = listed.flatMap((m) => (m.kind === "layAside" ? [m.cards] : []));
  if (!asides.length) return { moves, layAside: null };
  // An older server lists every combination: each lays aside the same number of cards, and the
  // cards any of them names are the ones that may be picked.
  const cards = new Map<string, PlainCard>();
  for (const card of asides.flat()) cards.set(cardKey(card), card);
  return { moves, layAside: { cards: [...cards.values()], count: asides[0]!.length } };
}

/** The lay-aside of the cards picked, in the offer's order; throws unless exactly `count`
 * distinct cards of the offer are picked. */
export function layAside(offer: LayAsideOffer, picked: readonly PlainCard[]): PlainMove {
  const keys = new Set(picked.map(cardKey));
  const cards = offer.cards.filter((c) => keys.has(cardKey(c)));
  if (cards.length !== offer.count || keys.size !== picked.length || cards.length !== keys.size) {
    throw new RangeError(`pick ${offer.count} distinct cards of the ${offer.cards.length} offered`);
  }
  return { kind: "layAside", cards };
}

/** Whether `move` is among the legal ones (a lay-aside: `count` distinct cards of the offer). */
export function isLegal(legal: LegalMoves, move: PlainMove): boolean {
  if (move.kind === "layAside") {
    if (!legal.layAside) return false;
    try {
      layAside(legal.layAside, move.cards);
      return true;
    } catch {
      return false;
    }
  }
  const key = moveKey(move);
  return legal.moves.some((m) => moveKey(m) === key);
}

/** A key that two equal moves share, however their objects were written. */
export function moveKey(move: PlainMove): string {
  return toBinary(MoveSchema, toMove(move)).join(",");
}

/** The legal move that plays `card`, if there is one. */
export function playOf(legal: LegalMoves, card: PlainCard): PlainMove | undefined {
  return legal.moves.find((m) => m.kind === "playCard" && cardKey(m.card) === cardKey(card));
}
