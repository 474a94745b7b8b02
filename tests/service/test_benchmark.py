"""The service benchmark runs end to end and reports its fields (numbers are never asserted
beyond being measured: benchmarks are not timed tests)."""

from __future__ import annotations

import argparse
import asyncio
import os
import time

import pytest

from benchmarks import cluster_client
from benchmarks.bound import recorded_moves
from benchmarks.clocks import measure as measure_clocks
from benchmarks.service import (
    _local_redis_pids,
    _merged,
    _quantile_ms,
    _server_process,
    cpu_seconds,
    measure,
)
from engine import get_rules
from tests.conftest import redis_server


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_the_service_benchmark_measures_moves_and_its_floor(
    store: str, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue("redis_url") if store == "redis" else None
    # A second, not less: moves are counted when the bots' answers arrive, and on a loaded
    # machine the first answers of a 0.3 s run sometimes had not.
    result = asyncio.run(measure(store, url, games=2, seconds=1.0, game="counterpoint"))
    assert result["store"] == store and result["games"] == 2
    assert result["moves"] > 0 and result["moves_per_s"] > 0
    assert 0 < result["submit_p50_ms"] <= result["submit_p99_ms"]
    assert result["floor_calls_per_s"] > 0 and result["moves_to_floor"] > 0
    assert "a process of their own" in result["layout"] and result["aborted"] >= 0
    # CPU time per move and per floor call, read from /proc (this suite runs on Linux).
    assert result["server_cpu_us_per_move"] > 0 and result["bots_cpu_us_per_move"] > 0
    assert result["floor_server_cpu_us_per_call"] > 0
    assert result["redis_cpu_us_per_move"] is None  # not started by the benchmark: pid unknown
    # The bound: a move's I/O with no game logic, measured like the other two.
    assert result["bound_moves_per_s"] > 0 and result["bound_server_cpu_us_per_move"] > 0
    assert result["moves_to_bound"] > 0 and result["bound_to_floor"] > 0
    # The play stream, measured in the same run: the contract's keys, beside the others.
    assert result["stream_moves"] > 0 and result["stream_moves_per_s"] > 0
    assert 0 < result["stream_submit_p50_ms"] <= result["stream_submit_p99_ms"]
    assert result["stream_server_cpu_us_per_move"] > 0
    assert result["stream_bots_cpu_us_per_move"] > 0 and result["stream_moves_to_floor"] > 0
    assert result["stream_redis_cpu_us_per_move"] is None and result["stream_aborted"] >= 0


def test_rounds_take_the_phases_in_turn_and_add_up() -> None:
    result = asyncio.run(
        measure("memory", None, games=2, seconds=2.0, game="counterpoint", rounds=2)
    )
    assert result["rounds"] == 2 and result["seconds"] == 2.0
    by_round = result["stream_moves_to_floor_by_round"]
    assert len(by_round) == 2 and all(ratio > 0 for ratio in by_round)
    assert result["stream_moves"] > 0 and result["moves"] > 0 and result["bound_moves_per_s"] > 0
    # Each round's latencies come from a server of its own; their histograms are added.
    assert 0 < result["stream_submit_p50_ms"] <= result["stream_submit_p99_ms"]
    assert 0 < result["submit_p50_ms"] <= result["submit_p99_ms"]


def test_rounds_below_one_are_refused() -> None:
    from tricktable.cli import main

    with pytest.raises(SystemExit, match="--rounds must be at least 1"):
        main(["bench", "service", "--rounds", "0"])


def test_histograms_of_two_rounds_add_bucket_by_bucket() -> None:
    first = [(0.001, 2.0), (0.01, 5.0), (float("inf"), 6.0)]
    second = [(0.001, 0.0), (0.01, 4.0), (float("inf"), 4.0)]
    assert _merged(first, second) == [(0.001, 2.0), (0.01, 9.0), (float("inf"), 10.0)]
    assert _merged([], second) == second and _merged(first, []) == first
    # The median of the sum: the 5th of 10, the 3rd of the 7 between 1 and 10 ms.
    assert _quantile_ms(_merged(first, second), 0.5) == 4.857


def test_cpu_seconds_reads_a_process_cpu_time_from_proc() -> None:
    before = cpu_seconds(os.getpid())
    assert before is not None
    deadline = time.process_time() + 0.2
    while time.process_time() < deadline:  # burn some CPU: the reading must grow
        pass
    after = cpu_seconds(os.getpid())
    assert after is not None and after > before
    assert cpu_seconds(2**22 + 12345) is None  # beyond pid_max: no such process


def test_latency_quantiles_interpolate_inside_the_histogram_bucket() -> None:
    buckets = [(0.001, 0.0), (0.002, 50.0), (0.004, 100.0), (float("inf"), 100.0)]
    assert _quantile_ms(buckets, 0.25) == 1.5  # halfway through the (1 ms, 2 ms] bucket
    assert _quantile_ms(buckets, 0.99) == 3.96
    assert _quantile_ms([(float("inf"), 0.0)], 0.5) is None


@pytest.mark.parametrize("game", ["counterpoint", "ninety-nine"])
def test_the_bound_replays_what_the_real_server_answers_each_mover(game: str) -> None:
    moves = recorded_moves(game, games=1)
    seats = get_rules(game).seats
    # One game, every move in order: the n-th move made version n.
    assert [m.answer.version for m in moves] == list(range(1, len(moves) + 1))
    assert {m.seat for m in moves} == set(range(seats))
    assert all(m.snapshot and m.events for m in moves)
    for made in moves:
        view = made.answer.view
        # Answered once the mover was to act again (its legal moves listed), or at the end.
        assert view.finished or (made.seat in view.to_act and len(view.legal_moves) > 0)
        assert made.answer.view_version >= made.answer.version
    # Bid cards are laid aside by every seat: their answers list the lay-aside choices.
    assert any(len(m.answer.view.legal_moves) >= 100 for m in moves)


def test_the_streams_benchmark_opens_streams_measures_idleness_and_a_move() -> None:
    from benchmarks.streams import add_arguments
    from benchmarks.streams import measure as measure_streams

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(
        ["--streams", "12", "--connections", "3", "--clients", "2", "--idle", "0.5"]
    )
    # A Redis of its own: the session's holds other tests' clocked games, which the replica's
    # deadline sweeper would serve in the idle window.
    with redis_server() as (redis_url, _):
        result = measure_streams(args, redis_url)
    assert (result["streams"], result["connections"], result["clients"]) == (12, 3, 2)
    assert result["first_batches"] == 12 and result["all_first_batch_s"] > 0
    assert result["move_reached"] == 12 and result["move_to_all_s"] is not None
    # Idle streams cost no command; the replica's own may come in the window: readiness' PING
    # and the deadline sweeper's look at the deadline index (service.scheduler).
    assert set(result["idle_redis_by_command"]) <= {"ping", "zrange", "zrangebyscore"}
    assert result["server_kib_per_stream"] is not None


def test_the_service_benchmark_runs_on_a_cluster_and_reads_its_masters_cpu(
    redis_cluster_url: str,
) -> None:
    pids = _local_redis_pids(redis_cluster_url, cluster=True)
    assert isinstance(pids, tuple) and len(pids) == 3  # the masters, found by INFO, local
    result = asyncio.run(
        measure(
            "redis-cluster",
            redis_cluster_url,
            games=2,
            seconds=1.0,
            game="counterpoint",
            redis_pid=pids,
            cluster=True,
        )
    )
    assert result["moves"] > 0 and result["floor_calls_per_s"] > 0
    assert result["bound_moves_per_s"] > 0
    assert result["redis_cpu_us_per_move"] > 0  # summed over the three masters


def test_the_cluster_client_benchmark_measures_both_clients(redis_cluster_url: str) -> None:
    result = asyncio.run(cluster_client.measure(redis_cluster_url, seconds=0.3, callers=4))
    for name in ("redis_py_cluster", "pipelined_cluster"):
        assert result[name]["calls"] > 0 and result[name]["cpu_us_per_call"] > 0
    assert result["cpu_ratio"] > 0


def test_the_clock_benchmark_measures_each_firing_from_its_deadline(
    request: pytest.FixtureRequest,
) -> None:
    """Two replicas on one Redis, a handful of games: every clock fires, none early; once the
    games have ended, none of them is left in the deadline index."""
    url = request.getfixturevalue("redis_url")
    with _server_process(url) as (first, _, _), _server_process(url) as (second, _, _):
        result = asyncio.run(measure_clocks([first, second], games=6, move_ms=400, redis_url=url))
    assert result["fired"] + result["skipped"] == 6 and result["fired"] >= 1
    assert result["early"] == 0 and 0 <= result["p50_ms"] <= result["p99_ms"] <= result["max_ms"]
    # Each running game: its clock's entry and its idle one (the index is the session's).
    # Once ended, at most the stale hints of lost races, and none once those came due.
    assert result["index_running"] >= 12 and result["index_ended_games"] <= 6
    assert result["index_settled_games"] == 0
