"""The PCP MAP client (node/punch/portmap.py, RFC 6887) against a fake gateway on loopback: a
good answer maps and its release asks for lifetime 0 with the same nonce; every malformed or
foreign answer is refused, saying what is wrong."""

from __future__ import annotations

import ipaddress
import socket
import struct
from collections.abc import Callable

import pytest
import trio

from dealerless.node.punch.portmap import PortMapError, PortMapping, pcp_map

PORT = 40123
Change = Callable[[bytearray], None]


def _answer(request: bytes, change: Change | None = None, external: str = "198.18.0.11") -> bytes:
    """A well-formed MAP answer to ``request``, then ``change`` applied to it."""
    lifetime = struct.unpack_from("!I", request, 4)[0]
    nonce, (protocol, internal, suggested) = (
        request[24:36],
        struct.unpack_from("!B3xHH", request, 36),
    )
    header = struct.pack("!BBBBII", 2, 0x81, 0, 0, lifetime, 99) + bytes(12)
    body = nonce + struct.pack("!B3xHH", protocol, internal, suggested)
    body += ipaddress.IPv6Address(f"::ffff:{external}").packed
    out = bytearray(header + body)
    if change is not None:
        change(out)
    return bytes(out)


async def _run(change: Change | None = None, *, external: str = "198.18.0.11",
               from_other_port: bool = False) -> tuple[PortMapping, list[bytes]]:  # fmt: skip
    server = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    await server.bind(("127.0.0.1", 0))
    other = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    await other.bind(("127.0.0.1", 0))
    requests: list[bytes] = []

    async def serve() -> None:
        while True:
            data, source = await server.recvfrom(1100)
            requests.append(bytes(data))
            reply = _answer(data, change if len(requests) == 1 else None, external)
            await (other if from_other_port else server).sendto(reply, source)

    got: list[PortMapping | PortMapError] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve)
        try:
            mapping = await pcp_map(PORT, gateway="127.0.0.1",
                                    server_port=server.getsockname()[1], timeout=0.8)  # fmt: skip
            await mapping.release()
            got.append(mapping)
        except PortMapError as exc:
            got.append(exc)
        finally:
            nursery.cancel_scope.cancel()
    server.close()
    other.close()
    if isinstance(got[0], PortMapError):
        raise got[0]
    return got[0], requests


def test_a_good_answer_maps_and_the_release_reuses_the_nonce() -> None:
    mapping, requests = trio.run(_run)
    assert (mapping.protocol, mapping.external_address, mapping.external_port) == (
        "pcp", "198.18.0.11", PORT,
    )  # fmt: skip
    assert mapping.lifetime == 600
    first, release = requests[0], requests[-1]
    assert len(first) == 60 and first[:2] == b"\x02\x01"  # version 2, MAP request
    assert first[8:24] == ipaddress.IPv6Address("::ffff:127.0.0.1").packed  # our address
    assert struct.unpack_from("!I", release, 4)[0] == 0 and release[24:36] == first[24:36]


def _set(offset: int, value: bytes) -> Change:
    def change(out: bytearray) -> None:
        out[offset : offset + len(value)] = value

    return change


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (_set(0, b"\x00"), "version 0"),
        (_set(1, b"\x82"), "opcode"),
        (_set(3, b"\x08"), "result 8 (no resources)"),
        (_set(24, b"\xff" * 12), "nonce"),
        (_set(36, b"\x11"), "protocol 17"),
        (_set(40, struct.pack("!H", PORT + 1)), f"port {PORT + 1}"),
        (_set(42, b"\x00\x00"), "no external port"),
        (_set(4, b"\x00\x00\x00\x00"), "no lifetime"),
        (_set(44, ipaddress.IPv6Address("2001:db8::1").packed), "not an IPv4"),
        (lambda out: out.__delitem__(slice(56, 60)), "answer of 56 bytes"),
        (lambda out: out.extend(b"\x00\x00"), "answer of 62 bytes"),
    ],
)
def test_a_malformed_answer_is_refused_saying_why(change: Change, why: str) -> None:
    with pytest.raises(PortMapError, match=why.replace("(", r"\(").replace(")", r"\)")):
        trio.run(_run, change)


def test_a_private_external_address_is_not_used() -> None:
    with pytest.raises(PortMapError, match="not public"):
        trio.run(lambda: _run(external="192.168.7.1"))


def test_an_answer_from_another_port_is_ignored() -> None:
    with pytest.raises(PortMapError, match="no answer"):
        trio.run(lambda: _run(from_other_port=True))
