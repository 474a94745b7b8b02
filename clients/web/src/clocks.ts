// Seat clocks drawn from the server's deadline, never from this machine's clock alone.
//
// A running clock has a deadline in server time (milliseconds since the Unix epoch). The page
// keeps the difference between the server's clock and Date.now(): when a view arrives, the
// server's "now" was its deadline minus the time it said was left, so
//   offset = (deadline_ms - move_ms_left - bank_ms_left) - Date.now() at arrival
// (a little low by the answer's travel time: the page shows a few milliseconds too many, never
// too few). Time left is then deadline_ms - (Date.now() + offset).

import { type SeatClock } from "./gen/tricktable/v1/clocks_pb";
import { type View } from "./gen/tricktable/v1/views_pb";

export class ServerTime {
  /** Server time minus Date.now(), in milliseconds (0 until a running clock told us). */
  offsetMs = 0;

  /** Learn the offset from a view that has just arrived. A clock already at zero only says the
   * server is past its deadline, so it teaches nothing. */
  learn(view: View, arrivedAt: number = Date.now()): void {
    for (const clock of view.clocks) {
      const left = Number(clock.moveMsLeft + clock.bankMsLeft);
      if (clock.running && left > 0) {
        this.offsetMs = Number(clock.deadlineMs) - left - arrivedAt;
        return;
      }
    }
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }
}

/** "1:05" (or "0:04.3" under ten seconds, where tenths matter). */
export function duration(ms: number): string {
  const clamped = Math.max(0, ms);
  const minutes = Math.floor(clamped / 60_000);
  const seconds = (clamped % 60_000) / 1000;
  if (minutes === 0 && seconds < 10) return `0:0${seconds.toFixed(1)}`;
  return `${minutes}:${String(Math.floor(seconds)).padStart(2, "0")}`;
}

/** The move time and bank a clock has left at server time `now`. While the move time lasts the
 * bank is untouched, so the bank the view reported is what stands behind the move time. */
export function timeLeft(clock: SeatClock, now: number): { move: number; bank: number } {
  const bank = Number(clock.bankMsLeft);
  if (!clock.running) return { move: Number(clock.moveMsLeft), bank };
  const left = Math.max(0, Number(clock.deadlineMs) - now);
  return { move: Math.max(0, left - bank), bank: Math.min(left, bank) };
}

export function clockText(clock: SeatClock, now: number): string {
  const { move, bank } = timeLeft(clock, now);
  const timeouts = clock.timeouts ? ` · ${clock.timeouts} timeout${clock.timeouts === 1 ? "" : "s"}` : "";
  return `move ${duration(move)} · bank ${duration(bank)}${timeouts}`;
}
