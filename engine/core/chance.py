"""Secret, reproducible chance: every shuffle and random pick of a game comes from here.

DESIGN.md decision 2: a deal's order is a keyed cryptographic function of the game's secret seed
and the deal number. Every draw is keyed by HMAC-SHA256(seed, label): a shuffle expands that key
with SHAKE-256 into one secret sort key per card; a number in a range is rejection-sampled from
HMAC-SHA256(seed, label || counter) words. With the seed, everything replays exactly (tests,
duplicate tournaments, audits); without it, the cards a viewer has seen say nothing about the
ones it has not, because the outputs are unpredictable without the key. Python's ``random`` is
never used for chance.

A label names what is drawn (``"pack:3"`` is the pack of deal 3, ``"first_dealer"`` the first
dealer). ``overrides`` replaces the draw of a label with a recorded outcome: that is how a game
record is re-played with the exact packs it was dealt, and how the specs' fixed-pack test vectors
are played. Overrides are data, stored with the game like the seed.

A game record (:mod:`engine.record`) is made by re-playing a finished game with a :class:`ChanceLog`
attached: every draw's outcome and every pack as dealt are written to it. A record is re-played
with ``strict`` overrides, so a draw the record does not hold is an error, not a fresh draw.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Mapping, Sequence

SEED_BYTES = 32
_WORDS = struct.Struct(">8I")
_WORD_RANGE = 1 << 32
# Compiled unpackers of n big-endian 64-bit sort keys, by n (a game shuffles one or two pack
# sizes thousands of times; ``struct.unpack`` with a format string looks it up on every call).
_SORT_KEYS: dict[int, struct.Struct] = {}


class _Stream:
    """An endless stream of unbiased integers for one label.

    Each HMAC block gives eight 32-bit words. Draws here are below 2**8 (a pack position or a cut
    depth), so 32 bits with rejection sampling are exact and rarely need a second word.
    """

    __slots__ = ("_counter", "_label", "_mac", "_words")

    def __init__(self, mac: hmac.HMAC, label: str) -> None:
        self._mac = mac
        self._label = label.encode() + b"\x00"
        self._counter = 0
        self._words: list[int] = []

    def word(self) -> int:
        """The next 32-bit word of the stream."""
        if not self._words:
            self._words = self._block()
        return self._words.pop()

    def _block(self) -> list[int]:
        block = _digest(self._mac, self._label + self._counter.to_bytes(8, "big"))
        self._counter += 1
        words = list(_WORDS.unpack(block))
        words.reverse()  # pop() from the end returns them in order
        return words

    def below(self, n: int) -> int:
        """Uniform in [0, n), by rejection sampling (no modulo bias)."""
        if not 0 < n <= _WORD_RANGE:
            raise ValueError(f"n must be in 1..2**32, got {n}")
        limit = _WORD_RANGE - _WORD_RANGE % n
        while True:
            v = self.word()
            if v < limit:
                return v % n


class ChanceLog:
    """What chance gave a game: each draw's outcome by label, in draw order, and each deal's
    pack as dealt (top card first), which for a pack gathered and cut is not a draw itself."""

    __slots__ = ("deals", "draws")

    def __init__(self) -> None:
        self.draws: dict[str, list[int]] = {}
        self.deals: list[tuple[int, list[int]]] = []


class Chance:
    __slots__ = ("_mac", "log", "overrides", "seed", "strict")

    def __init__(
        self,
        seed: bytes,
        overrides: Mapping[str, Sequence[int]] | None = None,
        *,
        strict: bool = False,
        log: ChanceLog | None = None,
    ) -> None:
        if not isinstance(seed, bytes) or not seed:
            raise ValueError("seed must be non-empty bytes")
        self.seed = seed
        self.overrides: dict[str, list[int]] = {k: list(v) for k, v in (overrides or {}).items()}
        self.strict = strict  # every draw must come from the overrides (re-playing a record)
        self.log = log  # not part of the game's data: attached only to make a record
        self._mac: hmac.HMAC | None = None  # keyed by the seed on the first draw

    def _hmac(self) -> hmac.HMAC:
        """HMAC-SHA256 keyed by the seed, never updated: each draw digests a copy of it (a
        game keys every draw with its one seed, and copying is cheaper than keying again)."""
        mac = self._mac
        if mac is None:
            mac = self._mac = hmac.new(self.seed, digestmod=hashlib.sha256)
        return mac

    def _recorded(self, label: str) -> list[int] | None:
        recorded = self.overrides.get(label)
        if recorded is None and self.strict:
            raise ValueError(f"no recorded outcome for {label}")
        return recorded

    def _note(self, label: str, outcome: list[int]) -> None:
        if self.log is not None:
            self.log.draws.setdefault(label, list(outcome))

    def dealt(self, deal_no: int, pack: Sequence[int]) -> None:
        """The rules deal deal ``deal_no`` from ``pack``: noted when a record is being made."""
        if self.log is not None:
            self.log.deals.append((deal_no, list(pack)))

    def shuffled(self, label: str, cards: Sequence[int]) -> list[int]:
        """``cards`` in a secret order (index 0 is the top of the pack)."""
        # Most games have no overrides: then only a strict replay needs the lookup (it fails).
        recorded = self._recorded(label) if self.overrides or self.strict else None
        if recorded is not None:
            if sorted(recorded) != sorted(cards):
                raise ValueError(f"recorded {label} is not a permutation of the pack")
            self._note(label, recorded)
            return list(recorded)
        # Sort by secret 64-bit keys: HMAC-SHA256(seed, label) is the draw's own key, and
        # SHAKE-256 expands it into one key per card (extract, then expand). Distinct random keys
        # give a uniform permutation; a tie (probability below n²/2**65) falls back to pack order.
        n = len(cards)
        key = _digest(self._hmac(), label.encode())
        unpack = _SORT_KEYS.get(n)
        if unpack is None:
            unpack = _SORT_KEYS[n] = struct.Struct(f">{n}Q")
        keys = unpack.unpack(hashlib.shake_256(key).digest(8 * n))
        order = [cards[i] for i in sorted(range(n), key=keys.__getitem__)]
        if self.log is not None:
            self._note(label, order)
        return order

    def randint(self, label: str, lo: int, hi: int) -> int:
        """Uniform in [lo, hi], inclusive."""
        # As in ``shuffled``: without overrides only a strict replay needs the lookup.
        recorded = self._recorded(label) if self.overrides or self.strict else None
        if recorded is not None:
            if len(recorded) != 1:
                raise ValueError(f"recorded {label} must be one number")
            value = recorded[0]
            if not lo <= value <= hi:
                raise ValueError(f"recorded {label} = {value} is outside [{lo}, {hi}]")
        else:
            value = lo + _Stream(self._hmac(), label).below(hi - lo + 1)
        if self.log is not None:
            self._note(label, [value])
        return value

    def to_data(self) -> dict[str, object]:
        return {"seed": self.seed.hex(), "overrides": self.overrides}

    @classmethod
    def from_data(cls, data: Mapping[str, object]) -> Chance:
        seed = data["seed"]
        overrides = data.get("overrides") or {}
        assert isinstance(seed, str) and isinstance(overrides, dict)
        return cls(bytes.fromhex(seed), overrides)


def _digest(keyed: hmac.HMAC, msg: bytes) -> bytes:
    """HMAC-SHA256(seed, msg) from the seed's keyed HMAC, which stays unused."""
    mac = keyed.copy()
    mac.update(msg)
    return mac.digest()
