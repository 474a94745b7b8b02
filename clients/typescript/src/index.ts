// @tricktable/client: Tricktable for frontends. See README.md.

export {
  PLAYER_TOKEN_HEADER,
  TricktableClient,
  withHeaders,
  type ClientOptions,
  type CreatedGame,
  type GameFilter,
  type GameList,
  type ListStatus,
  type MyGame,
  type NewGame,
  type PlayerToken,
  type QuickPlayInput,
  type QuickPlayUpdate,
  type SeatReservationInput,
} from "./client.js";
export { GameSession, rematchState, sleep, type MoveResult, type RematchState, type Snapshot, type StreamOptions } from "./session.js";
export { followTable, type FollowOptions, type TableFeed } from "./follow.js";
export {
  emptyTable,
  reduceTable,
  type Contract,
  type DealResult,
  type Play,
  type SeatState,
  type TableInput,
  type TableState,
  type TrickState,
} from "./table.js";
export {
  isLegal,
  layAside,
  legalMoves,
  moveKey,
  NO_MOVES,
  playOf,
  plainMove,
  toMove,
  type LayAsideOffer,
  type LegalMoves,
  type MoveKind,
  type PlainMove,
} from "./moves.js";
export {
  bySuit,
  cardKey,
  cardLabel,
  plainCard,
  plainCards,
  rankName,
  rankOf,
  sameCard,
  SUIT_SYMBOLS,
  suitName,
  suitOf,
  SUITS_SHOWN,
  toCard,
  type PlainCard,
  type RankName,
  type SuitName,
  type SuitRow,
} from "./cards.js";
export { formatDuration, plainClock, ServerTime, timeLeft, type ClockState } from "./clock.js";
export { isErrorReason, isTransient, toTricktableError, TricktableError, type CodeName, type ErrorReasonName } from "./errors.js";
export { gameInfo, statusName, type GameInfo, type GameStatusName, type OptionInput, type SeatInfo, type TimeControlInput, type VisibilityName } from "./game.js";
export { memoryStorage, type SavedSeat, type SavedTicket, type SeatStorage } from "./storage.js";
export { createTransport, type Protocol, type TransportOptions } from "./transport.js";
// The protocol's own types, for what the typed layer does not cover.
export { ErrorReason } from "./gen/tricktable/v1/errors_pb.js";
export { GameService, GameStatus, Visibility, type GameSummary, type RematchOffer, type StreamEventsResponse } from "./gen/tricktable/v1/game_service_pb.js";
export { type GameType, type OptionSpec } from "./gen/tricktable/v1/game_types_pb.js";
export { type Event } from "./gen/tricktable/v1/events_pb.js";
export { type View } from "./gen/tricktable/v1/views_pb.js";
export { Rank, Suit, type Card } from "./gen/tricktable/v1/cards_pb.js";
