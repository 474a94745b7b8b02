"""The quick play benchmark runs end to end on a real Redis and reports its fields (its numbers
are printed, never asserted: benchmarks are not timed tests)."""

from __future__ import annotations

import asyncio

from benchmarks.quick_play import measure


def test_the_quick_play_benchmark_seats_a_crowd_each_once(redis_url: str) -> None:
    result = asyncio.run(measure(redis_url, players=40, seats=4))
    print(f"\nquick play on Redis: {result}")
    assert result["games"] == 10 and result["crowd_players"] == 40
    assert result["look_us"] > 0
