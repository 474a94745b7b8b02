"""The pipelined Redis connection (service.store.redis_pipe) against the session's real
redis-server: replies matched to calls in order with many in flight, error replies, NOSCRIPT
after SCRIPT FLUSH, credentials and database, and a dropped connection (timeout or killed)
failing its calls and coming back on the next one. Nothing is timed: the one timeout here is
provoked by a command that blocks far longer than it."""

from __future__ import annotations

import asyncio
import socket
import ssl
import uuid
from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.base import FINISHED
from service.store.redis import RedisStore
from service.store.redis_pipe import (
    KEEPALIVE_IDLE_S,
    PipelinedRedis,
    Script,
    connection_options,
    keep_alive,
    pack,
)
from tests.store.test_contract import OPENING, new_record, step

GUARD_S = 20.0

Body = Callable[[PipelinedRedis, aioredis.Redis], Awaitable[None]]


def run(redis_url: str, body: Body, timeout_s: float = 5.0) -> None:
    """Run ``body`` with a pipelined connection and a redis-py client to the same server. A
    call is in flight once its coroutine runs: the tests start them as tasks."""

    async def main() -> None:
        raw = aioredis.Redis.from_url(redis_url)
        pipe = PipelinedRedis.from_url(redis_url, timeout_s=timeout_s)
        try:
            await asyncio.wait_for(body(pipe, raw), GUARD_S)
        finally:
            await pipe.close()
            await raw.aclose()

    asyncio.run(main())


def test_pack_writes_resp_bulk_strings() -> None:
    assert pack(("SET", b"k\r\n", 12, 1.5)) == (
        b"*4\r\n$3\r\nSET\r\n$3\r\nk\r\n\r\n$2\r\n12\r\n$3\r\n1.5\r\n"
    )


def test_many_calls_in_flight_each_get_their_own_reply(redis_url: str) -> None:
    async def body(pipe: PipelinedRedis, raw: aioredis.Redis) -> None:
        key = f"pipe-test:{uuid.uuid4().hex}"
        values = [f"v{i}".encode() * (i % 50 + 1) for i in range(500)]
        echoed = await asyncio.gather(*(pipe.execute("ECHO", v) for v in values))
        assert echoed == values
        counts = await asyncio.gather(*(pipe.execute("INCR", key) for _ in range(300)))
        assert sorted(counts) == list(range(1, 301))
        assert await raw.get(key) == b"300"

    run(redis_url, body)


def test_an_error_reply_raises_for_its_call_only(redis_url: str) -> None:
    async def body(pipe: PipelinedRedis, raw: aioredis.Redis) -> None:
        key = f"pipe-test:{uuid.uuid4().hex}"
        await raw.set(key, "text")
        before = asyncio.ensure_future(pipe.execute("ECHO", "before"))
        wrong = asyncio.ensure_future(pipe.execute("HGET", key, "field"))  # WRONGTYPE
        after = asyncio.ensure_future(pipe.execute("ECHO", "after"))
        assert await before == b"before"
        with pytest.raises(ResponseError, match="WRONGTYPE"):
            await wrong
        assert await after == b"after"
        assert await pipe.execute("HGET", f"{key}:none", "f") is None

    run(redis_url, body)


def test_a_flushed_script_is_loaded_again(redis_url: str) -> None:
    async def body(pipe: PipelinedRedis, raw: aioredis.Redis) -> None:
        script = Script(f"return {{KEYS[1], ARGV[1], '{uuid.uuid4().hex}'}}")
        first = await pipe.evalsha(script, ["k"], ["a"])
        assert first[:2] == [b"k", b"a"]
        await raw.script_flush()
        assert (await raw.script_exists(script.sha)) == [False]
        assert (await pipe.evalsha(script, ["k"], ["b"]))[:2] == [b"k", b"b"]
        assert (await raw.script_exists(script.sha)) == [True]  # EVAL cached it again

    run(redis_url, body)


def test_a_reply_overdue_drops_the_connection_and_the_next_call_reconnects(
    redis_url: str,
) -> None:
    async def body(pipe: PipelinedRedis, raw: aioredis.Redis) -> None:
        assert await pipe.execute("PING") == b"PONG"
        # BLPOP on an empty list blocks the connection for 10 s: far past the 0.2 s timeout.
        blocked = asyncio.ensure_future(pipe.execute("BLPOP", f"pipe-test:{uuid.uuid4().hex}", 10))
        queued = asyncio.ensure_future(pipe.execute("PING"))  # behind it, same connection
        with pytest.raises(RedisTimeoutError):
            await blocked
        with pytest.raises(RedisTimeoutError):
            await queued
        assert await pipe.execute("ECHO", "again") == b"again"

    run(redis_url, body, timeout_s=0.2)


def test_a_killed_connection_fails_its_calls_and_the_next_call_reconnects(
    redis_url: str,
) -> None:
    async def body(pipe: PipelinedRedis, raw: aioredis.Redis) -> None:
        name = f"pipe-{uuid.uuid4().hex[:8]}"
        await pipe.execute("CLIENT", "SETNAME", name)
        blocked = asyncio.ensure_future(pipe.execute("BLPOP", f"pipe-test:{uuid.uuid4().hex}", 10))
        await asyncio.sleep(0.1)  # sent and blocking
        clients = await raw.client_list()
        (ours,) = [c for c in clients if c["name"] == name]
        await raw.client_kill_filter(_id=ours["id"])
        with pytest.raises(RedisConnectionError):
            await blocked
        assert await pipe.execute("ECHO", "again") == b"again"

    run(redis_url, body)


def test_credentials_and_database_come_from_the_url(redis_url: str) -> None:
    user = f"pipe-{uuid.uuid4().hex[:8]}"
    host_port = redis_url.removeprefix("redis://").split("/")[0]

    async def main() -> None:
        admin = aioredis.Redis.from_url(redis_url)
        await admin.execute_command(  # type: ignore[no-untyped-call]
            "ACL", "SETUSER", user, "on", ">secret", "~*", "+@all"
        )
        key = f"pipe-test:{uuid.uuid4().hex}"
        good_pipe = PipelinedRedis.from_url(f"redis://{user}:secret@{host_port}/3")
        bad_pipe = PipelinedRedis.from_url(f"redis://{user}:wrong@{host_port}/0")
        try:
            await good_pipe.execute("SET", key, "in db 3")
            assert await good_pipe.execute("ACL", "WHOAMI") == user.encode()
            db3 = aioredis.Redis.from_url(redis_url.rsplit("/", 1)[0] + "/3")
            assert await db3.get(key) == b"in db 3"
            assert await admin.get(key) is None  # not in db 0
            await db3.delete(key)
            await db3.aclose()
            with pytest.raises(ResponseError):
                await bad_pipe.execute("PING")
        finally:
            await good_pipe.close()
            await bad_pipe.close()
            await admin.acl_deluser(user)
            await admin.aclose()

    asyncio.run(asyncio.wait_for(main(), GUARD_S))


def test_urls_say_where_and_how_to_connect() -> None:
    tcp = connection_options("redis://us%40er:p%3Aw@db.example:6390/4")
    assert (tcp.host, tcp.port, tcp.path, tcp.db) == ("db.example", 6390, None, 4)
    assert (tcp.username, tcp.password, tcp.tls) == ("us@er", "p:w", None)
    assert connection_options("redis://:pw@h").username is None
    assert connection_options("redis://:pw@h").password == "pw"
    unix = connection_options("unix:///tmp/redis.sock?db=2")
    assert (unix.path, unix.db, unix.tls) == ("/tmp/redis.sock", 2, None)
    tls = connection_options("rediss://h:6380/0").tls
    assert tls is not None and tls.check_hostname and tls.verify_mode == ssl.CERT_REQUIRED
    loose = connection_options("rediss://h/0?ssl_cert_reqs=none").tls
    assert loose is not None and not loose.check_hostname and loose.verify_mode == ssl.CERT_NONE
    by_ip = connection_options("rediss://10.0.0.1/0?ssl_check_hostname=false").tls
    assert by_ip is not None and not by_ip.check_hostname
    assert by_ip.verify_mode == ssl.CERT_REQUIRED


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://h:6379/0", "redis://, rediss:// or unix://"),
        ("redis://h/zero", "a number"),
        ("redis://h/0?ssl_cert_reqs=none", "rediss://"),
        ("rediss://h/0?ssl_cert_reqs=sometimes", "none, optional or required"),
        ("rediss://h/0?ssl_check_hostname=maybe", "true or false"),
        ("rediss://h/0?ssl_keyfile=k.pem", "ssl_certfile"),
        ("redis://h/0?timeout=3", "unknown Redis URL parameter"),
        ("redis://h:port/0", "bad port"),
    ],
)
def test_a_bad_url_is_refused_with_why(url: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        connection_options(url)


def test_a_closed_connection_refuses_calls(redis_url: str) -> None:
    async def body(pipe: PipelinedRedis, raw: aioredis.Redis) -> None:
        assert await pipe.execute("PING") == b"PONG"
        await pipe.close()
        with pytest.raises(RedisConnectionError):
            await pipe.execute("PING")

    run(redis_url, body)


def test_a_finished_game_leaves_the_lobby_index(redis_url: str) -> None:
    """The index itself, not only what list_open shows (which re-reads every game)."""

    async def main() -> None:
        store = RedisStore.from_url(redis_url)
        raw = aioredis.Redis.from_url(redis_url)
        try:
            record = new_record()
            await store.create(record, OPENING)
            assert await raw.zscore("tt:lobby", record.game_id) is not None
            await store.commit(record.game_id, step(0, status=FINISHED))
            assert await raw.zscore("tt:lobby", record.game_id) is None
        finally:
            await store.close()
            await raw.aclose()

    asyncio.run(asyncio.wait_for(main(), GUARD_S))


def test_connections_probe_a_vanished_peer_with_tcp_keepalive(redis_url: str) -> None:
    """A subscription is quiet while no game moves; keepalive is what notices a half-open one."""

    async def body(pipe: PipelinedRedis, raw: aioredis.Redis) -> None:
        subscription = await pipe.psubscribe("pipe-test:*", lambda message: None)
        try:
            sock = subscription._protocol._transport.get_extra_info("socket")  # type: ignore[union-attr]
            assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
            if hasattr(socket, "TCP_KEEPIDLE"):
                idle = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE)
                assert idle == KEEPALIVE_IDLE_S
        finally:
            subscription.close()

    run(redis_url, body)


def test_keepalive_leaves_unix_sockets_alone() -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        keep_alive(left)  # no TCP options on a Unix socket: nothing to set, nothing raised
        assert left.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 0
    keep_alive(None)
