// followTable's options against a real `tricktable serve`: a stream begun before the view (an
// event log kept across a reload), every batch handed over, the game read again while it runs,
// the table followed on as another seat, and a refusal ending the whole following.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { followTable, layAside, memoryStorage, TricktableClient, TricktableError, type StreamEventsResponse, type TableState } from "../../src/index.js";
import { chooseMove, seatEveryone, seeded, tableOf, until } from "../support/play.js";
import { startServer, type RunningServer } from "../support/server.js";

let server: RunningServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const browser = (): TricktableClient => new TricktableClient({ baseUrl: server.baseUrl, storage: memoryStorage() });

describe("followTable's options", () => {
  test("fromVersion 0: every batch from the first reaches onEvents, those the view shows leaving the table as it was", async () => {
    const table = await seatEveryone(server.baseUrl, { gameType: "counterpoint", seed: "from-zero" });
    const random = seeded(3);
    for (const seat of table.seats) {
      const state = await tableOf(seat);
      await seat.move(chooseMove(state, random)!, state.viewVersion); // both lay their bids aside
    }
    const now = (await table.seats[0]!.snapshot()).version;
    assert.ok(now >= 2, `version ${now}`);
    const batches: number[] = [];
    const tables: TableState[] = [];
    const feed = await followTable(table.seats[0]!, (state) => tables.push(state), {
      fromVersion: 0,
      onEvents: (batch: StreamEventsResponse, given) => {
        assert.equal(given.state.viewVersion, now, "handed over before the table takes it");
        batches.push(Number(batch.version));
      },
    });
    try {
      await until(() => batches.length === now + 1);
      assert.deepEqual(batches, [...Array(now + 1).keys()], "each version once, in order, from the first");
      assert.equal(tables.length, 1, "the replayed versions are the view's already: no new table");
      assert.ok(feed.state.current && feed.state.viewVersion === now);
      assert.equal(feed.view.phase, feed.state.phase, "the view the table took");
      assert.equal(feed.game.gameType, "counterpoint");
      // A move made now comes to onEvents and to the table, as a view read again.
      const mover = table.seats.find((_, i) => feed.state.toAct.includes(i))!;
      const state = await tableOf(mover);
      await mover.move(chooseMove(state, random)!, state.viewVersion);
      await until(() => feed.state.viewVersion === now + 1 && feed.state.current);
      assert.deepEqual(batches.slice(now), [now, now + 1]);
    } finally {
      feed.stop();
      await feed.done;
    }
  });

  test("presencePollMs: the running game is read again while nothing happens; without it, it is not", async () => {
    const table = await seatEveryone(server.baseUrl, { gameType: "counterpoint" });
    const counted = async (presencePollMs?: number): Promise<number> => {
      let reads = 0;
      const feed = await followTable(table.seats[0]!, () => undefined, { presencePollMs, onRead: () => (reads += 1) });
      assert.equal(feed.state.status, "playing");
      await pause(400);
      feed.stop();
      await feed.done;
      assert.ok(feed.state.seats.every((s) => s.connected !== null), "the views say who is connected");
      return reads;
    };
    assert.ok((await counted(50)) >= 4, "read again every 50 ms");
    assert.equal(await counted(), 1, "only the first read");
  });

  test("switchSession: a spectator takes a seat and the table follows on as that seat, nothing received twice", async () => {
    const host = browser();
    const game = await host.createGame({ gameType: "counterpoint" });
    const first = await host.join(game.gameId, { playerName: "Ada" });
    const other = browser();
    const versions: number[] = [];
    const feed = await followTable(other.watch(game.gameId), () => undefined, {
      waitingPollMs: 50,
      onEvents: (batch) => versions.push(Number(batch.version)),
    });
    try {
      assert.equal(feed.state.viewer, null);
      const seat = await other.join(game.gameId, { playerName: "Bo" });
      await feed.switchSession(seat);
      assert.equal(feed.session, seat);
      assert.equal(feed.state.viewer, 1, "read again as the seat sees it");
      await until(() => feed.state.status === "playing" && feed.state.current && feed.state.hand.length > 0);
      // Ada lays her bid aside: the seat's stream brings it.
      const ada = await tableOf(first);
      await first.move(chooseMove(ada, seeded(1))!, ada.viewVersion);
      await until(() => feed.state.seats[0]!.asideCount === 3 && feed.state.current);
      // The seat moves through the table.
      const offer = feed.state.legal.layAside!;
      await feed.move(layAside(offer, offer.cards.slice(0, offer.count)));
      assert.equal(feed.state.seats[1]!.asideCount, 3, "the answer's view, at once");
      await until(() => versions.includes(feed.state.viewVersion));
      // Back to watching: the hand is no longer shown.
      await feed.switchSession(other.watch(game.gameId));
      assert.equal(feed.state.viewer, null);
      assert.deepEqual(feed.state.hand, []);
      assert.deepEqual(versions, [...new Set(versions)].sort((a, b) => a - b), "each version once, in order");
    } finally {
      feed.stop();
      await feed.done;
    }
  });

  test("a refusal ends the following, stream and polls alike: done rejects with it", async () => {
    const host = browser();
    const game = await host.createGame({ gameType: "counterpoint" });
    const seat = await host.join(game.gameId, { playerName: "Ada" });
    let reads = 0;
    const feed = await followTable(seat, () => undefined, { waitingPollMs: 20, onRead: () => (reads += 1) });
    const ended = feed.done.then(
      () => assert.fail("the following went on"),
      (err: unknown) => err,
    );
    await seat.leave(); // while seats are open the seat is freed: its token no longer good
    const refused = await ended;
    assert.ok(refused instanceof TricktableError, String(refused));
    assert.ok(["Unauthenticated", "PermissionDenied"].includes(refused.codeName), refused.codeName);
    const after = reads;
    await pause(200);
    assert.equal(reads, after, "nothing read once refused");
  });
});
