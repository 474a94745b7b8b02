"""The server on a real Redis Cluster, killed in part: a master SIGKILLed mid-play fails over to
its replica and the bots play on by themselves; with ``--redis-wait-replicas`` no acknowledged
move is lost with the master; a commit waiting for a replica that lags is refused, then
acknowledged once when retried with its request id.

Each test starts its own cluster (three masters, three replicas): it kills a node.
"""

from __future__ import annotations

import asyncio
import random
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest
import redis
from tricktable.client import Client, RetryPolicy, Seat
from tricktable.errors import StaleVersion, TricktableError

from service.config import REDIS_CLUSTER_ENV, REDIS_URL_ENV
from service.errors import StoreUnavailable
from service.store.base import RequestSeen, SeatRecord
from service.store.redis import RedisStore
from service.store.redis_cluster import key_slot
from tests.conftest import ClusterNode, RedisCluster, redis_cluster
from tests.servers import serve_process
from tests.store.test_contract import OPENING, new_record, step

#: Patient enough to ride out a failover (about 2-5 s with a 1 s node timeout) on a busy machine,
#: and bounded (a broken server fails a call in about 20 × 5 s, not hangs the test).
PATIENT = RetryPolicy(attempts=20, initial_s=0.05, max_s=0.5)


@dataclass
class Played:
    """What the players saw: each acknowledged move (game, request id, version it made)."""

    acked: list[tuple[str, str, int]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self) -> int:
        with self.lock:
            return len(self.acked)

    def summary(self, slots: set[int], killed_at: int) -> str:
        with self.lock:
            games = {g for g, _, _ in self.acked}
            return (
                f"{len(self.acked)} moves acknowledged in {len(games)} games, "
                f"{len(self.acked) - killed_at} after the kill "
                f"({_on(slots, self, killed_at, locked=True)} on the killed master's slots); "
                f"{len(self.failures)} calls failed after the client's retries"
            )


def _table(client: Client) -> list[Seat]:
    """A new game of Ninety-Nine with every seat joined (created again if a failover ate the
    answer: creating and joining are not retried by the client)."""
    for _ in range(60):
        try:
            game = client.create("ninety-nine", {"game_length_deals": 1})
            return [client.join(game.game_id, i, f"p{i}") for i in range(len(game.seats))]
        except TricktableError:
            time.sleep(0.25)
    raise AssertionError("no table could be set for 15 s")


def _player(address: str, seed: int, stop: threading.Event, played: Played) -> None:
    """Random legal moves, game after game, until ``stop``: the client's own retries (one
    request id per move) are all that carries it through a failover."""
    rng = random.Random(seed)
    with Client(address, timeout_s=5.0, retry=PATIENT) as client:
        while not stop.is_set():
            seats = _table(client)
            while not stop.is_set():
                try:
                    public = client.get(seats[0].game_id)
                    if public.view.finished:
                        break
                    seat = seats[rng.choice(list(public.view.to_act))]
                    mine = seat.get()
                    rid = uuid.uuid4().hex
                    move = rng.choice(list(mine.view.legal_moves))
                    answer = seat.submit(move, mine.game.version, request_id=rid)
                except StaleVersion:
                    continue
                except TricktableError as exc:
                    with played.lock:
                        played.failures.append(repr(exc))
                    break  # a new table
                with played.lock:
                    played.acked.append((seat.game_id, rid, answer.version))


@contextmanager
def _players(address: str, count: int) -> Iterator[Played]:
    played, stop = Played(), threading.Event()
    threads = [
        threading.Thread(target=_player, args=(address, i, stop, played), daemon=True)
        for i in range(count)
    ]
    for thread in threads:
        thread.start()
    try:
        yield played
    finally:
        stop.set()
        deadline = time.monotonic() + 120
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))


def _until(what: str, condition: Callable[[], bool], timeout_s: float = 90.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _slots_of(node: ClusterNode) -> set[int]:
    """The slots ``node`` serves, as it says."""
    client = redis.Redis(port=node.port)
    try:
        reply = client.execute_command("CLUSTER", "SLOTS")  # type: ignore[no-untyped-call]
        return {
            slot
            for first, last, master, *_ in reply
            if int(master[1]) == node.port
            for slot in range(first, last + 1)
        }
    finally:
        client.close()


def _busiest_master(cluster: RedisCluster, played: Played) -> tuple[ClusterNode, set[int]]:
    """The master that owns the most of the games played so far, and its slots."""
    with played.lock:
        games = {game for game, _, _ in played.acked}
    masters = [(m, _slots_of(m)) for m in cluster.masters()]
    return max(masters, key=lambda ms: sum(1 for g in games if key_slot(g) in ms[1]))


def _on(slots: set[int], played: Played, since: int, locked: bool = False) -> int:
    """Moves acknowledged after the ``since``-th, on games in ``slots``."""
    if locked:
        later = played.acked[since:]
    else:
        with played.lock:
            later = played.acked[since:]
    return sum(1 for game, _, _ in later if key_slot(game) in slots)


def _lost(cluster: RedisCluster, played: Played) -> list[tuple[str, str, int]]:
    """Acknowledged moves the cluster does not have: the request id unknown, or another
    version for it."""
    client = redis.RedisCluster.from_url(cluster.masters()[0].url)
    try:
        with played.lock:
            acked = list(played.acked)
        lost = []
        for game, rid, version in acked:
            seen = client.hget(f"tt:{{{game}}}:requests", rid)
            if seen is None or int(seen) != version:
                lost.append((game, rid, version))
        return lost
    finally:
        client.close()


@contextmanager
def _cluster_server(cluster: RedisCluster, *args: str) -> Iterator[str]:
    """``tricktable serve`` on the cluster, in a process of its own (the cluster from the
    environment, as an operator sets it): its address."""
    env = {REDIS_URL_ENV: cluster.url, REDIS_CLUSTER_ENV: "1"}
    with serve_process("--log-level", "warning", *args, env=env) as served:
        yield served.address
        assert served.proc.poll() is None, f"the server died: {served.log()}"


def test_a_master_killed_mid_play_fails_over_and_play_resumes_by_itself() -> None:
    with redis_cluster() as cluster, _cluster_server(cluster) as address:
        with _players(address, 6) as played:
            _until("60 moves", lambda: played.count() >= 60)
            victim, slots = _busiest_master(cluster, played)
            killed_at = played.count()
            victim.kill()  # SIGKILL, mid-play
            # Play resumes, on the games the dead master held too, with no one restarting
            # anything: its replica is promoted, the server follows the new map and the
            # clients retry (one request id per move).
            _until("moves on the failed-over shard", lambda: _on(slots, played, killed_at) >= 20)
            assert _failed_over(cluster, victim, slots)  # its replica took over
        print(played.summary(slots, killed_at))  # shown with -s: what the test killed and saw
        assert not played.failures, played.failures[:5]


def test_with_wait_replicas_no_acknowledged_move_is_lost_with_a_killed_master() -> None:
    with (
        redis_cluster() as cluster,
        _cluster_server(cluster, "--redis-wait-replicas", "1") as address,
    ):
        with _players(address, 6) as played:
            _until("60 moves", lambda: played.count() >= 60)
            victim, slots = _busiest_master(cluster, played)
            killed_at = played.count()
            victim.kill()  # SIGKILL, under load
            _until("a failover", lambda: _failed_over(cluster, victim, slots))
            # The promoted replica has no replica of its own: its moves are refused (not
            # acknowledged) until the dead node is back, as a replica of the new master.
            victim.restart()
            _until("moves on the failed-over shard", lambda: _on(slots, played, killed_at) >= 20)
        print(played.summary(slots, killed_at))
        assert played.count() > killed_at
        assert _lost(cluster, played) == []


def test_a_commit_is_not_acknowledged_before_its_replica_has_it() -> None:
    """With wait_replicas, a commit whose replica does not answer is refused (the move is
    written, but not acknowledged); its retry with the same request id, once the replica is
    back, is acknowledged, at the version the first try made, not a second one."""

    async def body(cluster: RedisCluster) -> None:
        store = RedisStore.from_url(cluster.url, cluster=True, wait_replicas=1)
        try:
            game = new_record()
            await store.create(game, OPENING)
            await store.take_seat(game.game_id, 0, SeatRecord("hash", "p0"))
            assert await store.commit(game.game_id, step(0, request_id="a")) == 1
            replica = _replica_of(cluster, _master_of(cluster, key_slot(game.game_id)))
            replica.proc.send_signal(signal.SIGSTOP)
            try:
                with pytest.raises(StoreUnavailable, match="replicas"):
                    await store.commit(game.game_id, step(1, request_id="b"))
            finally:
                replica.proc.send_signal(signal.SIGCONT)
            # Retried as a client does, with the same request id: the same version, once.
            for _ in range(50):
                try:
                    version = await store.commit(game.game_id, step(1, request_id="b"))
                    break
                except RequestSeen as seen:
                    version = seen.version
                    break
                except StoreUnavailable:
                    await asyncio.sleep(0.2)
            assert version == 2
            assert (await store.load(game.game_id)).version == 2
            assert len(await store.moves(game.game_id)) == 2
        finally:
            await store.close()

    with redis_cluster() as cluster:
        asyncio.run(body(cluster))


def _master_of(cluster: RedisCluster, slot: int) -> ClusterNode:
    return next(m for m in cluster.masters() if slot in _slots_of(m))


def _failed_over(cluster: RedisCluster, victim: ClusterNode, slots: set[int]) -> bool:
    """Whether a live master other than ``victim`` serves its slots, and the cluster is ok."""
    return cluster.ok() and any(
        m is not victim and min(slots) in _slots_of(m) for m in cluster.masters()
    )


def _replica_of(cluster: RedisCluster, master: ClusterNode) -> ClusterNode:
    fields = master.info("replication")["slave0"].split(",")
    port = int(dict(f.split("=", 1) for f in fields)["port"])
    return next(n for n in cluster.nodes if n.port == port)


def test_an_idle_store_pings_every_shard_again_after_a_failover() -> None:
    """Readiness pings every master: while a killed master's shard has none it fails; once
    its replica is promoted the next ping, on a store that made no other call, reads the new
    map and succeeds."""

    async def body(cluster: RedisCluster) -> None:
        store = RedisStore.from_url(cluster.url, cluster=True)
        try:
            await store.ping()
            victim = cluster.masters()[-1]
            slots = _slots_of(victim)
            victim.kill()
            _until("a failover", lambda: _failed_over(cluster, victim, slots))
            await store.ping()
        finally:
            await store.close()

    with redis_cluster() as cluster:
        asyncio.run(body(cluster))
