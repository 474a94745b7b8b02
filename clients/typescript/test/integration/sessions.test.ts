// Seats, the lobby, refusals and the event stream through the package against a real
// `tricktable serve`: a dropped connection resumed from the last version, a reload that finds
// its seat and version in the storage, and refused moves with their reasons.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { followTable, memoryStorage, timeLeft, TricktableClient, TricktableError, type ErrorReasonName, type StreamEventsResponse } from "../../src/index.js";
import { chooseMove, seatEveryone, seeded, tableOf, until, type Table } from "../support/play.js";
import { startProxy, startServer, type RunningServer } from "../support/server.js";

let server: RunningServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

/** The error `run` fails with (it must fail). */
async function refusal(run: () => Promise<unknown>): Promise<TricktableError> {
  try {
    await run();
  } catch (err) {
    assert.ok(err instanceof TricktableError, `a TricktableError, not ${String(err)}`);
    return err;
  }
  assert.fail("the call was not refused");
}

/** One legal move by whichever seat must act; false once the game has ended. */
async function step(table: Table, random: () => number): Promise<boolean> {
  for (const session of table.seats) {
    const state = await tableOf(session);
    if (state.finished) return false;
    if (state.yourTurn) {
      await session.move(chooseMove(state, random)!, state.viewVersion);
      return true;
    }
  }
  return true;
}

describe("the lobby and seats", () => {
  test("create, list, join, leave: the seat's token kept in the storage, and forgotten", async () => {
    const storage = memoryStorage();
    const client = new TricktableClient({ baseUrl: server.baseUrl, storage });
    const game = await client.createGame({ gameType: "counterpoint", options: { target_score: 5 } });
    assert.equal(game.status, "waiting");
    assert.equal(game.options["target_score"], 5);
    const listed = await client.listGames({ gameType: "counterpoint", pageSize: 100 });
    assert.ok(listed.games.some((g) => g.gameId === game.gameId));

    const session = await client.join(game.gameId, { playerName: "Ada" });
    assert.equal(session.seat, 0);
    const again = new TricktableClient({ baseUrl: server.baseUrl, storage }).resume(game.gameId);
    assert.deepEqual([again?.seat, again?.token], [0, session.token]);
    const seen = await again!.snapshot();
    assert.equal(seen.game.seats[0]?.playerName, "Ada");
    assert.equal(seen.game.seats[0]?.taken, true);

    const left = await session.leave();
    assert.equal(left.status, "waiting");
    assert.equal(left.seats[0]?.taken, false);
    assert.equal(client.resume(game.gameId), null, "leaving an open game forgets the seat");
  });

  test("a table waiting for players follows the game once the last seat is taken", async () => {
    const host = new TricktableClient({ baseUrl: server.baseUrl });
    const game = await host.createGame({ gameType: "counterpoint" });
    const first = await host.join(game.gameId, { playerName: "Ada" });
    const feed = await followTable(first, () => undefined, { waitingPollMs: 100 });
    try {
      assert.equal(feed.state.status, "waiting");
      assert.deepEqual(feed.state.seats.map((s) => s.taken), [true, false]);
      await new TricktableClient({ baseUrl: server.baseUrl }).join(game.gameId, { playerName: "Bo" });
      await until(() => feed.state.status === "playing" && feed.state.current);
      assert.deepEqual(feed.state.seats.map((s) => s.playerName), ["Ada", "Bo"]);
      assert.equal(feed.state.hand.reduce((n, row) => n + row.cards.length, 0), feed.state.seats[0]!.handSize, "the hand is dealt");
      assert.ok(feed.state.yourTurn, "both seats lay their bids aside");
      assert.ok(feed.state.legal.layAside, "as one compact offer");
    } finally {
      feed.stop();
      await feed.done;
    }
  });

  test("an option the game does not have is refused by name, and a game nobody has", async () => {
    const client = new TricktableClient({ baseUrl: server.baseUrl });
    const unknown = await refusal(() => client.createGame({ gameType: "counterpoint", options: { no_such_option: 1 } }));
    assert.equal(unknown.reason satisfies ErrorReasonName | null, "UNKNOWN_OPTION");
    assert.equal(unknown.codeName, "InvalidArgument");
    const missing = await refusal(() => client.watch("no-such-game").snapshot());
    assert.equal(missing.reason, "GAME_NOT_FOUND");
    assert.equal(missing.codeName, "NotFound");
  });
});

describe("refused moves", () => {
  test("another seat's turn, an old version and a card the rules forbid: each refused with its reason, changing nothing", async () => {
    const table = await seatEveryone(server.baseUrl, { gameType: "counterpoint", options: { first_dealer: "seat0" }, seed: "refusals" });
    const random = seeded(7);
    // Play on until cards are played (the bids are laid aside together) and one seat waits.
    for (;;) {
      const states = await Promise.all(table.seats.map(tableOf));
      const mover = states.find((s) => s.yourTurn && s.legal.moves.every((m) => m.kind === "playCard") && s.legal.moves.length);
      const waiting = states.find((s) => !s.yourTurn);
      if (mover && waiting) {
        const card = waiting.hand[0]!.cards[0]!;
        const notYours = await refusal(() => table.seats[waiting.viewer!]!.move({ kind: "playCard", card }, waiting.viewVersion));
        assert.equal(notYours.reason, "NOT_YOUR_TURN");
        assert.equal(notYours.codeName, "FailedPrecondition");
        const stale = await refusal(() => table.seats[mover.viewer!]!.move(mover.legal.moves[0]!, mover.viewVersion - 1));
        assert.equal(stale.reason, "STALE_VERSION");
        assert.ok(stale.stale);
        assert.equal(Number(stale.metadata["current_version"]), mover.viewVersion, "the current version comes with it");
        break;
      }
      assert.ok(await step(table, random), "the game ended before a card was played");
    }

    // Play on until a seat must follow suit and holds a card it may not play.
    for (;;) {
      const states = await Promise.all(table.seats.map(tableOf));
      const mover = states.find((s) => s.yourTurn)!;
      const forbidden = mover.hand
        .flatMap((row) => row.cards)
        .find((card) => mover.legal.moves.length > 0 && !mover.legal.moves.some((m) => m.kind === "playCard" && m.card.suit === card.suit && m.card.rank === card.rank));
      if (mover.legal.moves.every((m) => m.kind === "playCard") && forbidden && mover.trick?.plays.length) {
        const refused = await refusal(() => table.seats[mover.viewer!]!.move({ kind: "playCard", card: forbidden }, mover.viewVersion));
        assert.ok(["MUST_FOLLOW_SUIT", "MUST_TRUMP", "MUST_BEAT"].includes(refused.reason ?? ""), `${refused.rawReason}: ${refused.serverMessage}`);
        assert.equal((await tableOf(table.seats[0]!)).version, mover.viewVersion, "the refused move changed nothing");
        return;
      }
      assert.ok(await step(table, random), "the game ended before a seat had to follow suit");
    }
  });
});

describe("the event stream", () => {
  test("a dropped connection is resumed from the last version: every version once, in order", async () => {
    const proxy = await startProxy(server.webPort);
    try {
      const table = await seatEveryone(server.baseUrl, { gameType: "counterpoint", options: { target_score: 1 } });
      // Seat 0 follows the game through the proxy, whose connections the test cuts.
      const viaProxy = new TricktableClient({ baseUrl: proxy.baseUrl, storage: table.clients[0]!.storage });
      const watcher = viaProxy.resume(table.gameId)!;
      const received: StreamEventsResponse[] = [];
      const drops: number[] = [];
      const stream = (async () => {
        for await (const batch of watcher.events({ fromVersion: 0, retryMs: 50, onDrop: (_, from) => drops.push(from) })) received.push(batch);
      })();
      const random = seeded(3);
      const last = () => Number(received[received.length - 1]?.version ?? -1);
      for (let moves = 0; moves < 6; moves++) await step(table, random);
      const before = (await tableOf(table.seats[0]!)).version;
      await until(() => last() >= before);
      proxy.cut();
      await until(() => drops.length > 0);
      while (await step(table, random)); // to the end, while the stream resumes
      await stream; // ends after the game's last event
      const versions = received.map((b) => Number(b.version));
      const final = (await tableOf(table.seats[0]!)).version;
      assert.deepEqual(versions, [...Array(final + 1).keys()], "each version once, in order");
      assert.equal(drops[0], before + 1, "resumed from the version after the last one received");
      assert.ok(proxy.connections >= 2, "a new connection after the cut");
      assert.equal(watcher.lastVersion(), final, "the last version is in the storage");
    } finally {
      await proxy.close();
    }
  });

  test("a reload finds its seat and the last version in the storage, and resumes after it", async () => {
    const table = await seatEveryone(server.baseUrl, { gameType: "nominations" });
    const storage = table.clients[1]!.storage; // seat 1's browser
    const random = seeded(5);
    for (let moves = 0; moves < 3; moves++) await step(table, random);
    const upTo = (await tableOf(table.seats[1]!)).version;
    const stop = new AbortController();
    for await (const batch of table.seats[1]!.events({ signal: stop.signal })) {
      if (Number(batch.version) === upTo) stop.abort(); // the tab closes here
    }
    await step(table, random);
    const reloaded = new TricktableClient({ baseUrl: server.baseUrl, storage }).resume(table.gameId);
    assert.equal(reloaded?.seat, 1);
    assert.equal(reloaded.lastVersion(), upTo);
    const events = reloaded.events();
    const next = await events.next();
    await events.return(); // the tab closes again: the stream ends
    assert.equal(Number(next.value?.version), upTo + 1, "the stream goes on after the last version seen");
  });
});

describe("clocks", () => {
  test("a clocked game's table carries each seat's clock, and the server's time is learned from it", async () => {
    const timeControl = { moveMs: 600_000, bankMs: 60_000, onTimeout: "auto-move" as const };
    const table = await seatEveryone(server.baseUrl, { gameType: "sixty-six", timeControl });
    const feed = await followTable(table.seats[0]!, () => undefined);
    try {
      await until(() => feed.state.status === "playing" && feed.state.toAct.length > 0);
      const state = feed.state;
      const acting = state.seats.find((s) => s.toAct)!;
      assert.ok(acting.clock?.running && acting.clock.deadlineMs > 0, "the acting seat's clock runs");
      const waiting = state.seats.find((s) => !s.toAct)!;
      assert.deepEqual(waiting.clock && [waiting.clock.running, waiting.clock.moveMsLeft, waiting.clock.bankMsLeft], [false, 600_000, 60_000]);
      assert.ok(feed.serverTime.known, "learned from the running clock");
      const left = timeLeft(acting.clock, feed.serverTime.now());
      assert.equal(left.bank, 60_000, "the bank waits behind the move time");
      assert.ok(left.move <= 600_000);
      const info = (await table.seats[0]!.snapshot()).game.timeControl;
      assert.deepEqual(info && [info.moveMs, info.bankMs, info.onTimeout], [600_000, 60_000, "auto-move"]);
    } finally {
      feed.stop();
      await feed.done;
    }
  });
});
