import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema, RetryInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { ErrorReason, isErrorReason, isTransient, toTricktableError, TricktableError, type ErrorReasonName } from "../../src/index.js";

function refused(code: Code, reason: string, extra: object[] = []): ConnectError {
  const info = { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason, domain: "tricktable", metadata: { current_version: "7" } }) };
  return new ConnectError("the server's words", code, undefined, [info, ...(extra as never[])]);
}

test("a refusal's reason is a name of the ErrorReason enum, typed", () => {
  const error = toTricktableError(refused(Code.FailedPrecondition, "MUST_FOLLOW_SUIT"));
  assert.ok(error instanceof TricktableError);
  const reason: ErrorReasonName | null = error.reason;
  assert.equal(reason, "MUST_FOLLOW_SUIT");
  assert.equal(error.codeName, "FailedPrecondition");
  assert.equal(error.serverMessage, "the server's words");
  assert.equal(error.metadata["current_version"], "7");
  assert.equal(toTricktableError(error), error, "already one: itself");
});

test("every ErrorReason but the unspecified one is a reason name; other strings are not", () => {
  const names = Object.keys(ErrorReason).filter((k) => Number.isNaN(Number(k)));
  assert.ok(names.length > 50);
  for (const name of names) assert.equal(isErrorReason(name), name !== "ERROR_REASON_UNSPECIFIED", name);
  for (const other of ["", "1", "toString", "not_your_turn", "__proto__"]) assert.equal(isErrorReason(other), false, other);
});

test("a reason this package does not know yet is kept raw, and no reason at all is null", () => {
  const newer = toTricktableError(refused(Code.FailedPrecondition, "A_REASON_FROM_THE_FUTURE"));
  assert.equal(newer.reason, null);
  assert.equal(newer.rawReason, "A_REASON_FROM_THE_FUTURE");
  const network = toTricktableError(new TypeError("fetch failed"));
  assert.equal(network.reason, null);
  assert.equal(network.rawReason, "");
  assert.ok(isTransient(network), "a failure of the network is worth another try");
});

test("a limit says when to try again; refusals of the request itself are not transient", () => {
  const retry = { desc: RetryInfoSchema, value: create(RetryInfoSchema, { retryDelay: { seconds: 1n, nanos: 500_000_000 } }) };
  const limited = toTricktableError(refused(Code.ResourceExhausted, "RATE_LIMITED", [retry]));
  assert.equal(limited.retryAfterMs, 1500);
  assert.ok(isTransient(limited));
  for (const code of [Code.InvalidArgument, Code.NotFound, Code.PermissionDenied, Code.Unauthenticated, Code.FailedPrecondition, Code.Aborted]) {
    assert.equal(isTransient(toTricktableError(refused(code, "INVALID_REQUEST"))), false, Code[code]);
  }
  assert.ok(isTransient(toTricktableError(refused(Code.Unavailable, "SERVER_SHUTTING_DOWN"))));
  assert.ok(toTricktableError(refused(Code.Aborted, "STALE_VERSION")).stale);
});
