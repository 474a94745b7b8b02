import assert from "node:assert/strict";
import { test } from "node:test";
import { memoryStorage, TricktableClient } from "../../src/index.js";
import { readSeat, readVersion, seatKey, versionKey, writeSeat, writeVersion } from "../../src/storage.js";

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
