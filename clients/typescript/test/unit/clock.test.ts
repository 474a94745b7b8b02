import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ViewSchema } from "../../src/gen/tricktable/v1/views_pb.js";
import { formatDuration, plainClock, ServerTime, timeLeft } from "../../src/index.js";

test("server time is learned from a running clock's deadline, whatever this machine's clock says", () => {
  let local = 1_000;
  const time = new ServerTime(() => local);
  assert.equal(time.known, false);
  // The server's now was 50_000: its deadline 80_000 with 20 s of move time and 10 s of bank left.
  const view = create(ViewSchema, {
    clocks: [
      { seat: 0, running: false, moveMsLeft: 30_000n, bankMsLeft: 60_000n },
      { seat: 1, running: true, moveMsLeft: 20_000n, bankMsLeft: 10_000n, deadlineMs: 80_000n },
    ],
  });
  time.learn(view);
  assert.ok(time.known);
  assert.equal(time.now(), 50_000);
  local += 25_000;
  assert.equal(time.now(), 75_000);
  const clock = plainClock(view.clocks[1]!);
  assert.deepEqual(timeLeft(clock, time.now()), { move: 0, bank: 5_000 }, "the move time is gone, the bank runs");
  assert.deepEqual(timeLeft(clock, 55_000), { move: 15_000, bank: 10_000 }, "the bank waits behind the move time");
  assert.deepEqual(timeLeft(clock, 99_000), { move: 0, bank: 0 });
  assert.deepEqual(timeLeft(plainClock(view.clocks[0]!), 1e12), { move: 30_000, bank: 60_000 }, "a stopped clock keeps its time");
});

test("a clock at zero teaches nothing", () => {
  const time = new ServerTime(() => 5);
  time.learn(create(ViewSchema, { clocks: [{ seat: 0, running: true, deadlineMs: 10n }] }));
  assert.equal(time.known, false);
  assert.equal(time.now(), 5);
});

test("durations as a person reads them", () => {
  assert.equal(formatDuration(65_000), "1:05");
  assert.equal(formatDuration(4_300), "0:04.3");
  assert.equal(formatDuration(-5), "0:00.0");
});
