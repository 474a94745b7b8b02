// What the table says in words: seat names, each kind of move explained in one line, and the
// bid a set of cards laid aside makes.

import { cardLabel, SUIT_SYMBOLS, SUITS_SHOWN, suitOf, type PlainCard, type PlainMove, type SuitName, type TableState } from "@tricktable/client";
import { type BidCardReading } from "@tricktable/client/gen/tricktable/v1/game_types_pb";

const COMPASS: Record<number, string[]> = {
  2: ["South", "North"],
  3: ["South", "West", "East"],
  4: ["South", "West", "North", "East"],
};

/** A seat's name: its player's name; a server bot's or an empty seat's by its place. */
export function seatName(table: TableState | undefined, seat: number): string {
  const place = COMPASS[table?.seatCount ?? 0]?.[seat] ?? `Player ${seat + 1}`;
  const status = table?.seats[seat];
  if (status?.bot) return `${place} (bot)`;
  return status?.taken && status.playerName ? status.playerName : place;
}

/** One line on what a kind of move does, beside its buttons (the calls offered tell which
 * moment of which game it is). */
export function explainMoves(kind: string, moves: readonly PlainMove[]): string {
  const calls = new Set(moves.flatMap((m) => (m.kind === "call" ? [m.call] : [])));
  switch (kind) {
    case "call":
      if (calls.has("declare") || calls.has("reveal")) {
        return "Premium: declare shows your bid cards (30 if you make your bid, else each opponent gets it); reveal also plays your hand face up (60). Or pass.";
      }
      if (calls.has("decline")) return "Your opponent closed the stock: you may still swap your trump nine, or decline.";
      if (calls.has("claim") || moves.length === 1) return "The last trick is played: claim if you have 66, or pass.";
      return "";
    case "chooseSeat":
      return "Name the player who leads the first trick.";
    case "exchangeTrump":
      return "Swap the trump nine in your hand for the face-up trump card.";
    case "declareMarriage":
      return "Marriage: show the King and Queen of a suit for 20 (40 in trumps), counted once you win a trick; you lead one of them now.";
    case "closeStock":
      return "Close: nobody draws any more and suit must be followed; you must then reach 66, or your opponent scores.";
    case "claim":
      return "Claim: say you have 66. Right, the deal ends and you score; wrong, your opponent does.";
    case "drawCards":
      return "Draw from the stock.";
    case "bid":
      return "Bid the tricks you and a partner will take (you name the partner's card if you win), or misère: take no trick, alone.";
    case "cut":
      return "Cut the pack before the double hand is dealt.";
    default:
      return "";
  }
}

/** What a seat would send as a move, in a button's words (seats by name). */
export function moveLabel(move: PlainMove, name: (seat: number) => string, fallback: string): string {
  if (move.kind === "chooseSeat") return name(move.seat);
  if (move.kind === "call") return move.call;
  return fallback;
}

/** The suit a card counts as when laid aside: its own, or for the Joker the turn-up's. */
function bidSuit(card: PlainCard, turnUp: PlainCard | null): SuitName | null {
  return card.rank === "joker" ? (turnUp?.suit ?? null) : card.suit;
}

/** What a suit adds to a bid, by the game's reading (GameType.bidReading). */
function suitValue(reading: BidCardReading, suit: SuitName | null): number {
  return suit === null ? 0 : (reading.suitValues.find((v) => v.suit === suitOf(suit))?.value ?? 0);
}

/** The bid cards laid aside make, in words: "6♣ 10♣ K♣ = bid 9" (and Counterpoint's higher
 * reading: "= bid 10 (or 110)"); what is still to pick otherwise. */
export function bidText(picked: readonly PlainCard[], reading: BidCardReading, turnUp: PlainCard | null, highReadings: boolean): string {
  const bid = picked.reduce((sum, card) => sum + suitValue(reading, bidSuit(card, turnUp)), 0);
  const cards = picked.map(cardLabel).join(" ");
  if (picked.length < reading.cards) return picked.length ? `${cards}: ${bid} so far` : "";
  const high = highReadings && reading.highReadingAdd && bid <= reading.highReadingMax ? ` (or ${bid + reading.highReadingAdd})` : "";
  return `${cards} = bid ${bid}${high}`;
}

/** How laying aside makes a bid, in one line: "the suits of the 3 cards add up: ♣ 3, ♥ 2...". */
export function bidRule(reading: BidCardReading, highReadings: boolean): string {
  const values = SUITS_SHOWN.map((suit) => [suit, suitValue(reading, suit)] as const)
    .sort((a, b) => b[1] - a[1])
    .map(([suit, value]) => `${SUIT_SYMBOLS[suit]} ${value}`);
  const high = highReadings && reading.highReadingAdd
    ? `; a bid of ${reading.highReadingMax} or less may also count as ${reading.highReadingAdd} more, whichever is closer`
    : "";
  return `Your bid is the sum of the suits of the ${reading.cards} cards you lay aside (${values.join(", ")})${high}. Only you see them until the deal ends.`;
}
