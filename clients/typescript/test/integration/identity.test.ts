// A player identity through the package against a real `tricktable serve --auth-jwt-secret`:
// the client's player token (an HS256 JWT signed here with Node's crypto, as an operator's
// accounts would) travels with its calls, a seat taken with it is the player's from another
// device too, and listMyGames lists the player's games; a token the server cannot verify is
// refused (UNAUTHENTICATED, INVALID_PLAYER_TOKEN).

import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { memoryStorage, TricktableClient, TricktableError, type PlayerToken } from "../../src/index.js";
import { startServer, type RunningServer } from "../support/server.js";

const SECRET = randomBytes(32).toString("hex");

const base64url = (data: string | Buffer): string => Buffer.from(data).toString("base64url");

/** An HS256 JWT for `sub`, signed with `secret`, valid for an hour. */
function playerJwt(sub: string, secret = SECRET): string {
  const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const now = Math.floor(Date.now() / 1000);
  const claims = base64url(JSON.stringify({ sub, iat: now, exp: now + 3600 }));
  const signature = createHmac("sha256", secret).update(`${header}.${claims}`).digest("base64url");
  return `${header}.${claims}.${signature}`;
}

let server: RunningServer;
before(async () => {
  server = await startServer(["--auth-jwt-secret", SECRET]);
});
after(async () => {
  await server?.stop();
});

const device = (playerToken?: PlayerToken): TricktableClient =>
  new TricktableClient({ baseUrl: server.baseUrl, storage: memoryStorage(), playerToken });

async function refusal(run: () => Promise<unknown>): Promise<TricktableError> {
  try {
    await run();
  } catch (err) {
    assert.ok(err instanceof TricktableError, `a TricktableError, not ${String(err)}`);
    return err;
  }
  assert.fail("the call was not refused");
}

test("a seat taken with a player token is the player's: listed by listMyGames, taken again from another device", async () => {
  const player = `ada-${randomBytes(4).toString("hex")}`;
  const phone = device(playerJwt(player));
  const game = await phone.createGame({ gameType: "counterpoint" });
  const seat = await phone.join(game.gameId, { playerName: "Ada" });
  const mine = await phone.listMyGames();
  const listed = mine.find((g) => g.game.gameId === game.gameId);
  assert.equal(listed?.seat, seat.seat, "the game and the seat held");
  assert.equal(listed.summary.gameId, game.gameId);
  assert.equal(listed.game.status, "waiting");

  let token: string | null = playerJwt(player); // a token the laptop's login refreshes
  const laptop = device(() => token);
  const again = await laptop.join(game.gameId, { playerName: "Ada" });
  assert.equal(again.seat, seat.seat, "the same seat, from another device");
  assert.notEqual(again.token, seat.token, "with a token of its own");
  assert.deepEqual((await laptop.listMyGames()).map((g) => g.game.gameId), mine.map((g) => g.game.gameId));

  const other = device(playerJwt(`bo-${randomBytes(4).toString("hex")}`));
  assert.deepEqual(await other.listMyGames(), [], "another player's games are not listed");
  token = null;
  const missing = await refusal(() => laptop.listMyGames());
  assert.equal(missing.reason, "MISSING_PLAYER_TOKEN");
  assert.equal(missing.codeName, "Unauthenticated");
});

test("a token signed with another secret, or malformed, is refused and takes no seat", async () => {
  const game = await device().createGame({ gameType: "counterpoint" });
  for (const bad of [playerJwt("mallory", randomBytes(32).toString("hex")), "not-a-jwt"]) {
    const refused = await refusal(() => device(bad).join(game.gameId, { playerName: "Mallory" }));
    assert.equal(refused.reason, "INVALID_PLAYER_TOKEN");
    assert.equal(refused.codeName, "Unauthenticated");
  }
  const seen = await device().watch(game.gameId).snapshot();
  assert.deepEqual(seen.game.seats.map((s) => s.taken), [false, false], "nothing changed");
});
