// A seat clock in words. The time left is drawn from the server's deadline, never from this
// machine's clock alone: the client package's ServerTime estimates the server's clock from the
// views, and its timeLeft reads a clock at that time.

import { formatDuration, plainClock, timeLeft } from "@tricktable/client";
import { type SeatClock } from "@tricktable/client/gen/tricktable/v1/clocks_pb";

export function clockText(clock: SeatClock, now: number): string {
  const { move, bank } = timeLeft(plainClock(clock), now);
  const timeouts = clock.timeouts ? ` · ${clock.timeouts} timeout${clock.timeouts === 1 ? "" : "s"}` : "";
  return `move ${formatDuration(move)} · bank ${formatDuration(bank)}${timeouts}`;
}
