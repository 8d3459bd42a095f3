# Who a request comes from, behind a reverse proxy or load balancer.
#
# The session table makes room by ending a session of whoever holds the most
# (sessions.pick_victim), and a quota may count sessions per client address.
# Behind a balancer every request comes from the balancer's address, so the
# address must come from what the balancer says: RFC 7239 `Forwarded`
# (``for=`` of each element) or the de-facto `X-Forwarded-For`. Each proxy
# appends the address it received the request from, so the list is read from
# the right: entries appended by a trusted proxy are believed, and the first
# address that is not a trusted proxy is the client. Anyone can send these
# headers, so with no trusted proxy configured (the default) they are ignored.

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Mapping

__all__ = ["check_trusted", "client_address"]

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@functools.lru_cache(maxsize=8)
def _networks(trusted: tuple[str, ...]) -> tuple[_Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in trusted)


def check_trusted(trusted: tuple[str, ...]) -> None:
    """Raise ValueError unless each entry is an IP address or network."""
    if isinstance(trusted, str):
        raise ValueError("trusted_proxies is a tuple of addresses, not one string")
    _networks(tuple(trusted))


def _is_trusted(address: str, networks: tuple[_Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False  # "unknown", an obfuscated name (RFC 7239 section 6.3)
    return any(ip in network for network in networks)


def _forwarded_for(value: str) -> list[str]:
    # RFC 7239 section 4: elements separated by ",", pairs by ";"; a node may be
    # quoted, an IPv6 one in brackets, either with a port (section 6).
    found = []
    for element in value.split(","):
        for pair in element.split(";"):
            name, _, node = pair.strip().partition("=")
            if name.strip().lower() != "for":
                continue
            node = node.strip().strip('"')
            if node.startswith("["):
                node = node[1:].partition("]")[0]
            elif node.count(":") == 1:
                node = node.partition(":")[0]
            found.append(node)
    return found


def client_address(
    peer: str | None, headers: Mapping[str, str], trusted: tuple[str, ...]
) -> str | None:
    """The address a request comes from.

    Args:
        peer: the address of the connection (the adapter's), or None.
        headers: the request's header fields, names in lower case.
        trusted: addresses or networks (``"10.0.0.0/8"``) of the proxies whose
            ``Forwarded`` or ``X-Forwarded-For`` is believed; empty: none is.

    Returns:
        ``peer`` unless it is a trusted proxy; then the last address of the
        forwarding chain that is not one (``Forwarded`` first, else
        ``X-Forwarded-For``), or the first of the chain when all are.

    Raises:
        ValueError: an entry of ``trusted`` is neither an address nor a network.
    """
    if not trusted or peer is None:
        return peer
    networks = _networks(trusted)
    if not _is_trusted(peer, networks):
        return peer
    forwarded = headers.get("forwarded")
    if forwarded is not None:
        chain = _forwarded_for(forwarded)
    else:
        chain = [entry.strip() for entry in headers.get("x-forwarded-for", "").split(",")]
    chain = [entry for entry in chain if entry]
    for address in reversed(chain):
        if not _is_trusted(address, networks):
            return address
    return chain[0] if chain else peer
