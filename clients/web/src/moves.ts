// Moves as people read them (the table model lists the legal ones, ready to send).

import { cardLabel, type PlainMove } from "@tricktable/client";
import { suitSymbol } from "./cards";

const CONTRACT_NAMES: Record<string, string> = { misere: "misère", open_misere: "open misère" };

export function contractText(contract: string, tricks?: number): string {
  if (contract === "tricks" && tricks !== undefined) return `${tricks} tricks`;
  if (/^\d+$/.test(contract)) return `${contract} tricks`; // a Nominations contract: "10"
  return CONTRACT_NAMES[contract] ?? contract;
}

export function describeMove(move: PlainMove): string {
  switch (move.kind) {
    case "playCard":
      return `play ${cardLabel(move.card)}`;
    case "layAside":
      return `lay aside ${move.cards.map(cardLabel).join(" ")}`;
    case "call":
      return move.call;
    case "chooseSeat":
      return `choose seat ${move.seat}`;
    case "exchangeTrump":
      return "exchange the trump nine";
    case "declareMarriage":
      return `declare the ${suitSymbol(move.suit)} marriage`;
    case "closeStock":
      return "close the stock";
    case "claim":
      return "claim (declare out)";
    case "drawCards":
      return "draw";
    case "bid":
      return `bid ${contractText(move.contract, move.tricks)}`;
    case "declareContract":
      return `${move.trump === null ? "no trump" : `trumps ${suitSymbol(move.trump)}`}, call ${cardLabel(move.called)}`;
    case "cut":
      return `cut ${move.depth}`;
  }
}
