// Refusals, typed: the server puts a google.rpc.ErrorInfo (domain "tricktable") in every error,
// whose `reason` is a name of the protocol's ErrorReason enum. Here it is a TypeScript union of
// those names, so a frontend switches on it and the compiler checks the spelling.

import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema, RetryInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { ErrorReason } from "./gen/tricktable/v1/errors_pb.js";

/** Why the server refused a call: "NOT_YOUR_TURN", "MUST_FOLLOW_SUIT", "STALE_VERSION", ... */
export type ErrorReasonName = Exclude<keyof typeof ErrorReason, "ERROR_REASON_UNSPECIFIED">;

/** The status code's name: "InvalidArgument", "FailedPrecondition", "Aborted", ... */
export type CodeName = keyof typeof Code;

export function isErrorReason(name: string): name is ErrorReasonName {
  return name !== "ERROR_REASON_UNSPECIFIED" && Object.prototype.hasOwnProperty.call(ErrorReason, name) && Number.isNaN(Number(name));
}

/** A refused or failed call. A refused request changed nothing on the server. */
export class TricktableError extends Error {
  override readonly name = "TricktableError";
  /** The status code (Connect's numbering, which is gRPC's). */
  readonly code: Code;
  /** The ErrorInfo reason; null when the error carried none (a network failure) or one this
   * package does not know yet (see rawReason). */
  readonly reason: ErrorReasonName | null;
  /** The ErrorInfo reason as sent, known or not ("" when none). */
  readonly rawReason: string;
  /** The ErrorInfo metadata (STALE_VERSION's current_version, ...). */
  readonly metadata: Readonly<Record<string, string>>;
  /** When a RetryInfo came with it (RESOURCE_EXHAUSTED): how long to wait before trying again. */
  readonly retryAfterMs: number | null;
  /** The server's words, without the code. */
  readonly serverMessage: string;

  constructor(error: ConnectError) {
    super(error.message, { cause: error });
    this.code = error.code;
    this.serverMessage = error.rawMessage;
    const info = error.findDetails(ErrorInfoSchema)[0];
    this.rawReason = info?.reason ?? "";
    this.reason = isErrorReason(this.rawReason) ? this.rawReason : null;
    this.metadata = { ...(info?.metadata ?? {}) };
    const retry = error.findDetails(RetryInfoSchema)[0]?.retryDelay;
    this.retryAfterMs = retry ? Number(retry.seconds) * 1000 + Math.round(retry.nanos / 1e6) : null;
  }

  get codeName(): CodeName {
    return Code[this.code] as CodeName;
  }

  /** ABORTED: the move was decided on an older version; read the game and decide again. */
  get stale(): boolean {
    return this.code === Code.Aborted;
  }
}

/** Any thrown value as a TricktableError (a TricktableError stays itself). */
export function toTricktableError(err: unknown): TricktableError {
  return err instanceof TricktableError ? err : new TricktableError(ConnectError.from(err));
}

/** Whether a call that failed so may succeed if made again later (the server is restarting,
 * the connection dropped, a limit): not a refusal of the request itself. */
export function isTransient(err: TricktableError): boolean {
  switch (err.code) {
    case Code.InvalidArgument:
    case Code.NotFound:
    case Code.AlreadyExists:
    case Code.PermissionDenied:
    case Code.Unauthenticated:
    case Code.FailedPrecondition:
    case Code.OutOfRange:
    case Code.Unimplemented:
    case Code.Aborted:
      return false;
    default:
      return true;
  }
}
