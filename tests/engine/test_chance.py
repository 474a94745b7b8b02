"""The seeded chance source: shuffles and picks are permutations, reproducible and unbiased."""

from __future__ import annotations

import hmac
import itertools
from collections import Counter

import pytest

from engine.core.chance import Chance, _Hmac


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


@pytest.mark.parametrize(
    "key",
    [b"k", b"\x00" * 32, bytes(range(32)), b"\xff" * 64, b"x" * 65, bytes(range(200))],
)
@pytest.mark.parametrize("label", [b"", b"pack:1", b"first_dealer\x00" + bytes(8), b"y" * 300])
def test_hmac_from_padded_states_is_hmac_sha256(key: bytes, label: bytes) -> None:
    # Keys shorter than, equal to and longer than SHA-256's 64-byte block (hashed first).
    mac = _Hmac(key)
    assert mac.digest(label) == hmac.digest(key, label, "sha256")
    assert mac.digest(label) == hmac.digest(key, label, "sha256")  # the states are not used up
