// Games as plain objects: a lobby's summary, a new game's request (options by name, read
// against the game type's own specs), and a time control in milliseconds.

import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { TimeoutPolicy, type TimeControl, type TimeControlSchema } from "./gen/tricktable/v1/clocks_pb.js";
import { GameStatus, Visibility, type GameSummary } from "./gen/tricktable/v1/game_service_pb.js";
import { OptionKind, OptionValueSchema, type GameType, type OptionValue } from "./gen/tricktable/v1/game_types_pb.js";

/** "waiting" (seats open), "playing", "finished" (by the rules), "abandoned" (a resignation,
 * a timeout's forfeit, idleness). */
export type GameStatusName = Lowercase<Exclude<keyof typeof GameStatus, "UNSPECIFIED">>;

/** "public": listed in the lobby, anyone may join; "unlisted": joined only with its invite code. */
export type VisibilityName = "public" | "unlisted";

export type OptionInput = boolean | number | bigint | string;

export interface TimeControlInput {
  readonly moveMs: number;
  readonly bankMs?: number;
  readonly incrementMs?: number;
  /** What a seat whose clock runs out gets: "auto-move" (the default) or "forfeit". */
  readonly onTimeout?: "auto-move" | "forfeit";
  readonly forfeitAfter?: number;
}

export interface SeatInfo {
  readonly seat: number;
  readonly taken: boolean;
  readonly playerName: string;
  /** The server bot playing it ("random", "heuristic"); "" for a player's seat. */
  readonly bot: string;
}

/** A game as the lobby shows it. */
export interface GameInfo {
  readonly gameId: string;
  readonly gameType: string;
  readonly status: GameStatusName;
  readonly version: number;
  readonly seats: readonly SeatInfo[];
  /** Every option's value, the defaults filled in. */
  readonly options: Readonly<Record<string, boolean | number | string>>;
  readonly createdAtMs: number;
  readonly resignedSeat: number | null;
  readonly timeControl: TimeControlInput | null;
  readonly visibility: VisibilityName;
  /** Open seats kept for invitees (taken only with their codes). */
  readonly reservedSeats: readonly number[];
}

export function statusName(status: GameStatus): GameStatusName {
  return (GameStatus[status] ?? "UNSPECIFIED").toLowerCase() as GameStatusName;
}

export function optionValue(value: OptionValue | undefined): boolean | number | string | undefined {
  switch (value?.value.case) {
    case "boolValue":
    case "stringValue":
      return value.value.value;
    case "intValue":
      return Number(value.value.value);
    default:
      return undefined;
  }
}

function plainTimeControl(control: TimeControl | undefined): TimeControlInput | null {
  if (!control) return null;
  return {
    moveMs: Number(control.moveMs),
    bankMs: Number(control.bankMs),
    incrementMs: Number(control.incrementMs),
    onTimeout: control.onTimeout === TimeoutPolicy.FORFEIT ? "forfeit" : "auto-move",
    forfeitAfter: control.forfeitAfter,
  };
}

export function gameInfo(game: GameSummary): GameInfo {
  const options: Record<string, boolean | number | string> = {};
  for (const [name, value] of Object.entries(game.options)) {
    const plain = optionValue(value);
    if (plain !== undefined) options[name] = plain;
  }
  return {
    gameId: game.gameId,
    gameType: game.gameType,
    status: statusName(game.status),
    version: Number(game.version),
    seats: game.seats.map((s) => ({ seat: s.seat, taken: s.taken, playerName: s.playerName, bot: s.bot })),
    options,
    createdAtMs: Number(game.createdAtMs),
    resignedSeat: game.resignedSeat ?? null,
    timeControl: plainTimeControl(game.timeControl),
    visibility: game.visibility === Visibility.UNLISTED ? "unlisted" : "public",
    reservedSeats: [...game.reservedSeats],
  };
}

/** An option's value in the kind its spec names (an int given as "3" or 3 is an int); an option
 * the game does not have is sent as its JavaScript type, for the server to refuse by name. */
export function toOptionValue(spec: GameType["options"][number] | undefined, value: OptionInput): OptionValue {
  const kind = spec?.kind;
  if (kind === OptionKind.BOOL || (kind === undefined && typeof value === "boolean")) {
    return create(OptionValueSchema, { value: { case: "boolValue", value: value === true || value === "true" } });
  }
  if (kind === OptionKind.INT || (kind === undefined && (typeof value === "number" || typeof value === "bigint"))) {
    if (typeof value === "boolean" || (typeof value === "number" && !Number.isInteger(value))) {
      throw new TypeError(`option ${spec?.name ?? ""} takes an integer, not ${String(value)}`);
    }
    return create(OptionValueSchema, { value: { case: "intValue", value: BigInt(value) } });
  }
  return create(OptionValueSchema, { value: { case: "stringValue", value: String(value) } });
}

export function toTimeControl(control: TimeControlInput): MessageInitShape<typeof TimeControlSchema> {
  return {
    moveMs: BigInt(control.moveMs),
    bankMs: BigInt(control.bankMs ?? 0),
    incrementMs: BigInt(control.incrementMs ?? 0),
    onTimeout: control.onTimeout === "forfeit" ? TimeoutPolicy.FORFEIT : TimeoutPolicy.AUTO_MOVE,
    forfeitAfter: control.forfeitAfter ?? 0,
  };
}
