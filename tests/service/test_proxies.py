"""Per-address limits behind trusted proxies (issue 29, ``--trusted-proxy``): for calls from a
trusted proxy only, the client address is the one it forwards (``Forwarded`` ``for=``, else
``X-Forwarded-For``, the rightmost hop that is not a trusted proxy); from anywhere else the
headers are ignored. Both doors, over real sockets; and ``serve --host ::`` (IPv6), on ::1."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import grpc
import httpx
import pytest
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc

from service.cli import build_parser
from service.config import ServerConfig, host_port
from service.limits import LimitsConfig, Rate, from_args
from service.proxies import ClientAddresses, address_of, forwarded_hops, network_list
from service.running import ServerThread
from tests.servers import TEST_DEFAULTS, running_server

SERVICE = "tricktable.v1.GameService"
#: Refill so slow that a test never sees a token come back.
SLOW = 0.001
#: One CreateGame per client address, refused at once after it.
ONE_CREATE = LimitsConfig(create_game=Rate(SLOW, 1), open_games=0, rate_wait_s=0)


def _nets(*texts: str) -> tuple[Any, ...]:
    return tuple(ipaddress.ip_network(t) for t in texts)


# -- reading the headers ------------------------------------------------------------------------


def test_the_forwarded_for_hops_are_read_leftmost_first_without_ports() -> None:
    assert forwarded_hops(
        [
            (
                "forwarded",
                'for=192.0.2.60;proto=http;by=203.0.113.43, for="[2001:db8:cafe::17]:4711"',
            ),
            ("Forwarded", 'For="198.51.100.17:80";host="a,b"'),  # a quoted comma is no separator
            ("x-forwarded-for", "10.9.9.9"),  # Forwarded wins over X-Forwarded-For
        ]
    ) == ["192.0.2.60", "2001:db8:cafe::17", "198.51.100.17"]
    assert forwarded_hops([("x-forwarded-for", "203.0.113.7, [2001:db8::1]:443, 10.0.0.1:80")]) == [
        "203.0.113.7",
        "2001:db8::1",
        "10.0.0.1",
    ]
    assert forwarded_hops([("x-forwarded-for", b"198.51.100.1")]) == ["198.51.100.1"]
    assert forwarded_hops([("authorization", "Bearer x")]) == []


def test_the_client_is_the_rightmost_hop_that_is_not_a_trusted_proxy() -> None:
    addresses = ClientAddresses(_nets("10.0.0.0/8", "fd00::/8"))
    chain = [("x-forwarded-for", "6.6.6.6, 203.0.113.7, 10.1.1.1")]
    # From a trusted proxy: the left of the client's own hop (6.6.6.6, which the client wrote
    # itself) is never read; the proxies' own hops are passed over.
    assert addresses("ipv4:10.0.0.5:4000", chain) == "203.0.113.7"
    assert addresses("ipv6:[fd00::5]:4000", chain) == "203.0.113.7"
    assert addresses("ipv6:[::ffff:10.0.0.5]:4000", chain) == "203.0.113.7"  # mapped IPv4
    # From anywhere else the headers are ignored.
    assert addresses("ipv4:192.0.2.9:4000", chain) == "192.0.2.9"
    assert addresses("ipv6:[::ffff:192.0.2.9]:4000", chain) == "192.0.2.9"
    # No headers, or a hop that is not an address: the proxy's own address.
    assert addresses("ipv4:10.0.0.5:4000", []) == "10.0.0.5"
    assert addresses("ipv4:10.0.0.5:4000", [("forwarded", "for=unknown")]) == "10.0.0.5"
    assert addresses("ipv4:10.0.0.5:4000", [("forwarded", "for=_hidden")]) == "10.0.0.5"
    assert addresses("ipv4:10.0.0.5:4000", [("x-forwarded-for", "<script>")]) == "10.0.0.5"
    # Every hop a trusted proxy: the leftmost is the client.
    assert addresses("ipv4:10.0.0.5:4000", [("x-forwarded-for", "10.2.2.2, 10.3.3.3")]) == (
        "10.2.2.2"
    )
    # IPv6 clients are keyed in one spelling.
    assert addresses("ipv4:10.0.0.5:1", [("forwarded", 'for="[2001:DB8::0:1]"')]) == "2001:db8::1"
    # No trusted proxies: the connection's address, as always.
    assert ClientAddresses()("ipv4:10.0.0.5:4000", chain) == "10.0.0.5"
    assert address_of("ipv6:[::ffff:127.0.0.1]:80") == "127.0.0.1"
    assert address_of("ipv6:%5B::1%5D:80") == "::1"  # grpc's own spelling


def test_trusted_proxies_come_from_repeated_flags_or_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = build_parser().parse_args(
        ["serve", "--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "fd00::/8, 192.0.2.1"]
    )
    assert from_args(args).trusted_proxies == _nets("10.0.0.0/8", "fd00::/8", "192.0.2.1/32")
    monkeypatch.setenv("TRICKTABLE_TRUSTED_PROXIES", "172.16.0.0/12,10.0.0.0/8")
    args = build_parser().parse_args(["serve"])
    assert from_args(args).trusted_proxies == _nets("172.16.0.0/12", "10.0.0.0/8")
    args = build_parser().parse_args(["serve", "--trusted-proxy", "192.0.2.0/24"])
    assert from_args(args).trusted_proxies == _nets("192.0.2.0/24")  # the flag wins
    assert from_args(build_parser().parse_args(["serve"])).trusted_proxies != ()
    monkeypatch.delenv("TRICKTABLE_TRUSTED_PROXIES")
    assert from_args(build_parser().parse_args(["serve"])).trusted_proxies == ()
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--trusted-proxy", "not-a-network"])
    assert network_list("10.0.0.1") == _nets("10.0.0.1/32")


# -- both doors, real sockets ------------------------------------------------------------------


def _create_native(address: str, headers: list[tuple[str, str]]) -> tuple[str, str]:
    """CreateGame over native gRPC with ``headers``: ("OK", "") or (code, message)."""
    with grpc.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        try:
            stub.CreateGame(pb.CreateGameRequest(game_type="counterpoint"), metadata=headers)
        except grpc.RpcError as err:
            return err.code().name, err.details() or ""
    return "OK", ""


def _create_web(base_url: str, headers: list[tuple[str, str]]) -> tuple[str, str]:
    """CreateGame over the web port (Connect, binary) with ``headers``."""
    sent = {"content-type": "application/proto", "connect-protocol-version": "1"}
    with httpx.Client(base_url=base_url, timeout=30) as http:
        answer = http.post(
            f"/{SERVICE}/CreateGame",
            content=pb.CreateGameRequest(game_type="counterpoint").SerializeToString(),
            headers=[*sent.items(), *headers],
        )
    if answer.status_code == 200:
        return "OK", ""
    body = answer.json()
    return str(body["code"]).upper(), str(body.get("message", ""))


@pytest.fixture(params=["native", "web"])
def door(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _create(door: str, served: Any, headers: list[tuple[str, str]]) -> tuple[str, str]:
    if door == "native":
        return _create_native(served.address, headers)
    return _create_web(f"http://127.0.0.1:{served.web_port}", headers)


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limits(door: str) -> None:
    """The test's client is the proxy (127.0.0.1, trusted): each address it forwards has a
    CreateGame of its own, whichever header carries it; the client's own claims to the left
    of the proxy's hop change nothing."""
    limits = replace(ONE_CREATE, trusted_proxies=_nets("127.0.0.0/8"))
    with running_server(web_port=0, limits=limits) as served:
        first = [("x-forwarded-for", "203.0.113.7")]
        assert _create(door, served, first) == ("OK", "")
        code, message = _create(door, served, first)
        assert code == "RESOURCE_EXHAUSTED" and "203.0.113.7" in message
        # The same client through two proxies, the first one writing a lie to its left.
        lying = [("x-forwarded-for", "198.51.100.99, 203.0.113.7, 127.0.0.9")]
        code, message = _create(door, served, lying)
        assert code == "RESOURCE_EXHAUSTED" and "203.0.113.7" in message
        # Another client, by RFC 7239's header: its own bucket.
        other = [("forwarded", 'for="[2001:db8::7]:4711";proto=https')]
        assert _create(door, served, other) == ("OK", "")
        code, message = _create(door, served, other)
        assert code == "RESOURCE_EXHAUSTED" and "2001:db8::7" in message
        # No header: the proxy itself, a client like any other.
        assert _create(door, served, []) == ("OK", "")


def test_from_a_peer_that_is_not_trusted_the_headers_are_ignored(door: str) -> None:
    """Trusting another network, the test's client (127.0.0.1) is counted by its own address
    whatever it forwards: a second create under another forwarded address is refused."""
    limits = replace(ONE_CREATE, trusted_proxies=_nets("10.0.0.0/8"))
    with running_server(web_port=0, limits=limits) as served:
        assert _create(door, served, [("x-forwarded-for", "203.0.113.7")]) == ("OK", "")
        code, message = _create(door, served, [("forwarded", "for=203.0.113.8")])
        assert code == "RESOURCE_EXHAUSTED" and "127.0.0.1" in message
        assert "203.0.113" not in message


# -- IPv6 ---------------------------------------------------------------------------------------


def _ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


needs_ipv6 = pytest.mark.skipif(
    not _ipv6_loopback(), reason="this machine has no IPv6 loopback (::1) to listen on"
)


@contextmanager
def _serving(host: str, **config: Any) -> Iterator[ServerThread]:
    """A server listening on ``host`` (both doors), reached by the test on loopback only."""
    settings = {**TEST_DEFAULTS, "host": host, "web_port": 0, **config}
    with ServerThread(ServerConfig(**settings)) as server:
        yield server


def _ports(server: ServerThread) -> tuple[int, int]:
    running = server.server
    assert running is not None and running.web_port is not None
    return running.port, running.web_port


@needs_ipv6
@pytest.mark.parametrize("host", ["::", "::1"])
def test_serve_listens_on_ipv6_and_counts_ipv6_clients_by_their_address(host: str) -> None:
    """``--host ::`` (any address) and ``--host ::1``: both doors answer on ::1, and the limits
    name the client as it came (``::1``); on ``::`` an IPv4 client reaches the same socket and is
    counted by its IPv4 address, not its mapped IPv6 form."""
    with _serving(host, limits=ONE_CREATE) as server:
        grpc_port, web_port = _ports(server)
        v6 = host_port("::1", grpc_port)
        assert v6 == f"[::1]:{grpc_port}"
        assert _create_native(v6, []) == ("OK", "")
        code, message = _create_native(v6, [])
        assert code == "RESOURCE_EXHAUSTED" and "from ::1" in message
        code, message = _create_web(f"http://[::1]:{web_port}", [])
        assert code == "RESOURCE_EXHAUSTED" and "from ::1" in message  # one client, both doors
        if host == "::":
            assert _create_native(f"127.0.0.1:{grpc_port}", []) == ("OK", "")
            code, message = _create_web(f"http://127.0.0.1:{web_port}", [])
            assert code == "RESOURCE_EXHAUSTED" and "from 127.0.0.1" in message
