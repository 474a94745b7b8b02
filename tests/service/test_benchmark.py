"""The service benchmark runs end to end and reports its fields (numbers are never asserted
beyond being measured: benchmarks are not timed tests)."""

from __future__ import annotations

import asyncio

import pytest

from service.benchmark import _quantile_ms, measure


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_the_service_benchmark_measures_moves_and_its_floor(
    store: str, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue("redis_url") if store == "redis" else None
    result = asyncio.run(measure(store, url, games=2, seconds=0.3, game="counterpoint"))
    assert result["store"] == store and result["games"] == 2
    assert result["moves"] > 0 and result["moves_per_s"] > 0
    assert 0 < result["submit_p50_ms"] <= result["submit_p99_ms"]
    assert result["floor_calls_per_s"] > 0 and result["moves_to_floor"] > 0
    assert "a process of their own" in result["layout"] and result["aborted"] >= 0


def test_latency_quantiles_interpolate_inside_the_histogram_bucket() -> None:
    buckets = [(0.001, 0.0), (0.002, 50.0), (0.004, 100.0), (float("inf"), 100.0)]
    assert _quantile_ms(buckets, 0.25) == 1.5  # halfway through the (1 ms, 2 ms] bucket
    assert _quantile_ms(buckets, 0.99) == 3.96
    assert _quantile_ms([(float("inf"), 0.0)], 0.5) is None
