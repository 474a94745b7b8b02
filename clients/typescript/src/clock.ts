// Seat clocks drawn from the server's deadlines, never from this machine's clock alone.
//
// A running clock has a deadline in server time (milliseconds since the Unix epoch). When a view
// arrives, the server's "now" was the deadline minus the time it said was left, so
//   offset = (deadline_ms - move_ms_left - bank_ms_left) - local time at arrival
// (a little low by the answer's travel time: a clock shows a few milliseconds too many, never
// too few). Time left is then deadline_ms - (local now + offset).

import { type SeatClock } from "./gen/tricktable/v1/clocks_pb.js";
import { type View } from "./gen/tricktable/v1/views_pb.js";

/** One seat's clock as plain numbers (milliseconds). */
export interface ClockState {
  readonly running: boolean;
  /** Move time left when the view was made (the full move time while stopped). */
  readonly moveMsLeft: number;
  readonly bankMsLeft: number;
  /** When the running clock runs out, in server time; 0 while stopped. */
  readonly deadlineMs: number;
  readonly timeouts: number;
}

export function plainClock(clock: SeatClock): ClockState {
  return {
    running: clock.running,
    moveMsLeft: Number(clock.moveMsLeft),
    bankMsLeft: Number(clock.bankMsLeft),
    deadlineMs: Number(clock.deadlineMs),
    timeouts: clock.timeouts,
  };
}

/** The estimate of the server's clock. */
export class ServerTime {
  /** Server time minus local time, in milliseconds (0 until a running clock told us). */
  offsetMs = 0;
  /** Whether a running clock has told us the offset. */
  known = false;

  constructor(private readonly localNow: () => number = Date.now) {}

  /** Learn the offset from a view that has just arrived. A clock at zero only says the server
   * is past its deadline, so it teaches nothing. */
  learn(view: View, arrivedAt: number = this.localNow()): void {
    for (const clock of view.clocks) {
      const left = Number(clock.moveMsLeft + clock.bankMsLeft);
      if (clock.running && left > 0) {
        this.offsetMs = Number(clock.deadlineMs) - left - arrivedAt;
        this.known = true;
        return;
      }
    }
  }

  /** The server's time now, as well as it is known. */
  now(): number {
    return this.localNow() + this.offsetMs;
  }
}

/** The move time and bank a clock has left at server time `now`. While the move time lasts the
 * bank is untouched, so the bank the view reported is what stands behind the move time. */
export function timeLeft(clock: ClockState, now: number): { move: number; bank: number } {
  if (!clock.running) return { move: clock.moveMsLeft, bank: clock.bankMsLeft };
  const left = Math.max(0, clock.deadlineMs - now);
  return { move: Math.max(0, left - clock.bankMsLeft), bank: Math.min(left, clock.bankMsLeft) };
}

/** "1:05", or "0:04.3" under ten seconds, where tenths matter. */
export function formatDuration(ms: number): string {
  const clamped = Math.max(0, ms);
  const minutes = Math.floor(clamped / 60_000);
  const seconds = (clamped % 60_000) / 1000;
  if (minutes === 0 && seconds < 10) return `0:0${seconds.toFixed(1)}`;
  return `${minutes}:${String(Math.floor(seconds)).padStart(2, "0")}`;
}
