"""The client address a call's per-address limits count it by (service.limits), behind trusted
proxies (issue 29, ``serve --trusted-proxy CIDR``).

Behind a load balancer or an ingress every call arrives from the proxy's address, and the
per-address limits would treat a whole site as one client. For a call whose connection comes
from a trusted proxy only, the client address is read from what the proxies forwarded: the
``Forwarded`` header (RFC 7239, its ``for=`` parameters), or, without one, ``X-Forwarded-For``;
each proxy appends the address it was reached from, so the list is read from the right, past
the trusted proxies, to the first hop that is not one: the rightmost untrusted hop. The hops to
its left are the client's own words, which anyone can write, and are never read. A call from
anywhere else is counted by its connection's address, whatever headers it sends: a client that
writes ``X-Forwarded-For`` itself gains nothing.

Both doors read the same headers: native gRPC as call metadata, the web port as HTTP headers.
A forwarded hop that is not an address (``unknown``, an obfuscated ``_name``, garbage) names no
client to tell apart: the call is then counted by the proxy's own address, as it would be
without trust. IPv4 addresses mapped into IPv6 (``::ffff:1.2.3.4``, what a dual-stack ``::``
listener sees of an IPv4 client) are read as the IPv4 address, so one client has one key.
"""

from __future__ import annotations

import argparse
import ipaddress
import urllib.parse
from collections.abc import Iterable, Sequence
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def network(text: str) -> Network:
    """A ``--trusted-proxy`` value: a CIDR (``10.0.0.0/8``, ``fd00::/8``) or one address."""
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a network such as 10.0.0.0/8 or an address, got {text!r}"
        ) from None


def network_list(text: str) -> tuple[Network, ...]:
    """One ``--trusted-proxy`` flag's networks, or the variable's (comma or space separated)."""
    found = tuple(network(item) for item in text.replace(",", " ").split())
    if not found:
        raise argparse.ArgumentTypeError("expected a network such as 10.0.0.0/8, got nothing")
    return found


def address_of(peer: str) -> str:
    """The client address of a grpc peer string (``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:5678``,
    ``unix:/path``): the connection's port dropped. grpc writes an IPv6 peer's brackets
    percent-encoded (``ipv6:%5B::1%5D:5678``), as in a URI."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        host = urllib.parse.unquote(rest.rpartition(":")[0])
        return _plain(host.strip("[]"))
    return kind


def _plain(text: str) -> str:
    """An IPv4-mapped IPv6 address as its IPv4 address; anything else as it was."""
    if text[:7].lower() == "::ffff:":
        parsed = _ip(text)  # the mapped address' IPv4 form
        if parsed is not None:
            return str(parsed)
    return text


def _ip(text: str) -> Address | None:
    try:
        parsed = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        return parsed.ipv4_mapped
    return parsed


class ClientAddresses:
    """The address a call is counted by: its connection's, or, from a trusted proxy, the one
    the proxies forwarded (module docstring)."""

    def __init__(self, trusted: Sequence[Network] = ()) -> None:
        self._trusted = tuple(trusted)

    def __bool__(self) -> bool:
        return bool(self._trusted)

    def _is_trusted(self, address: Address) -> bool:
        return any(address in net for net in self._trusted)

    def __call__(self, peer: str, metadata: Iterable[tuple[str, Any]] | None) -> str:
        address = address_of(peer)
        if not self._trusted or metadata is None:
            return address
        ip = _ip(address)
        if ip is None or not self._is_trusted(ip):
            return address  # not from a proxy we trust: its headers are the client's words
        hops = forwarded_hops(metadata)
        for hop in reversed(hops):
            hop_ip = _ip(hop)
            if hop_ip is None:
                return address  # no address to tell the client by: the proxy's own
            if not self._is_trusted(hop_ip):
                return str(hop_ip)
        # Every hop is a trusted proxy (or none was forwarded): the leftmost is the client.
        first = _ip(hops[0]) if hops else None
        return str(first) if first is not None else address


def forwarded_hops(metadata: Iterable[tuple[str, Any]]) -> list[str]:
    """The addresses the proxies forwarded, leftmost (the farthest) first, without ports or
    brackets: from every ``Forwarded`` header's ``for=`` parameters in order, or without one,
    from every ``X-Forwarded-For``. A hop that is not an address is kept as its text (it is
    no address, which the caller sees)."""
    forwarded: list[str] = []
    x_forwarded: list[str] = []
    for key, value in metadata:
        name = key.lower()
        if name not in ("forwarded", "x-forwarded-for"):
            continue
        text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
        if name == "forwarded":
            forwarded.extend(_forwarded_for(text))
        else:
            x_forwarded.extend(_node(part) for part in text.split(",") if part.strip())
    return forwarded if forwarded else x_forwarded


def _forwarded_for(text: str) -> list[str]:
    """The ``for=`` values of a ``Forwarded`` header (RFC 7239 §4: comma-separated elements of
    semicolon-separated pairs; values are tokens or quoted strings, which may hold commas)."""
    hops: list[str] = []
    for element in _split(text, ","):
        for pair in _split(element, ";"):
            name, sep, value = pair.partition("=")
            if sep and name.strip().lower() == "for":
                hops.append(_node(_unquote(value.strip())))
    return hops


def _split(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside quoted strings."""
    parts: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == separator and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [part for part in parts if part.strip()]


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        inner = value[1:-1]
        out: list[str] = []
        escaped = False
        for char in inner:
            if char == "\\" and not escaped:
                escaped = True
                continue
            escaped = False
            out.append(char)
        return "".join(out)
    return value


def _node(value: str) -> str:
    """A node (``1.2.3.4``, ``1.2.3.4:80``, ``[2001:db8::1]:443``, ``2001:db8::1``) without
    its port and brackets; anything else as it was."""
    node = value.strip()
    if node.startswith("["):
        inner, sep, _ = node[1:].partition("]")
        return inner if sep else node
    if node.count(":") == 1:  # IPv4 and a port (a bare IPv6 address has several colons)
        return node.partition(":")[0]
    return node
