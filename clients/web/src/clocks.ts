// A seat clock in words. The time left is drawn from the server's deadline, never from this
// machine's clock alone: the client package's ServerTime estimates the server's clock from the
// views, and its timeLeft reads a seat's clock (the table model's) at that time.

import { formatDuration, timeLeft, type ClockState } from "@tricktable/client";

export function clockText(clock: ClockState, now: number): string {
  const { move, bank } = timeLeft(clock, now);
  const timeouts = clock.timeouts ? ` · ${clock.timeouts} timeout${clock.timeouts === 1 ? "" : "s"}` : "";
  return `move ${formatDuration(move)} · bank ${formatDuration(bank)}${timeouts}`;
}
