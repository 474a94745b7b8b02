// What is special to each game (View.detail), drawn from the message itself: every field is
// shown by its name, seats by their player's name, cards as cards, suits as symbols. A field a
// game adds later appears without a change here.

import { type View } from "./gen/tricktable/v1/views_pb";
import { type Card, type SeatCards } from "./gen/tricktable/v1/cards_pb";
import { SixtySixReason, type DealScored } from "./gen/tricktable/v1/events_pb";
import { cardFace, suitText } from "./cards";
import { h, type Child } from "./dom";

const SEAT_FIELDS = new Set([
  "eldest", "caller", "premiumSeat", "nonDealer", "closer", "endWindowSeat", "firstCaller",
  "highBidder", "declarer", "partner", "cutter", "seat",
]);
const SUIT_FIELDS = new Set(["trump", "marriageSuit", "suit"]);
const LABELS: Record<string, string> = { premium: "premium call", closerOpponentTricks: "opponent's tricks at close" };

type Named = (seat: number) => string;
type Fields = Record<string, unknown> & { $typeName?: string };

function label(field: string): string {
  return LABELS[field] ?? field.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

function isMessage(value: unknown, type?: string): value is Fields {
  return typeof value === "object" && value !== null && "$typeName" in value && (type === undefined || (value as Fields).$typeName === type);
}

function cards(list: Card[]): HTMLElement {
  return h("span", { class: "cards" }, ...list.map((c) => cardFace(c)));
}

/** A deal's result: the game's typed result (DealScored.result), a row per field, beside the
 * points and totals every game has. */
function dealTable(deal: DealScored, name: Named): HTMLElement {
  const seats = deal.totals.map((_, seat) => seat);
  const row = (title: string, cell: (seat: number) => Child) => h("tr", {}, h("th", {}, title), ...seats.map((s) => h("td", {}, cell(s))));
  const whole = (title: string, content: Child) => h("tr", {}, h("th", {}, title), h("td", { colspan: seats.length }, content));
  const result = deal.result.case === undefined ? [] : resultRows(deal.result.value as unknown as Fields, seats.length, name, row, whole);
  return h(
    "table",
    { class: "deal" },
    h("tr", {}, h("th", {}, `deal ${deal.dealNo}`), ...seats.map((s) => h("th", {}, name(s)))),
    ...result,
    row("points", (s) => deal.points[s]),
    row("total", (s) => deal.totals[s]),
  );
}

function resultRows(
  result: Fields,
  seats: number,
  name: Named,
  row: (title: string, cell: (seat: number) => Child) => HTMLElement,
  whole: (title: string, content: Child) => HTMLElement,
): HTMLElement[] {
  const rows: HTMLElement[] = [];
  for (const [field, v] of Object.entries(result)) {
    if (field.startsWith("$")) continue;
    if (Array.isArray(v) && v.length === seats) {
      rows.push(row(label(field), (s) => value(field, v[s], name) ?? (typeof v[s] === "boolean" ? "no" : "—")));
    } else if (field === "reason" && typeof v === "number") {
      rows.push(whole("reason", reasonText(v)));
    } else {
      const shown = value(field, v, name);
      if (shown !== null) rows.push(whole(label(field), shown));
    }
  }
  return rows;
}

function value(field: string, v: unknown, name: Named): Child {
  if (v === undefined || v === "" || (Array.isArray(v) && v.length === 0)) return null;
  if (typeof v === "number" && SEAT_FIELDS.has(field)) return name(v);
  if (typeof v === "number" && SUIT_FIELDS.has(field)) return v ? suitText(v) : null;
  if (typeof v === "boolean") return v ? "yes" : null;
  if (typeof v === "number" || typeof v === "string" || typeof v === "bigint") return String(v);
  if (isMessage(v, "tricktable.v1.Card")) return (v as unknown as Card).rank ? cardFace(v as unknown as Card) : null;
  if (isMessage(v, "tricktable.v1.DealScored")) return (v as unknown as DealScored).totals.length ? dealTable(v as unknown as DealScored, name) : null;
  if (isMessage(v, "tricktable.v1.SeatCards")) return (v as unknown as SeatCards).visible ? cards((v as unknown as SeatCards).cards) : "hidden";
  if (isMessage(v) && v.$typeName?.startsWith("tricktable.v1.Optional")) return v.value === undefined ? "—" : String(v.value);
  if (Array.isArray(v)) {
    if (field === "calls" || field === "knownCards") {
      return h("span", {}, ...v.map((item, seat) => h("span", { class: "per-seat" }, `${name(seat)}: `, value(field, item, name) ?? "—")));
    }
    return h("span", { class: "list" }, ...v.map((item) => h("span", { class: "item" }, value(field, item, name))));
  }
  if (isMessage(v)) return h("span", { class: "nested" }, ...fieldRows(v, name).map(([k, c]) => h("span", { class: "item" }, `${k} `, c)));
  return null;
}

function fieldRows(message: Fields, name: Named): [string, Child][] {
  const rows: [string, Child][] = [];
  for (const [field, v] of Object.entries(message)) {
    if (field.startsWith("$")) continue;
    const shown = value(field, v, name);
    if (shown !== null) rows.push([label(field), shown]);
  }
  return rows;
}

/** The game-specific rows of a view: [label, content]. */
export function detailRows(view: View, name: Named): [string, Child][] {
  return view.detail.case === undefined ? [] : fieldRows(view.detail.value as unknown as Fields, name);
}

/** A Sixty-Six deal's reason in words: SIXTY_SIX_REASON_FALSE_OUT is "false out". */
export function reasonText(reason: SixtySixReason): string {
  return (SixtySixReason[reason] ?? String(reason)).toLowerCase().replaceAll("_", " ");
}
