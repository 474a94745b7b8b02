// One line per event for the table's log. Events arrive projected for this viewer: a card this
// viewer may not see is simply absent, and the line says only what is there.

import { type Event } from "@tricktable/client/gen/tricktable/v1/events_pb";
import { cardText, suitText } from "./cards";
import { contractText } from "./moves";
import { dealWhy } from "./detail";

/** A call as the log says it. */
const CALLED: Record<string, string> = {
  pass: "passes",
  declare: "declares: bid cards face up",
  reveal: "reveals: bid cards and hand face up",
  claim: "claims to have 66",
  decline: "declines",
};

/** `declarer`: the declarer of the deal the event belongs to, where the game has one (a card
 * its own declarer called means playing alone). */
export function describeEvent(event: Event, name: (seat: number) => string, declarer?: number): string {
  const e = event.kind;
  switch (e.case) {
    case "dealStarted": {
      const turnUp = e.value.turnUp?.rank ? `, turn-up ${cardText(e.value.turnUp)}` : "";
      const trump = e.value.trump ? `, trumps ${suitText(e.value.trump)}` : "";
      return `Deal ${e.value.dealNo}: ${name(e.value.dealer)} deals${turnUp}${trump}`;
    }
    case "cardsLaidAside": {
      const cards = e.value.cards ? `: ${e.value.cards.cards.map(cardText).join(" ")}` : " face down";
      return `${name(e.value.seat)} lays ${e.value.count} cards aside${cards}`;
    }
    case "called":
      return `${name(e.value.seat)} ${CALLED[e.value.call] ?? `calls ${e.value.call}`}${e.value.automatic ? " (automatic)" : ""}`;
    case "seatChosen":
      return `${name(e.value.seat)} names ${name(e.value.chosen)} (${e.value.role})`;
    case "cardsExposed":
      return `${name(e.value.seat)} shows ${e.value.what.replace("_", " ")}: ${e.value.cards.map(cardText).join(" ")}`;
    case "cardPlayed": {
      const as = e.value.asCard?.rank ? ` as ${cardText(e.value.asCard)}` : "";
      return `${name(e.value.seat)} plays ${cardText(e.value.card)}${as}`;
    }
    case "trickWon": {
      const points = e.value.points ? ` (${e.value.points} points)` : "";
      return `${name(e.value.winner)} wins trick ${e.value.trickNo}${points}`;
    }
    case "dealScored":
    {
      const why = dealWhy(e.value, name);
      return `Deal ${e.value.dealNo} scored: ${e.value.points.join(" / ")} (totals ${e.value.totals.join(" / ")})${why ? ` — ${why}` : ""}`;
    }
    case "gameOver":
      return `Game over: ${e.value.winners.map(name).join(" and ")} ${e.value.winners.length > 1 ? "win" : "wins"} (${e.value.totals.join(" / ")})`;
    case "cardDrawn":
      return `${name(e.value.seat)} draws${e.value.card?.rank ? ` ${cardText(e.value.card)}` : ""} (${e.value.stockLeft} left)`;
    case "trumpExchanged":
      return `${name(e.value.seat)} exchanges ${cardText(e.value.given)} for ${cardText(e.value.taken)}`;
    case "marriageDeclared":
      return `${name(e.value.seat)} declares the ${suitText(e.value.suit)} marriage (${e.value.points})`;
    case "stockClosed":
      return `${name(e.value.seat)} closes the stock`;
    case "bidMade":
      return `${name(e.value.seat)} bids ${contractText(e.value.contract, e.value.tricks)}`;
    case "auctionWon":
      return `${name(e.value.declarer)} wins the auction: ${contractText(e.value.contract, e.value.tricks)}`;
    case "allPassed":
      return `All passed: ${e.value.nextDeal.replace("_", " ")} (×${e.value.multiplier})`;
    case "packCut":
      return `${name(e.value.seat)} cuts${e.value.depth !== undefined ? ` at ${e.value.depth}` : ""}`;
    case "contractDeclared":
      return `${name(e.value.declarer)} declares ${e.value.trump ? `trumps ${suitText(e.value.trump)}` : "no trump"}, calls ${cardText(e.value.called)}`;
    case "partnerNotice":
      if (e.value.holder !== undefined && e.value.holder === declarer) {
        return `You hold the called card ${cardText(e.value.called)} yourself: you play alone`;
      }
      return e.value.holder !== undefined
        ? `You hold the called card ${cardText(e.value.called)}: you are the partner`
        : `The called card is ${cardText(e.value.called)}`;
    case "partnerRevealed":
      return e.value.partner !== undefined
        ? `${name(e.value.partner)} is ${name(e.value.declarer)}'s partner`
        : `${name(e.value.declarer)} plays alone`;
    case "timedOut":
      return `${name(e.value.seat)} ran out of time${e.value.autoMove ? ": the server plays for them" : ""}`;
    case "gameAbandoned":
      return `The game was abandoned${e.value.reason === "idle" ? ": nobody moved for too long" : e.value.reason ? ` (${e.value.reason})` : ""}`;
    default:
      return "(an event this page does not know)";
  }
}
