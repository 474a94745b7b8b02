// Where a seat's token and the last version seen are kept: a storage the caller gives, with
// localStorage's methods, so in a browser `localStorage` (a seat outlives its tab) or
// `sessionStorage` (one seat per tab) serves as it is.

/** The part of the Web Storage interface this package uses. */
export interface SeatStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A storage in memory: what a process keeps while it runs (Node, tests). */
export function memoryStorage(): SeatStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, String(value)),
    removeItem: (key) => void items.delete(key),
  };
}

/** A seat taken: its number and its secret token. */
export interface SavedSeat {
  readonly seat: number;
  readonly token: string;
}

const PREFIX = "tricktable";
export const seatKey = (gameId: string): string => `${PREFIX}.seat.${gameId}`;
export const versionKey = (gameId: string, seat: number | null): string =>
  `${PREFIX}.version.${gameId}.${seat === null ? "spectator" : seat}`;

export function readSeat(storage: SeatStorage, gameId: string): SavedSeat | null {
  const text = storage.getItem(seatKey(gameId));
  if (text === null) return null;
  try {
    const kept = JSON.parse(text) as Partial<SavedSeat>;
    return typeof kept.seat === "number" && typeof kept.token === "string" ? { seat: kept.seat, token: kept.token } : null;
  } catch {
    return null; // another program's value under our key: no seat
  }
}

export function writeSeat(storage: SeatStorage, gameId: string, seat: SavedSeat): void {
  storage.setItem(seatKey(gameId), JSON.stringify({ seat: seat.seat, token: seat.token }));
}

/** The last version seen of a game by this seat (or spectator); -1: none. */
export function readVersion(storage: SeatStorage, gameId: string, seat: number | null): number {
  const text = storage.getItem(versionKey(gameId, seat));
  const version = text === null ? NaN : Number(text);
  return Number.isSafeInteger(version) && version >= 0 ? version : -1;
}

export function writeVersion(storage: SeatStorage, gameId: string, seat: number | null, version: number): void {
  storage.setItem(versionKey(gameId, seat), String(version));
}
