"""The seeded chance source: shuffles and picks are permutations, reproducible and unbiased."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter

import pytest

from engine.core.chance import Chance


def test_a_shuffle_is_a_permutation_and_reproducible_from_the_seed() -> None:
    pack = list(range(37))
    a = Chance(b"seed").shuffled("pack:1", pack)
    assert sorted(a) == pack and a != pack
    assert Chance(b"seed").shuffled("pack:1", pack) == a
    assert Chance(b"seed").shuffled("pack:2", pack) != a  # each deal is its own draw
    assert Chance(b"seeD").shuffled("pack:1", pack) != a  # and depends on the seed


def test_every_order_of_a_small_pack_is_about_equally_likely() -> None:
    counts = Counter(tuple(Chance(b"u").shuffled(f"pack:{i}", [0, 1, 2, 3])) for i in range(24_000))
    assert set(counts) == set(itertools.permutations(range(4)))
    # 1000 expected per order; a fair shuffle stays well inside ±20% at this sample size
    assert all(800 < n < 1200 for n in counts.values()), counts


def test_randint_stays_in_range_and_covers_it() -> None:
    seen = Counter(Chance(b"r").randint(f"cut:{i}", 1, 51) for i in range(20_000))
    assert set(seen) == set(range(1, 52))
    assert max(seen.values()) < 2 * min(seen.values())


def test_overrides_replay_recorded_outcomes_and_are_checked() -> None:
    chance = Chance(b"x", {"pack:1": [2, 0, 1], "cut:1": [7]})
    assert chance.shuffled("pack:1", [0, 1, 2]) == [2, 0, 1]
    assert chance.randint("cut:1", 1, 51) == 7
    with pytest.raises(ValueError, match="permutation"):
        Chance(b"x", {"pack:1": [0, 0, 1]}).shuffled("pack:1", [0, 1, 2])
    with pytest.raises(ValueError, match="outside"):
        Chance(b"x", {"cut:1": [60]}).randint("cut:1", 1, 51)


def test_chance_round_trips_through_its_data_form() -> None:
    chance = Chance(b"\x00\xffseed", {"pack:2": [1, 0]})
    again = Chance.from_data(chance.to_data())
    assert again.seed == chance.seed and again.overrides == chance.overrides
    assert again.shuffled("pack:1", list(range(10))) == chance.shuffled("pack:1", list(range(10)))


def test_a_seed_is_required() -> None:
    with pytest.raises(ValueError):
        Chance(b"")


def test_a_shuffle_is_keyed_by_hmac_sha256_of_the_seed_and_label() -> None:
    """The documented construction (module docstring), computed here from the standard library
    alone: HMAC-SHA256(seed, label) expanded by SHAKE-256 into one 64-bit sort key per card."""
    seed, pack = b"any seed", list(range(24))
    key = hmac.digest(seed, b"pack:3", "sha256")
    raw = hashlib.shake_256(key).digest(8 * len(pack))
    keys = [int.from_bytes(raw[8 * i : 8 * i + 8], "big") for i in range(len(pack))]
    assert Chance(seed).shuffled("pack:3", pack) == sorted(pack, key=keys.__getitem__)


def test_randint_draws_words_of_hmac_sha256_of_the_seed_label_and_counter() -> None:
    seed = bytes(range(40))
    block = hmac.digest(seed, b"cut:1\x00" + (0).to_bytes(8, "big"), "sha256")
    first_word = int.from_bytes(block[:4], "big")
    limit = 2**32 - 2**32 % 51
    assert first_word < limit  # this seed's first word is accepted, so it decides the draw
    assert Chance(seed).randint("cut:1", 1, 51) == 1 + first_word % 51
