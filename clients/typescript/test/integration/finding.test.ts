// Finding a game through the package against a real `tricktable serve`: quick play seating two
// players at one game, an unlisted table joined with its code and refused after the code is
// revoked, reserved seats, the lobby's games in play, and a rematch followed by every seat to
// the next game, each one seat on.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { followTable, memoryStorage, TricktableClient, TricktableError, type GameSession, type QuickPlayUpdate, type RematchState } from "../../src/index.js";
import { chooseMove, playToTheEnd, seatEveryone, seeded, tableOf } from "../support/play.js";
import { startServer, type RunningServer } from "../support/server.js";

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

const browser = (): TricktableClient => new TricktableClient({ baseUrl: server.baseUrl, storage: memoryStorage() });

describe("quick play", () => {
  test("two players queueing for the same game are seated at one game, each with its seat kept", async () => {
    const ada = browser();
    const bo = browser();
    const told: Record<string, QuickPlayUpdate[]> = { ada: [], bo: [] };
    const wait = async (client: TricktableClient, name: string) => {
      for await (const update of client.quickPlay({ gameType: "counterpoint", options: { target_score: 3 }, playerName: name })) {
        told[name.toLowerCase()]!.push(update);
        if (update.kind === "queued") assert.equal(client.quickPlayTicket()?.ticket, update.ticket, "the ticket is kept while it waits");
      }
    };
    const first = wait(ada, "Ada");
    // Bo queues once Ada waits: then the two make a table.
    while (told["ada"]!.length === 0) await new Promise((r) => setTimeout(r, 10));
    await Promise.all([first, wait(bo, "Bo")]);
    const matched = Object.values(told).map((updates) => updates[updates.length - 1]!);
    assert.ok(matched.every((u) => u.kind === "matched"), "each is told its seat last");
    const [a, b] = matched as Extract<QuickPlayUpdate, { kind: "matched" }>[];
    assert.equal(a!.gameId, b!.gameId, "at one game");
    assert.deepEqual([a!.seat, b!.seat].sort(), [0, 1], "in different seats");
    assert.equal(told["ada"]![0]!.kind, "queued", "the ticket comes first");
    assert.equal(ada.quickPlayTicket(), null, "a seated ticket is forgotten");
    assert.equal(ada.resume(a!.gameId)?.token, a!.session.token, "the seat is in the storage");
    const snap = await a!.session.snapshot();
    assert.equal(snap.game.status, "playing");
    assert.deepEqual(snap.game.seats.map((s) => s.playerName).sort(), ["Ada", "Bo"]);
    assert.equal(snap.game.options["target_score"], 3, "the options queued for");
    assert.equal(snap.view.viewer, a!.seat, "the token is the seat's");
  });

  test("a cancelled ticket leaves the queue: resuming it is refused (UNKNOWN_TICKET) and it is forgotten", async () => {
    const client = browser();
    const stop = new AbortController();
    let ticket = "";
    for await (const update of client.quickPlay({ gameType: "nominations", playerName: "Cy" }, { signal: stop.signal })) {
      if (update.kind === "queued") {
        ticket = update.ticket;
        break; // the page stops waiting (the stream is closed)
      }
    }
    assert.ok(ticket);
    assert.equal(client.quickPlayTicket()?.gameType, "nominations");
    assert.equal(await client.cancelQuickPlay(ticket), true);
    assert.equal(client.quickPlayTicket(), null);
    client.storage.setItem("tricktable.quickplay", JSON.stringify({ ticket, gameType: "nominations", playerName: "Cy" }));
    const gone = await refusal(async () => {
      for await (const update of client.quickPlay({ ticket })) void update;
    });
    assert.equal(gone.reason, "UNKNOWN_TICKET");
    assert.equal(client.quickPlayTicket(), null, "a ticket the queue no longer has is forgotten");
  });
});

describe("unlisted tables", () => {
  test("joined with the invite code only, never listed, and refused once the code is revoked", async () => {
    const host = browser();
    const game = await host.createGame({ gameType: "counterpoint", visibility: "unlisted" });
    assert.equal(game.visibility, "unlisted");
    assert.ok(game.inviteCode && game.inviteCode.length >= 22, "a code too long to guess");
    const lobby = await browser().listGames({ gameType: "counterpoint", pageSize: 100 });
    assert.ok(!lobby.games.some((g) => g.gameId === game.gameId), "not in the lobby");

    const without = await refusal(() => browser().join(game.gameId, { playerName: "Eve" }));
    assert.equal(without.reason, "INVALID_INVITE");
    const friend = await browser().join(game.gameId, { playerName: "Ada", inviteCode: game.inviteCode });
    assert.equal(friend.seat, 0);

    assert.equal(await host.revokeInvite(game.gameId, game.inviteCode), null, "no new code unless asked");
    const late = browser();
    const revoked = await refusal(() => late.join(game.gameId, { playerName: "Bo", inviteCode: game.inviteCode! }));
    assert.equal(revoked.reason, "INVALID_INVITE");
    assert.equal(late.resume(game.gameId), null, "a refused join keeps nothing");
    const seen = await friend.snapshot();
    assert.deepEqual(seen.game.seats.map((s) => s.taken), [true, false], "the refused join changed nothing");
    assert.equal(seen.summary.gameId, game.gameId, "the protocol's summary comes with the snapshot");
  });

  test("a reissued code replaces the old one; a reserved seat is taken with its own code", async () => {
    const host = browser();
    const game = await host.createGame({ gameType: "counterpoint", visibility: "unlisted", reservedSeats: [1] });
    assert.deepEqual(game.reservedSeats, [1]);
    const seatCode = game.seatInviteCodes[1];
    assert.ok(seatCode && seatCode !== game.inviteCode);
    const fresh = await host.revokeInvite(game.gameId, game.inviteCode!, { reissue: true });
    assert.ok(fresh && fresh !== game.inviteCode);
    assert.equal((await refusal(() => browser().join(game.gameId, { inviteCode: game.inviteCode! }))).reason, "INVALID_INVITE");
    const invitee = await browser().join(game.gameId, { playerName: "Bo", inviteCode: seatCode });
    assert.equal(invitee.seat, 1, "the reserved seat");
    const other = await browser().join(game.gameId, { playerName: "Ada", inviteCode: fresh });
    assert.equal(other.seat, 0);
  });
});

describe("the lobby's games in play", () => {
  test("listGames({ status: 'playing' }) lists a public game being played, not one waiting", async () => {
    const table = await seatEveryone(server.baseUrl, { gameType: "sixty-six" });
    const waiting = await browser().createGame({ gameType: "sixty-six" });
    const playing = await browser().listGames({ gameType: "sixty-six", status: "playing", pageSize: 100 });
    const found = playing.games.find((g) => g.gameId === table.gameId);
    assert.equal(found?.status, "playing");
    assert.ok(!playing.games.some((g) => g.gameId === waiting.gameId));
    assert.equal(playing.summaries.find((s) => s.gameId === table.gameId)?.seats.length, 2, "the summaries beside the plain games");
    const open = await browser().listGames({ gameType: "sixty-six", status: "waiting", pageSize: 100 });
    assert.ok(open.games.some((g) => g.gameId === waiting.gameId));
    assert.ok(!open.games.some((g) => g.gameId === table.gameId));
  });
});

describe("rematch", () => {
  test("both seats accept; both learn the next game through the stream and play on there, one seat on", async () => {
    const table = await seatEveryone(server.baseUrl, { gameType: "counterpoint", options: { target_score: 1 }, seed: "rematch" });
    await playToTheEnd(table, 11);
    const [first, second] = table.seats as [typeof table.seats[0], typeof table.seats[0]];
    const offers: RematchState[] = [];
    // Seat 0 follows the ended game's stream from its first version (it never streamed); seat
    // 1's table, opened on the ended game, follows it from its end.
    const feedOffers: RematchState[] = [];
    let feedNext: GameSession | null = null;
    const feed = await followTable(second, () => undefined, {
      followRematch: true,
      onRematch: (offer, next) => {
        feedOffers.push(offer);
        feedNext ??= next;
      },
    });
    assert.ok(feed.state.finished, "the table shows the ended game");
    const following = [first.followRematch({ onOffer: (o) => offers.push(o) }), feed.done.then(() => feedNext)];
    const asked = await first.rematch();
    assert.deepEqual(asked, { accepted: [0], gameId: null }, "waiting for the other seat");
    const answered = await second.rematch();
    assert.deepEqual(answered.accepted, [0, 1]);
    assert.ok(answered.gameId, "the last acceptance makes the next game");
    const [next0, next1] = await Promise.all(following);
    assert.equal(next0?.gameId, answered.gameId);
    assert.equal(next1?.gameId, answered.gameId);
    assert.deepEqual([next0!.seat, next1!.seat], [1, 0], "seat s sits at s + 1");
    assert.equal(next0!.token, first.token, "with the same token");
    assert.deepEqual(offers.map((o) => o.accepted.length), [1, 2], "each acceptance told on the stream");
    assert.deepEqual(feedOffers.map((o) => o.accepted.length), [1, 2], "and to the table");
    assert.equal(feed.rematch?.gameId, answered.gameId);
    assert.ok(feed.state.finished, "the offers leave the ended game's table as it was");
    assert.equal(table.clients[0]!.resume(answered.gameId!)?.seat, 1, "the moved seat is in the storage");
    assert.equal(table.clients[0]!.resume(table.gameId)?.seat, 0, "beside the ended game's");

    // The next game runs, and both play it from their new seats.
    const states = await Promise.all([next0!, next1!].map(tableOf));
    assert.deepEqual(states.map((s) => s.viewer), [1, 0]);
    assert.equal(states[0]!.status, "playing");
    assert.deepEqual(states[0]!.seats.map((s) => s.playerName), ["P1", "P0"]);
    const mover = [next0!, next1!].find((_, i) => states[i]!.yourTurn)!;
    const state = await tableOf(mover);
    const result = await mover.move(chooseMove(state, seeded(1))!, state.viewVersion);
    assert.equal(result.version, state.viewVersion + 1, "a move is taken at the next game");

    // Asking again, or following again once it is named, answers the same game at once.
    assert.equal((await first.rematch()).gameId, answered.gameId);
    const again = await new TricktableClient({ baseUrl: server.baseUrl, storage: table.clients[1]!.storage }).resume(table.gameId)!.events({ followRematch: true }).next();
    assert.equal(again.done, true, "the stream after the naming offer ends at once");
  });
});
