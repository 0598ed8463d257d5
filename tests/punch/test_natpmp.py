"""The NAT-PMP client (node/punch/portmap.py) against a fake gateway on loopback: a good
answer maps; every malformed one is refused; answers from elsewhere are ignored."""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable

import pytest
import trio

from dealerless.node.punch.candidates import Candidate
from dealerless.node.punch.portmap import PortMapError, is_public_v4, natpmp_map

Answer = Callable[[bytes], bytes | None]


def _address(version: int = 0, opcode: int = 128, result: int = 0) -> bytes:
    return struct.pack("!BBHI", version, opcode, result, 7) + socket.inet_aton("198.18.0.11")


def _mapping(request: bytes, **change: int) -> bytes:
    _v, _op, _r, internal, _ext, lifetime = struct.unpack("!BBHHHI", request)
    fields = {"version": 0, "opcode": 130, "result": 0, "internal": internal,
              "external": internal, "lifetime": lifetime, **change}  # fmt: skip
    return struct.pack("!BBHIHHI", fields["version"], fields["opcode"], fields["result"], 7,
                       fields["internal"], fields["external"], fields["lifetime"])  # fmt: skip


async def _run(answer_map: Answer, answer_address: Answer | None = None, *,
               reply_from_other_port: bool = False) -> object:  # fmt: skip
    server = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    await server.bind(("127.0.0.1", 0))
    other = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    await other.bind(("127.0.0.1", 0))
    port = server.getsockname()[1]

    async def serve() -> None:
        while True:
            data, source = await server.recvfrom(64)
            reply = (answer_address or (lambda _r: _address()))(data) if len(data) == 2 else (
                answer_map(data))
            if reply is not None:
                await (other if reply_from_other_port else server).sendto(reply, source)

    got: list[object] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve)
        try:
            got.append(await natpmp_map(40123, gateway="127.0.0.1", server_port=port,
                                        timeout=0.8))  # fmt: skip
        except PortMapError as exc:
            got.append(exc)  # raised below: outside the nursery, not in an exception group
        finally:
            nursery.cancel_scope.cancel()
    server.close()
    other.close()
    if isinstance(got[0], PortMapError):
        raise got[0]
    return got[0]


def _sync(answer_map: Answer, answer_address: Answer | None = None, *,
          reply_from_other_port: bool = False) -> object:  # fmt: skip
    return trio.run(lambda: _run(answer_map, answer_address,
                                 reply_from_other_port=reply_from_other_port))


def test_a_good_answer_maps() -> None:
    mapping = _sync(lambda r: _mapping(r))
    assert (mapping.protocol, mapping.external_address, mapping.external_port) == (  # type: ignore[attr-defined]
        "natpmp", "198.18.0.11", 40123)  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (lambda r: _mapping(r, version=1), "version 1"),
        (lambda r: _mapping(r, opcode=129), "opcode 129"),
        (lambda r: _mapping(r, result=2), "result 2"),
        (lambda r: _mapping(r)[:12], "12 bytes"),
        (lambda r: _mapping(r, internal=9999), "port 9999"),
        (lambda r: _mapping(r, external=0), "no external port"),
        (lambda r: _mapping(r, lifetime=0), "no lifetime"),
    ],
)
def test_malformed_mapping_answers_are_refused(answer: Answer, why: str) -> None:
    with pytest.raises(PortMapError, match=why):
        _sync(answer)


def test_malformed_address_answers_are_refused() -> None:
    with pytest.raises(PortMapError, match="opcode 0"):
        _sync(lambda r: _mapping(r), lambda _r: _address(opcode=0))
    with pytest.raises(PortMapError, match="8 bytes"):
        _sync(lambda r: _mapping(r), lambda _r: _address()[:8])


def test_an_answer_from_another_port_is_ignored() -> None:
    with pytest.raises(PortMapError, match="no answer"):
        _sync(lambda r: _mapping(r), reply_from_other_port=True)


def test_a_private_external_address_is_not_a_candidate() -> None:
    private = struct.pack("!BBHI", 0, 128, 0, 7) + socket.inet_aton("192.168.7.1")
    with pytest.raises(PortMapError, match="not public"):
        _sync(lambda r: _mapping(r), lambda _r: private)
    for address in ("10.0.0.1", "100.64.0.1", "127.0.0.1", "0.0.0.0", "169.254.1.1"):
        assert not is_public_v4(address)
        with pytest.raises(ValueError):
            Candidate("mapped", address, 4000)
    assert Candidate("mapped", "198.18.0.11", 4000).kind == "mapped"
