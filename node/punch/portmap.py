"""A port mapping from the home router: UPnP IGD (the ``miniupnpc`` library), NAT-PMP (RFC
6886) and PCP (RFC 6887), the last two small clients of our own: no maintained Python library
exists for them.

Both are asked at once, bounded (about 2 s); the first mapping wins and any other is
released. A mapping has a lifetime (:data:`LIFETIME_S`) so that a crashed node does not leave
it open for ever, and :meth:`PortMapping.release` deletes it when the node is done with it.
A mapping whose external address is not public (a router behind another NAT) is not used.

Everything here only talks to the default gateway (NAT-PMP) or to what answers SSDP on the
LAN (UPnP): a router learns that we want TCP ``port`` reachable from outside for a while.
"""

from __future__ import annotations

import contextlib
import ipaddress
import secrets
import socket
import struct
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

__all__ = [
    "LIFETIME_S",
    "NATPMP_PORT",
    "PCP_VERSION",
    "PortMapError",
    "PortMapping",
    "ask_gateway",
    "default_gateway",
    "is_public_v4",
    "map_port",
    "natpmp_map",
    "natpmp_unmap",
    "parse_natpmp_address",
    "parse_natpmp_map",
    "parse_pcp_map",
    "pcp_map",
    "pcp_request",
    "pcp_unmap",
    "route_source",
    "upnp_map",
]

NATPMP_PORT = 5351
# Only needed until the punch's link is up (an open TCP connection keeps its own state in the
# router); long enough for a slow rendezvous and the retries of one punch.
LIFETIME_S = 600
DESCRIPTION = "dealerless direct link"
_NATPMP_FIRST_WAIT = 0.25  # RFC 6886 3.1: 250 ms, doubling
_NATPMP_RESULTS = {
    1: "unsupported version",
    2: "not authorized / refused",
    3: "network failure",
    4: "out of resources",
    5: "unsupported opcode",
}
# Addresses that mean "this router is behind another NAT" or are no address at all: a peer
# could not reach them. (The benchmarking range 198.18.0.0/15, the NAT lab's "internet", is
# not among them: it is not used for NAT.)
_NOT_PUBLIC = [
    ipaddress.IPv4Network(n)
    for n in ("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
              "172.16.0.0/12", "192.168.0.0/16", "224.0.0.0/4", "240.0.0.0/4")
]  # fmt: skip


class PortMapError(Exception):
    """The router gave no usable mapping (or its answer was malformed)."""


def is_public_v4(address: str) -> bool:
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        return False
    return not any(ip in network for network in _NOT_PUBLIC)


@dataclass
class PortMapping:
    protocol: str  # "upnp", "natpmp" or "pcp"
    external_address: str
    external_port: int
    internal_port: int
    lifetime: int  # seconds the router keeps it
    _release: Callable[[], Awaitable[None]] | None = field(default=None, repr=False)

    async def release(self, timeout: float = 1.0) -> None:
        """Delete the mapping (bounded; errors are swallowed: the lifetime ends it anyway)."""
        release, self._release = self._release, None
        if release is None:
            return
        with trio.move_on_after(timeout):
            with contextlib.suppress(OSError, PortMapError, trio.TooSlowError):
                await release()


def default_gateway() -> str | None:
    """The IPv4 default gateway from the kernel's routing table (Linux), else None."""
    path = Path("/proc/net/route")
    if not sys.platform.startswith("linux") or not path.exists():
        return None
    for line in path.read_text().splitlines()[1:256]:
        fields = line.split()
        if len(fields) >= 4 and fields[1] == "00000000" and int(fields[3], 16) & 0x2:
            return str(ipaddress.IPv4Address(struct.pack("<I", int(fields[2], 16))))
    return None


# -- NAT-PMP (RFC 6886) -----------------------------------------------------------------------


def parse_natpmp_address(data: bytes) -> str:
    """The external address from a response to opcode 0; PortMapError if malformed."""
    if len(data) != 12:
        raise PortMapError(f"NAT-PMP: address response of {len(data)} bytes, not 12")
    version, opcode, result, _epoch = struct.unpack("!BBHI", data[:8])
    _check_header(version, opcode, result, 128)
    return str(ipaddress.IPv4Address(data[8:12]))


def parse_natpmp_map(data: bytes, internal_port: int, *, deleting: bool = False) -> tuple[int, int]:
    """(external port, lifetime) from a response to a TCP map request for ``internal_port``."""
    if len(data) != 16:
        raise PortMapError(f"NAT-PMP: mapping response of {len(data)} bytes, not 16")
    version, opcode, result, _epoch, internal, external, lifetime = struct.unpack("!BBHIHHI", data)
    _check_header(version, opcode, result, 130)
    if internal != internal_port:  # no transaction id in NAT-PMP: the port says whose answer
        raise PortMapError(f"NAT-PMP: answer for port {internal}, we asked for {internal_port}")
    if not deleting and (external == 0 or lifetime == 0):
        raise PortMapError("NAT-PMP: mapping with no external port or no lifetime")
    return external, lifetime


def _check_header(version: int, opcode: int, result: int, expected_opcode: int) -> None:
    if version != 0:
        raise PortMapError(f"NAT-PMP: version {version} in the response, not 0")
    if opcode != expected_opcode:
        raise PortMapError(f"NAT-PMP: opcode {opcode} in the response, not {expected_opcode}")
    if result != 0:
        why = _NATPMP_RESULTS.get(result, "unknown result code")
        raise PortMapError(f"NAT-PMP: result {result} ({why})")


def route_source(family: int, probe: tuple[str, int]) -> str | None:
    """The local address the routing table would send to ``probe`` from (no packet leaves)."""
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.connect(probe)
            address: str = sock.getsockname()[0]
    except OSError:
        return None
    return address


async def ask_gateway(
    what: str, gateway: str, server_port: int, request: bytes, timeout: float, *, size: int = 64
) -> bytes:
    """Send ``request`` to the gateway, retransmitting (250 ms, doubling) until an answer from
    the gateway's address and port arrives; PortMapError (``what``: the protocol's name) when
    ``timeout`` passes or the socket fails. Packets from anywhere else are ignored (RFC 6886
    3.1: only the gateway answers)."""
    try:
        with trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            await sock.bind(("0.0.0.0", 0))  # noqa: S104 - a client socket, any local address
            wait = _NATPMP_FIRST_WAIT
            with trio.fail_after(timeout):
                while True:
                    await sock.sendto(request, (gateway, server_port))
                    with trio.move_on_after(wait):
                        while True:
                            data, source = await sock.recvfrom(size)
                            if (source[0], source[1]) == (gateway, server_port):
                                return bytes(data)
                    wait *= 2
    except trio.TooSlowError:
        raise PortMapError(f"{what}: no answer from {gateway}:{server_port}") from None
    except OSError as exc:
        raise PortMapError(f"{what}: {exc}") from None


async def natpmp_map(
    internal_port: int,
    *,
    gateway: str,
    lifetime: int = LIFETIME_S,
    timeout: float = 2.0,
    server_port: int = NATPMP_PORT,
) -> PortMapping:
    """Map TCP ``internal_port`` on the gateway (the same external port asked for)."""
    deadline = trio.current_time() + timeout  # both questions together
    asked = await ask_gateway("NAT-PMP", gateway, server_port, b"\x00\x00", timeout)
    address = parse_natpmp_address(asked)
    request = struct.pack("!BBHHHI", 0, 2, 0, internal_port, internal_port, lifetime)
    left = max(0.0, deadline - trio.current_time())
    answer = await ask_gateway("NAT-PMP", gateway, server_port, request, left)
    external, granted = parse_natpmp_map(answer, internal_port)
    if not is_public_v4(address):
        raise PortMapError(f"NAT-PMP: external address {address} is not public")

    async def release() -> None:
        await natpmp_unmap(internal_port, gateway=gateway, server_port=server_port)

    return PortMapping("natpmp", address, external, internal_port, granted, release)


async def natpmp_unmap(
    internal_port: int, *, gateway: str, timeout: float = 1.0, server_port: int = NATPMP_PORT
) -> None:
    """Delete our mapping of TCP ``internal_port`` (lifetime 0, external port 0: RFC 6886 3.4)."""
    request = struct.pack("!BBHHHI", 0, 2, 0, internal_port, 0, 0)
    answer = await ask_gateway("NAT-PMP", gateway, server_port, request, timeout)
    parse_natpmp_map(answer, internal_port, deleting=True)


# -- PCP (RFC 6887) MAP: the same port as NAT-PMP, a nonce says whose answer -------------

PCP_VERSION = 2
OPCODE_MAP = 1
TCP = 6
HEADER = struct.Struct("!BBBBI")  # version, R|opcode, reserved, result, lifetime
MAX_ANSWER = 1100  # RFC 6887 7: a PCP message is at most 1100 bytes
_RESULTS = {
    1: "unsupported version",
    2: "not authorized",
    3: "malformed request",
    4: "unsupported opcode",
    5: "unsupported option",
    6: "malformed option",
    7: "network failure",
    8: "no resources",
    9: "unsupported protocol",
    10: "user quota exceeded",
    11: "cannot provide the external address",
    12: "address mismatch",
    13: "excessive remote peers",
}


def _mapped(address: str) -> bytes:
    """An IPv4 address as the IPv4-mapped IPv6 address PCP carries (RFC 6887 5)."""
    return ipaddress.IPv6Address(f"::ffff:{address}").packed


def pcp_request(client: str, internal_port: int, lifetime: int, nonce: bytes) -> bytes:
    """A MAP request for TCP ``internal_port`` from our address ``client`` (the same external
    port suggested, any external address)."""
    header = struct.pack("!BBHI", PCP_VERSION, OPCODE_MAP, 0, lifetime) + _mapped(client)
    any_address = _mapped("0.0.0.0")  # noqa: S104 - "any external address" (RFC 6887 11.1)
    return header + nonce + struct.pack("!B3xHH", TCP, internal_port, internal_port) + any_address


def parse_pcp_map(
    data: bytes, nonce: bytes, internal_port: int, *, deleting: bool = False
) -> tuple[str, int, int]:
    """(external address, external port, lifetime) from the answer to our MAP request;
    PortMapError naming what is wrong."""
    if not 60 <= len(data) <= MAX_ANSWER or len(data) % 4:
        raise PortMapError(f"PCP: answer of {len(data)} bytes")
    version, opcode, _reserved, result, lifetime = HEADER.unpack_from(data)
    if version != PCP_VERSION:
        raise PortMapError(f"PCP: version {version} in the answer, not {PCP_VERSION}")
    if opcode != 0x80 | OPCODE_MAP:
        raise PortMapError(f"PCP: opcode {opcode:#x} in the answer, not a MAP response")
    if result != 0:
        raise PortMapError(f"PCP: result {result} ({_RESULTS.get(result, 'unknown')})")
    if data[24:36] != nonce:
        raise PortMapError("PCP: the answer's nonce is not ours")
    protocol, internal, external = struct.unpack_from("!B3xHH", data, 36)
    if protocol != TCP or internal != internal_port:
        raise PortMapError(f"PCP: answer for protocol {protocol} port {internal}")
    address = ipaddress.IPv6Address(data[44:60])
    if address.ipv4_mapped is None:
        raise PortMapError("PCP: the external address is not an IPv4 one")
    if not deleting and (external == 0 or lifetime == 0):
        raise PortMapError("PCP: mapping with no external port or no lifetime")
    return str(address.ipv4_mapped), external, lifetime


async def pcp_map(
    internal_port: int,
    *,
    gateway: str,
    lifetime: int = LIFETIME_S,
    timeout: float = 2.0,
    server_port: int = NATPMP_PORT,
) -> PortMapping:
    """Map TCP ``internal_port`` on the gateway through PCP."""
    nonce = secrets.token_bytes(12)
    client = route_source(socket.AF_INET, (gateway, server_port))  # the address PCP wants
    if client is None:
        raise PortMapError(f"PCP: no route to the gateway {gateway}")
    request = pcp_request(client, internal_port, lifetime, nonce)
    answer = await ask_gateway("PCP", gateway, server_port, request, timeout, size=MAX_ANSWER)
    address, external, granted = parse_pcp_map(answer, nonce, internal_port)
    if not is_public_v4(address):
        raise PortMapError(f"PCP: external address {address} is not public")

    async def release() -> None:
        await pcp_unmap(internal_port, nonce, client, gateway=gateway, server_port=server_port)

    return PortMapping("pcp", address, external, internal_port, granted, release)


async def pcp_unmap(
    internal_port: int,
    nonce: bytes,
    client: str,
    *,
    gateway: str,
    timeout: float = 1.0,
    server_port: int = NATPMP_PORT,
) -> None:
    """Delete our mapping: the same request (its nonce) with lifetime 0 (RFC 6887 15)."""
    request = pcp_request(client, internal_port, 0, nonce)
    answer = await ask_gateway("PCP", gateway, server_port, request, timeout, size=MAX_ANSWER)
    parse_pcp_map(answer, nonce, internal_port, deleting=True)


# -- UPnP IGD (miniupnpc) ---------------------------------------------------------------------


def _upnp_blocking(
    internal_port: int, lifetime: int, delay_ms: int, abandoned: threading.Event
) -> tuple[Any, str, int]:
    """Discover the IGD, map TCP ``internal_port``: (the UPnP object, external address,
    external port). Blocking: run in a thread. If the caller gave up meanwhile
    (``abandoned``), a mapping made after all is deleted at once."""
    import miniupnpc  # only where a mapping is asked for: the import loads a C extension

    upnp = miniupnpc.UPnP()
    upnp.discoverdelay = delay_ms
    try:
        if upnp.discover() == 0:
            raise PortMapError("UPnP: no IGD answered on the LAN")
        upnp.selectigd()
        address = str(upnp.externalipaddress())
        if not is_public_v4(address):
            raise PortMapError(f"UPnP: external address {address!r} is not public")
        # the same port outside if free, else one other random one
        for external in (internal_port, 20000 + secrets.randbelow(40000)):
            if abandoned.is_set():
                raise PortMapError("UPnP: given up")
            try:
                upnp.addportmapping(external, "TCP", upnp.lanaddr, internal_port, DESCRIPTION,
                                    "", lifetime)  # fmt: skip
            except Exception:  # noqa: S112 - miniupnpc raises bare Exception: try the other
                continue
            if abandoned.is_set():
                upnp.deleteportmapping(external, "TCP")
                raise PortMapError("UPnP: given up")
            return upnp, address, external
    except PortMapError:
        raise
    except Exception as exc:  # miniupnpc raises plain Exception with the UPnP error text
        raise PortMapError(f"UPnP: {exc}") from None
    raise PortMapError("UPnP: the router refused both ports")


async def upnp_map(
    internal_port: int, *, lifetime: int = LIFETIME_S, timeout: float = 2.0
) -> PortMapping:
    """Map TCP ``internal_port`` through the LAN's UPnP IGD (SSDP discovery, then SOAP)."""
    abandoned = threading.Event()
    delay_ms = max(100, int(timeout * 1000 * 0.4))  # discovery waits about twice this
    try:
        with trio.fail_after(timeout):
            upnp, address, external = await trio.to_thread.run_sync(
                _upnp_blocking, internal_port, lifetime, delay_ms, abandoned,
                abandon_on_cancel=True,
            )  # fmt: skip
    except trio.TooSlowError:
        abandoned.set()
        raise PortMapError("UPnP: no mapping within the bound") from None
    except BaseException:
        abandoned.set()
        raise

    async def release() -> None:
        await trio.to_thread.run_sync(
            upnp.deleteportmapping, external, "TCP", abandon_on_cancel=True
        )

    return PortMapping("upnp", address, external, internal_port, lifetime, release)


# -- all at once ------------------------------------------------------------------------------

PROTOCOLS = ("upnp", "natpmp", "pcp")


async def map_port(
    internal_port: int,
    *,
    timeout: float = 2.0,
    lifetime: int = LIFETIME_S,
    protocols: Sequence[str] = PROTOCOLS,
    gateway: str | None = None,
) -> tuple[PortMapping | None, list[str]]:
    """Ask UPnP, NAT-PMP and PCP at once; the first mapping wins (others are released).
    Returns (the mapping or None, the problems met)."""
    problems: list[str] = []
    won: list[PortMapping] = []
    gateway = gateway or default_gateway()

    async with trio.open_nursery() as nursery:

        async def one(name: str, attempt: Callable[[], Awaitable[PortMapping]]) -> None:
            try:
                mapping = await attempt()
            except PortMapError as exc:
                problems.append(str(exc))
                return
            won.append(mapping)
            nursery.cancel_scope.cancel()  # the first wins

        if "upnp" in protocols:
            nursery.start_soon(
                one, "upnp", lambda: upnp_map(internal_port, lifetime=lifetime, timeout=timeout)
            )
        gateway_ones = [c for n, c in (("natpmp", natpmp_map), ("pcp", pcp_map)) if n in protocols]
        if gateway_ones and gateway is None:
            problems.append("NAT-PMP/PCP: no default gateway")
        elif gateway_ones:
            # One after the other on the gateway's one port: a router that speaks both would
            # make two rules for one port, and releasing the one would not end the other.
            async def on_gateway() -> PortMapping:
                assert gateway is not None
                for client in gateway_ones[:-1]:
                    try:
                        return await client(
                            internal_port, gateway=gateway, lifetime=lifetime, timeout=timeout / 2
                        )
                    except PortMapError as exc:
                        problems.append(str(exc))
                return await gateway_ones[-1](
                    internal_port, gateway=gateway, lifetime=lifetime, timeout=timeout / 2
                )

            nursery.start_soon(one, "gateway", on_gateway)
    if not won:
        return None, problems
    first = won[0]
    for other in won[1:]:  # both answered at once; the same rule on one router is kept
        if (other.external_address, other.external_port) != (
            first.external_address,
            first.external_port,
        ):
            await other.release()
    return first, problems
