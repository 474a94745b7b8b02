import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { GameSummarySchema, RematchOfferSchema } from "../../src/gen/tricktable/v1/game_service_pb.js";
import { gameInfo, GameStatus, rematchState, Visibility } from "../../src/index.js";

test("a summary's visibility and reserved seats come as plain values", () => {
  const summary = create(GameSummarySchema, {
    gameId: "g",
    gameType: "counterpoint",
    status: GameStatus.WAITING,
    seats: [{ seat: 0 }, { seat: 1 }],
    visibility: Visibility.UNLISTED,
    reservedSeats: [1],
  });
  const info = gameInfo(summary);
  assert.equal(info.visibility, "unlisted");
  assert.deepEqual(info.reservedSeats, [1]);
  assert.equal(gameInfo(create(GameSummarySchema, { visibility: Visibility.UNSPECIFIED })).visibility, "public", "unspecified is public");
  assert.equal(gameInfo(create(GameSummarySchema, { visibility: Visibility.PUBLIC })).visibility, "public");
  summary.reservedSeats.push(0);
  assert.deepEqual(info.reservedSeats, [1], "a copy, not the message's list");
});

test("a rematch offer: who accepted, and the next game once named", () => {
  assert.deepEqual(rematchState(create(RematchOfferSchema, { accepted: [0] })), { accepted: [0], gameId: null });
  assert.deepEqual(rematchState(create(RematchOfferSchema, { accepted: [0, 1], gameId: "next" })), { accepted: [0, 1], gameId: "next" });
});
