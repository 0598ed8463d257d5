"""A seat's candidate addresses: where a peer might reach it directly.

Three kinds, all for one local TCP port (the port the punch will leave from):

* ``lan``: this machine's IPv4 address on the way out (reaches a peer on the same LAN);
* ``v6``: this machine's IPv6 addresses that are not link-local (no NAT: a peer dials them,
  both sides dialling at once gets through a stateful firewall that drops unsolicited inbound);
* ``stun``: the public mapping that STUN servers see for a connection from that port (the
  address of our home router, and the port it gave us);
* ``mapped``: a port mapping that the home router made for that port on request (UPnP IGD or
  NAT-PMP, node/punch/portmap.py): a peer's connect reaches us even through a NAT that a
  punch cannot cross. Released by :meth:`Gathered.release` (and it has a lifetime).

STUN servers come from :data:`DEFAULT_STUN_SERVERS` unless the seat says otherwise
(``--stun HOST:PORT,...`` or ``stun.servers`` in the config file). When two servers report
different mappings for the same port, the router maps per destination (a symmetric NAT): the
mapping is kept but flagged, since a peer cannot guess the port it would get.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from ..stun_servers import DEFAULT_STUN_SERVERS, MAX_STUN_SERVERS, parse_stun_servers
from .portmap import PortMapping, is_public_v4, map_port, route_source
from .stun import StunError, stun_tcp

__all__ = [
    "DEFAULT_STUN_SERVERS",
    "KINDS",
    "MAX_STUN_SERVERS",
    "Candidate",
    "Gathered",
    "gather_candidates",
    "local_addresses",
    "parse_stun_servers",
    "pick_port",
]

KINDS = ("lan", "v6", "stun", "mapped")
# Set (to anything but "0") where no mapping may be asked for: the test suite, so that no
# packet goes to the machine's own gateway.
NO_PORTMAP_ENV = "DEALERLESS_NO_PORTMAP"
# Where the routing table is asked for our outgoing address: nothing is sent to them (a UDP
# socket's connect only picks a route).
_PROBE_V4 = ("192.0.2.1", 9)  # TEST-NET-1: any routable-looking address will do
_PROBE_V6 = ("2001:db8::1", 9)


@dataclass(frozen=True, order=True)
class Candidate:
    kind: str  # one of KINDS
    address: str  # an IP literal
    port: int

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown candidate kind {self.kind!r}")
        ip = ipaddress.ip_address(self.address)  # ValueError if not an address
        if str(ip) != self.address:
            raise ValueError(f"candidate address {self.address!r} is not in canonical form")
        if not 1 <= self.port <= 65535:
            raise ValueError(f"candidate port {self.port} out of range")
        if ip.is_unspecified or ip.is_multicast or (ip.is_loopback and self.kind != "lan"):
            raise ValueError(f"{self.address} cannot be a {self.kind} candidate")
        if self.kind == "v6" and (ip.version != 6 or ip.is_link_local):
            raise ValueError(f"{self.address} is not a routable IPv6 address")
        if self.kind == "mapped" and not is_public_v4(self.address):
            raise ValueError(f"{self.address} is not a public IPv4 address")

    @property
    def is_loopback(self) -> bool:
        return ipaddress.ip_address(self.address).is_loopback

    @property
    def family(self) -> int:
        return socket.AF_INET6 if ":" in self.address else socket.AF_INET

    def __str__(self) -> str:
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.kind} {host}:{self.port}"


@dataclass
class Gathered:
    """What :func:`gather_candidates` found, and what went wrong on the way."""

    port: int
    candidates: list[Candidate] = field(default_factory=list)
    mappings: dict[str, tuple[str, int]] = field(default_factory=dict)  # server -> mapping
    problems: list[str] = field(default_factory=list)
    mapping: PortMapping | None = None  # the router's port mapping, ours to release

    async def release(self) -> None:
        """Delete the router's port mapping, if one was made (bounded)."""
        if self.mapping is not None:
            mapping, self.mapping = self.mapping, None
            with trio.CancelScope(shield=True):  # also when the node is being cancelled
                await mapping.release()

    @property
    def symmetric(self) -> bool:
        """Two STUN servers saw different public mappings of one port: punching through this
        router is very unlikely to work."""
        return len(set(self.mappings.values())) > 1


def pick_port() -> int:
    """A free local TCP port for the punch (the kernel's choice, then given up: the punch's
    sockets bind it again with SO_REUSEADDR + SO_REUSEPORT)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(("0.0.0.0", 0))  # noqa: S104 - the punch listens nowhere; this picks a port
        port: int = sock.getsockname()[1]
    return port


def _linux_v6_addresses() -> list[str]:
    """Every non-link-local, non-loopback IPv6 address of this machine (Linux only)."""
    path = Path("/proc/net/if_inet6")
    if not sys.platform.startswith("linux") or not path.exists():
        return []
    found: list[str] = []
    for line in path.read_text().splitlines()[:256]:
        fields = line.split()
        if len(fields) < 6 or len(fields[0]) != 32:
            continue
        try:
            ip = ipaddress.IPv6Address(bytes.fromhex(fields[0]))
        except ValueError:
            continue
        flags = int(fields[4], 16)
        if flags & 0x40:  # IFA_F_TENTATIVE: not usable yet
            continue
        found.append(str(ip))
    return found


def local_addresses() -> tuple[list[str], list[str]]:
    """(IPv4 addresses, IPv6 addresses) a peer might dial directly."""
    v4 = [a for a in [route_source(socket.AF_INET, _PROBE_V4)] if a]
    v6 = [a for a in [route_source(socket.AF_INET6, _PROBE_V6)] if a]
    v6 += [a for a in _linux_v6_addresses() if a not in v6]
    usable_v6 = []
    for text in v6:
        ip = ipaddress.IPv6Address(text)
        if not (ip.is_link_local or ip.is_loopback or ip.is_multicast or ip.ipv4_mapped):
            usable_v6.append(str(ip))
    return [a for a in v4 if not ipaddress.IPv4Address(a).is_loopback], usable_v6


async def _resolve(host: str, port: int) -> list[tuple[str, int]]:
    try:
        ipaddress.ip_address(host)
        return [(host, port)]
    except ValueError:
        pass
    infos = await trio.socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: list[tuple[str, int]] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        entry = (str(sockaddr[0]), int(sockaddr[1]))
        if entry not in seen:
            seen.append(entry)
    return seen[:4]


async def gather_candidates(
    port: int,
    stun_servers: Sequence[tuple[str, int]],
    *,
    timeout: float = 3.0,
    include_lan: bool = True,
    portmap: bool | None = None,
) -> Gathered:
    """Our candidates for local TCP ``port``: LAN and IPv6 addresses, the mappings the STUN
    servers report and a port mapping from the router (asked concurrently, each bounded by
    ``timeout`` seconds). ``portmap`` None: asked unless :data:`NO_PORTMAP_ENV` is set. The
    caller releases the mapping with :meth:`Gathered.release`."""
    gathered = Gathered(port)
    if portmap is None:
        portmap = os.environ.get(NO_PORTMAP_ENV, "0") == "0"
    v4, v6 = local_addresses()
    found: list[Candidate] = []
    if include_lan:
        found += [Candidate("lan", a, port) for a in v4]
    found += [Candidate("v6", a, port) for a in v6]

    async def ask(host: str, server_port: int) -> None:
        name = f"{host}:{server_port}"
        try:
            with trio.fail_after(timeout):
                addresses = await _resolve(host, server_port)
        except (OSError, trio.TooSlowError) as exc:
            gathered.problems.append(f"STUN server {name}: cannot resolve ({exc})")
            return
        for address in addresses:
            try:
                mapped = await stun_tcp(address, port, timeout)
            except StunError as exc:
                gathered.problems.append(f"STUN server {name}: {exc}")
                continue
            gathered.mappings[name] = mapped
            return

    async def ask_router() -> None:
        mapping, problems = await map_port(port, timeout=min(timeout, 2.0))
        gathered.problems += problems
        gathered.mapping = mapping

    async with trio.open_nursery() as nursery:
        for host, server_port in stun_servers:
            nursery.start_soon(ask, host, server_port)
        if portmap:
            nursery.start_soon(ask_router)
    if gathered.mapping is not None:
        # first: a peer's plain connect gets through, whatever our router does to a punch
        mapping = gathered.mapping
        found.insert(0, Candidate("mapped", mapping.external_address, mapping.external_port))
    for mapped_address, mapped_port in gathered.mappings.values():
        # IPv6 seen by STUN: our own address (no NAT), or a NAT66's.
        kind = "v6" if ":" in mapped_address else "stun"
        try:
            found.append(Candidate(kind, mapped_address, mapped_port))
        except ValueError as exc:
            gathered.problems.append(f"unusable mapping: {exc}")
    seen: set[tuple[str, int]] = set()
    for candidate in found:
        if (candidate.address, candidate.port) not in seen:
            seen.add((candidate.address, candidate.port))
            gathered.candidates.append(candidate)
    return gathered
