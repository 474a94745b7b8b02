// Moves as people read them (the server lists the legal ones, ready to send).

import { type Move } from "@tricktable/client/gen/tricktable/v1/moves_pb";
import { Suit } from "@tricktable/client/gen/tricktable/v1/cards_pb";
import { cardText, suitText } from "./cards";

const CONTRACT_NAMES: Record<string, string> = { misere: "misère", open_misere: "open misère" };

export function contractText(contract: string, tricks?: number): string {
  if (contract === "tricks" && tricks !== undefined) return `${tricks} tricks`;
  if (/^\d+$/.test(contract)) return `${contract} tricks`; // a Nominations contract: "10"
  return CONTRACT_NAMES[contract] ?? contract;
}

export function describeMove(move: Move): string {
  const kind = move.kind;
  switch (kind.case) {
    case "playCard":
      return `play ${cardText(kind.value.card)}`;
    case "layAside":
      return `lay aside ${kind.value.cards.map(cardText).join(" ")}`;
    case "call":
      return kind.value.call;
    case "chooseSeat":
      return `choose seat ${kind.value.seat}`;
    case "exchangeTrump":
      return "exchange the trump nine";
    case "declareMarriage":
      return `declare the ${suitText(kind.value.suit)} marriage`;
    case "closeStock":
      return "close the stock";
    case "claim":
      return "claim (declare out)";
    case "drawCards":
      return "draw";
    case "bid":
      return `bid ${contractText(kind.value.contract, kind.value.tricks)}`;
    case "declareContract": {
      const trumps = kind.value.trump === Suit.UNSPECIFIED ? "no trump" : `trumps ${suitText(kind.value.trump)}`;
      return `${trumps}, call ${cardText(kind.value.called)}`;
    }
    case "cut":
      return `cut ${kind.value.depth}`;
    default:
      return "(empty move)";
  }
}
