import assert from "node:assert/strict";
import { test } from "node:test";
import { memoryStorage, PLAYER_TOKEN_HEADER, TricktableClient, withHeaders } from "../../src/index.js";
import { readSeat, readSeats, readTicket, readVersion, seatKey, seatsKey, ticketKey, versionKey, writeSeat, writeTicket, writeVersion } from "../../src/storage.js";

test("a seat and a version survive in the storage; what is not ours reads as nothing", () => {
  const storage = memoryStorage();
  assert.equal(readSeat(storage, "g1"), null);
  assert.equal(readVersion(storage, "g1", 0), -1);
  writeSeat(storage, "g1", { seat: 2, token: "secret" });
  writeVersion(storage, "g1", 2, 41);
  assert.deepEqual(readSeat(storage, "g1"), { seat: 2, token: "secret" });
  assert.equal(readVersion(storage, "g1", 2), 41);
  assert.equal(readVersion(storage, "g1", null), -1, "a spectator's version is its own");
  storage.setItem(seatKey("g2"), "{not json");
  storage.setItem(versionKey("g2", 0), "-3");
  assert.equal(readSeat(storage, "g2"), null);
  assert.equal(readVersion(storage, "g2", 0), -1);
  storage.setItem(seatKey("g3"), JSON.stringify({ seat: "0", token: 5 }));
  assert.equal(readSeat(storage, "g3"), null, "wrong types: no seat");
});

test("a client resumes a seat from any localStorage-like storage", () => {
  const storage = memoryStorage();
  writeSeat(storage, "g1", { seat: 1, token: "t" });
  const client = new TricktableClient({ baseUrl: "http://127.0.0.1:9", storage });
  const session = client.resume("g1");
  assert.deepEqual([session?.seat, session?.token], [1, "t"]);
  assert.deepEqual(session?.callOptions().headers, { authorization: "Bearer t" });
  assert.equal(client.resume("g2"), null);
  const spectator = client.watch("g1");
  assert.equal(spectator.seat, null);
  assert.deepEqual(spectator.callOptions().headers, {});
  session!.forget();
  assert.equal(client.resume("g1"), null);
});

test("a storage holds several seats of one game; forgetting one keeps the others", () => {
  const storage = memoryStorage();
  const client = new TricktableClient({ baseUrl: "http://127.0.0.1:9", storage });
  client.hold("g1", 0, "t0");
  client.hold("g1", 2, "t2");
  assert.deepEqual(readSeats(storage, "g1"), [{ seat: 0, token: "t0" }, { seat: 2, token: "t2" }]);
  assert.deepEqual(client.seats("g1").map((s) => [s.seat, s.token]), [[0, "t0"], [2, "t2"]]);
  assert.equal(client.resume("g1")?.seat, 2, "resume without a seat: the one taken last");
  assert.equal(client.resume("g1", 0)?.token, "t0");
  assert.equal(client.resume("g1", 1), null, "a seat not held");
  client.hold("g1", 2, "t2b");
  assert.deepEqual(readSeats(storage, "g1"), [{ seat: 0, token: "t0" }, { seat: 2, token: "t2b" }], "a seat taken again replaces its token");
  writeVersion(storage, "g1", 2, 9);
  client.resume("g1", 2)!.forget();
  assert.deepEqual(readSeats(storage, "g1"), [{ seat: 0, token: "t0" }]);
  assert.equal(readVersion(storage, "g1", 2), -1, "its version goes with it");
  assert.equal(client.resume("g1")?.seat, 0, "the last taken is now the seat left");
  client.resume("g1")!.forget();
  assert.deepEqual(readSeats(storage, "g1"), []);
  assert.equal(storage.getItem(seatsKey("g1")), null);
  assert.equal(storage.getItem(seatKey("g1")), null);
});

test("a storage written by the earlier version (one seat per game) is read as holding that seat", () => {
  const storage = memoryStorage();
  storage.setItem(seatKey("old"), JSON.stringify({ seat: 1, token: "kept" }));
  const client = new TricktableClient({ baseUrl: "http://127.0.0.1:9", storage });
  assert.deepEqual(readSeats(storage, "old"), [{ seat: 1, token: "kept" }]);
  assert.equal(client.resume("old", 1)?.token, "kept");
  client.hold("old", 0, "new");
  assert.deepEqual(client.seats("old").map((s) => s.seat), [0, 1], "the old seat is kept beside the new");
  storage.setItem(seatsKey("bad"), "[1, {\"seat\": 0.5, \"token\": \"x\"}, {\"seat\": 3, \"token\": \"ok\"}");
  assert.deepEqual(readSeats(storage, "bad"), [], "not JSON: none");
  storage.setItem(seatsKey("bad"), JSON.stringify([1, { seat: 0.5, token: "x" }, { seat: 3, token: "ok" }, null]));
  assert.deepEqual(readSeats(storage, "bad"), [{ seat: 3, token: "ok" }], "only well-formed seats");
});

test("a quick play ticket is kept until it is forgotten; what is not ours reads as none", () => {
  const storage = memoryStorage();
  assert.equal(readTicket(storage), null);
  writeTicket(storage, { ticket: "tk", gameType: "counterpoint", playerName: "Ada" });
  assert.deepEqual(new TricktableClient({ baseUrl: "http://127.0.0.1:9", storage }).quickPlayTicket(), { ticket: "tk", gameType: "counterpoint", playerName: "Ada" });
  writeTicket(storage, null);
  assert.equal(readTicket(storage), null);
  storage.setItem(ticketKey, "{oops");
  assert.equal(readTicket(storage), null);
  storage.setItem(ticketKey, JSON.stringify({ ticket: 3 }));
  assert.equal(readTicket(storage), null);
});

test("a player token travels in x-player-token beside a seat's token, asked at each call", () => {
  let token: string | null = "jwt-1";
  const client = new TricktableClient({ baseUrl: "http://127.0.0.1:9", playerToken: () => token });
  const seat = client.hold("g1", 0, "seat-token");
  assert.deepEqual(seat.callOptions().headers, { "x-player-token": "jwt-1", authorization: "Bearer seat-token" });
  token = "jwt-2";
  assert.deepEqual(client.watch("g1").callOptions().headers, { "x-player-token": "jwt-2" });
  token = null;
  assert.deepEqual(seat.callOptions().headers, { authorization: "Bearer seat-token" });
  client.setPlayerToken("fixed");
  assert.deepEqual(client.playerHeaders(), { [PLAYER_TOKEN_HEADER]: "fixed" });
  client.setPlayerToken("");
  assert.deepEqual(client.playerHeaders(), {}, "an empty token is none");
});

test("withHeaders adds headers to a call's options, keeping the caller's own", () => {
  const signal = new AbortController().signal;
  const merged = withHeaders({ headers: { "x-player-token": "mine", "x-other": "1" }, signal }, { "x-player-token": "client's", authorization: "Bearer s" });
  const headers = new Headers(merged.headers);
  assert.equal(headers.get("x-player-token"), "mine", "the caller's header wins");
  assert.equal(headers.get("x-other"), "1");
  assert.equal(headers.get("authorization"), "Bearer s");
  assert.equal(merged.signal, signal);
  const untouched = { timeoutMs: 5 };
  assert.equal(withHeaders(untouched, {}), untouched, "nothing to add: the options as given");
  assert.deepEqual(withHeaders(undefined, {}), {});
});
