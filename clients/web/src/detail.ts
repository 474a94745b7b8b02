// What is special to each game (View.detail), said as a card site says it: a few rows in
// words, seats by name, cards as cards. Engine fields a player does not read (the bid ladder,
// counters, who called first) stay hidden.

import { SUIT_SYMBOLS, type Contract, type TableState } from "@tricktable/client";
import { type View } from "@tricktable/client/gen/tricktable/v1/views_pb";
import { type Card } from "@tricktable/client/gen/tricktable/v1/cards_pb";
import { type CounterpointDetail, type NinetyNineDetail, type NominationsDetail, type SixtySixDetail } from "@tricktable/client/gen/tricktable/v1/views_pb";
import { SixtySixReason, type DealScored } from "@tricktable/client/gen/tricktable/v1/events_pb";
import { smallFace, suitText } from "./cards";
import { h, type Child } from "./dom";
import { contractText } from "./moves";

type Named = (seat: number) => string;
export type Row = [string, Child];

function cards(list: Card[]): HTMLElement {
  return h("span", { class: "cards" }, ...list.map((c) => smallFace(c)));
}

/** Deals as a score sheet: a row per deal (what decided it, then each seat's points), and the
 * running totals. */
export function scoreSheet(deals: DealScored[], name: Named, id = ""): HTMLElement {
  const seats = deals[0]?.totals.map((_, seat) => seat) ?? [];
  return h("table", { class: "deal", id: id || undefined },
    h("tr", {}, h("th", {}, "deal"), ...seats.map((s) => h("th", {}, name(s)))),
    ...deals.map((deal) => h("tr", { "data-deal": deal.dealNo },
      h("th", {}, String(deal.dealNo), dealWhy(deal, name) ? h("small", { class: "why" }, ` ${dealWhy(deal, name)}`) : null),
      ...seats.map((s) => h("td", {}, `${deal.points[s] > 0 ? "+" : ""}${deal.points[s]}`)))),
    h("tr", { class: "total" }, h("th", {}, "total"), ...seats.map((s) => h("td", {}, String(deals[deals.length - 1]?.totals[s] ?? 0)))));
}

/** What decided a deal, from the game's typed result. */
export function dealWhy(deal: DealScored, name: Named): string {
  const result = deal.result;
  switch (result.case) {
    case "ninetyNine": {
      const r = result.value;
      const made = r.made.flatMap((ok, seat) => (ok ? [name(seat)] : []));
      const premium = r.premiumSeat !== undefined && r.premium ? `; ${name(r.premiumSeat)} ${r.premium}d` : "";
      return `${made.length ? `${made.join(", ")} made the bid` : "nobody made the bid"}${premium}`;
    }
    case "counterpoint":
      return `bids ${result.value.bids.join(" / ")}, took ${result.value.cardPoints.join(" / ")}`;
    case "sixtySix": {
      const why = reasonText(result.value.reason);
      return result.value.scorer !== undefined ? `${why}: ${name(result.value.scorer)} scores` : why;
    }
    case "nominations": {
      const r = result.value;
      if (r.allPassed || r.declarer === undefined) return "everybody passed";
      const times = r.multiplier > 1 ? `, ×${r.multiplier}` : "";
      return `${name(r.declarer)} ${contractText(r.contract ?? "", r.bidTricks)}, ${r.made ? "made" : "missed"}${times}`;
    }
    default:
      return deal.note;
  }
}

function ninetyNine(d: NinetyNineDetail, premium: Contract | null, name: Named): Row[] {
  const rows: Row[] = [["Rules", d.edition === "classic" ? "classic: the turn-up sets trumps" : "revised: trumps follow the last deal"]];
  const calls = d.calls.flatMap((call, seat) => (call.value === undefined ? [] : [`${name(seat)} ${call.value === "pass" ? "passed" : `${call.value}d`}`]));
  if (calls.length) rows.push(["Premium calls", calls.join(", ")]);
  if (d.caller !== undefined) rows.push(["To call", name(d.caller)]);
  if (premium?.contract) {
    rows.push(["Premium", `${name(premium.seat)} ${premium.contract === "reveal" ? "reveals: bid cards and hand face up (60)" : "declares: bid cards face up (30)"}`]);
  }
  if (d.jokerAs?.rank) rows.push(["The Joker counts as", smallFace(d.jokerAs)]);
  return rows;
}

function counterpoint(_d: CounterpointDetail): Row[] {
  return [["Bids", "secret until the deal ends: take as near your bid in card points as you can"]];
}

function sixtySix(d: SixtySixDetail, name: Named): Row[] {
  const stock = d.stockState === "closed" && d.closer !== undefined
    ? `closed by ${name(d.closer)}: follow suit, no more drawing`
    : d.stockState === "exhausted" ? "used up: follow suit from now on" : `${d.stockSize} cards left`;
  const rows: Row[] = [["Stock", stock]];
  for (const m of d.marriages) {
    rows.push(["Marriage", `${name(m.seat)}: ${suitText(m.suit)} (${m.points})${m.counts ? "" : ", counts once they win a trick"}`]);
  }
  if (d.marriageSuit) rows.push(["Lead", `the King or Queen of ${suitText(d.marriageSuit)} (marriage)`]);
  if (d.endWindowSeat !== undefined) rows.push(["To claim or pass", name(d.endWindowSeat)]);
  d.knownCards.forEach((known, seat) => {
    if (known.visible && known.cards.length) rows.push([`${name(seat)} holds`, cards(known.cards)]);
  });
  rows.push(["Match", `first to ${d.targetGamePoints} game points${d.carry ? `; ${d.carry} carried to the next deal` : ""}`]);
  return rows;
}

function partnerWords(d: NominationsDetail, contract: Contract, name: Named): string {
  const declarer = name(contract.seat);
  switch (d.partnerStatus) {
    case "unknown":
      return "unknown until the called card is played";
    case "you_are_partner":
      return `you, secretly: you hold the called card`;
    case "you_hold_called_card":
      return "none: you called your own card and play alone (the others do not know)";
    case "revealed":
      return contract.partner === null ? "" : name(contract.partner);
    case "solo":
      return `none: ${declarer} plays alone`;
    default:
      return "";
  }
}

function nominations(d: NominationsDetail, table: TableState, name: Named): Row[] {
  const rows: Row[] = [];
  const contract = table.contract;
  if (contract?.contract) {
    const trumps = d.noTrump ? "no trump" : table.trump ? `trumps ${SUIT_SYMBOLS[table.trump]}` : "";
    rows.push(["Contract", `${name(contract.seat)}: ${contractText(contract.contract)}${trumps ? `, ${trumps}` : ""}`]);
    if (d.called?.rank) rows.push(["Called card", smallFace(d.called)]);
    const partner = partnerWords(d, contract, name);
    if (partner) rows.push(["Partner", partner]);
    if (d.sideTricks !== undefined) rows.push(["Declarer's side", `${d.sideTricks} tricks`]);
  } else if (d.auction.length || d.highBid) {
    const bids = d.auction.map((call, i) => `${name((d.firstCaller + i) % table.seatCount)} ${call === "pass" ? "passed" : contractText(call)}`);
    rows.push(["Bids", bids.join(", ") || "none yet"]);
    if (d.highBid && d.highBidder !== undefined) rows.push(["Highest", `${name(d.highBidder)}: ${contractText(d.highBid)}`]);
  }
  if (d.multiplier > 1) rows.push(["Double hand", `scores count ×${d.multiplier}`]);
  return rows;
}

/** The game-specific rows of a view, in words: [label, content]. The contract (Nominations')
 * and the premium (Ninety-Nine's), the trumps and the seats are the table model's. */
export function detailRows(view: View, table: TableState, name: Named): Row[] {
  switch (view.detail.case) {
    case "ninetyNineDetail":
      return ninetyNine(view.detail.value, table.contract, name);
    case "counterpointDetail":
      return counterpoint(view.detail.value);
    case "sixtySixDetail":
      return sixtySix(view.detail.value, name);
    case "nominationsDetail":
      return nominations(view.detail.value, table, name);
    default:
      return [];
  }
}

/** The last deal's result, where the view carries one. */
export function lastDeal(view: View): DealScored | undefined {
  const deal = view.detail.value?.lastDeal;
  return deal?.totals.length ? deal : undefined;
}

/** A Sixty-Six deal's reason in words: SIXTY_SIX_REASON_FALSE_OUT is "false out". */
export function reasonText(reason: SixtySixReason): string {
  return (SixtySixReason[reason] ?? String(reason)).toLowerCase().replaceAll("_", " ");
}
