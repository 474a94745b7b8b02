// Whole games of all four types through the package against a real `tricktable serve` (its web
// door), every seat played by a client of its own from the legal moves its table offers, one
// seat's table kept by followTable from its view and its events; over each protocol.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { followTable, type NewGame, type Protocol, type TableState } from "../../src/index.js";
import { playToTheEnd, seatEveryone, until } from "../support/play.js";
import { startServer, type RunningServer } from "../support/server.js";

let server: RunningServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

// Short games: one deal, or a target reached in one.
const GAMES: readonly (NewGame & { protocol: Protocol })[] = [
  { gameType: "ninety-nine", options: { game_length_deals: 1 }, protocol: "connect" },
  { gameType: "counterpoint", options: { target_score: 1 }, protocol: "grpc-web" },
  { gameType: "sixty-six", options: { target_game_points: 1 }, protocol: "connect-json" },
  { gameType: "nominations", options: { end_mode: "deals", deal_count: 1 }, protocol: "connect" },
];

/** What the events alone should have brought the table to, beside the view at that version
 * (`view`). The last trick only where the view lists completed tricks: Sixty-Six's views turn
 * them down, its events still tell what was won. */
function eventFacts(state: TableState, view: TableState) {
  return {
    dealNo: state.dealNo,
    trick: state.trick?.plays ?? [],
    lastTrick: view.lastTrick && state.lastTrick && { plays: state.lastTrick.plays, winner: state.lastTrick.winner },
    hand: state.hand,
    handSizes: state.seats.map((s) => s.handSize),
    tricksWon: state.seats.map((s) => s.tricksWon),
    scores: state.scores,
  };
}

describe("whole games through the package", () => {
  for (const game of GAMES) {
    test(`${game.gameType} over ${game.protocol}: played to its end`, async () => {
      const table = await seatEveryone(server.baseUrl, game, game.protocol);
      const gameType = await table.clients[0]!.gameType(game.gameType);
      // Seat 0's table follows the game; each time the events have brought it to a version,
      // the view read at that version must show the same.
      let fromEvents: TableState | undefined;
      const compared = new Set<number>();
      const differed: { version: number; events: unknown; view: unknown }[] = [];
      const feed = await followTable(table.seats[0]!, (state) => {
        if (!state.current) fromEvents = state;
        else if (fromEvents && state.viewVersion === fromEvents.version) {
          const [events, view] = [eventFacts(fromEvents, state), eventFacts(state, state)];
          if (JSON.stringify(events) !== JSON.stringify(view)) differed.push({ version: state.viewVersion, events, view });
          compared.add(state.viewVersion);
        }
      });
      const following = feed.done.then(() => {
        throw new Error("the table stopped following before the game ended");
      });
      // Each move waits until seat 0's table has shown the version it is decided on, so that
      // every version's events reach it before the next move.
      const moves = await playToTheEnd(table, 29, {
        beforeMove: (version) => Promise.race([until(() => feed.state.viewVersion >= version), following]),
      });
      following.catch(() => undefined);
      await feed.done;
      const final = feed.state;
      assert.ok(moves > gameType.seats, `${moves} moves`);
      assert.equal(final.status, "finished");
      assert.ok(final.finished && final.winners.length > 0, "winners named");
      assert.equal(final.seatCount, gameType.seats);
      assert.equal(final.version, (await table.seats[0]!.snapshot()).version);
      assert.deepEqual(final.scores, final.lastDeal?.totals, "the scores are the last deal's totals");
      assert.deepEqual(differed, [], JSON.stringify(differed.map((d) => ({ v: d.version, e: d.events, w: d.view }))));
      assert.equal(compared.size, moves, "the events matched the view at every version a move made");
    });
  }
});
