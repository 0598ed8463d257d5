"""The seats' direct links (node/mesh.py), in one process over loopback: the smaller key dials,
both ends pinned to the seats' keys; what arrives names its sender by the link's handshake;
malformed candidates and strangers are refused."""

from __future__ import annotations

import pytest
import trio

from dealerless.node.identity import Identity
from dealerless.node.mesh import (
    CANDIDATES_MAX,
    CandidateOffers,
    Mesh,
    MeshLink,
    parse_candidates,
)
from dealerless.node.notices import english
from dealerless.node.transport import ChannelError, HandshakeError, open_tcp_channel


def _pair() -> tuple[Identity, Identity]:
    a, b = Identity.generate(), Identity.generate()
    return (a, b) if a.public_key < b.public_key else (b, a)


def _mesh(identity: Identity) -> Mesh:
    return Mesh(identity, addresses=lambda: ["127.0.0.1"], listen_host="127.0.0.1")


async def _until(predicate, limit: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    with trio.fail_after(limit):
        while not predicate():
            await trio.sleep(0.02)


def test_two_seats_link_and_a_message_names_its_sender_by_the_link() -> None:
    small, big = _pair()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            ms, mb = _mesh(small), _mesh(big)
            await nursery.start(ms.run)
            await nursery.start(mb.run)
            seats = frozenset({small.public_key, big.public_key})
            os_, ob = CandidateOffers(ms), CandidateOffers(mb)
            cand_s, cand_b = os_.table(seats, 0.0), ob.table(seats, 0.0)
            assert cand_s is not None and cand_b is not None
            assert ob.heard(small.public_key, cand_s, 0.1) is None  # sent ours just now
            os_.heard(big.public_key, cand_b, 0.1)  # the smaller dials
            await _until(lambda: ms.covers(seats) and mb.covers(seats))
            await MeshLink(ms).send({"t": "send", "data": b"to everyone"})
            await MeshLink(mb).send({"t": "send", "data": b"to one", "to": small.public_key})
            got_b = await MeshLink(mb).receive()
            got_s = await MeshLink(ms).receive()
            assert got_b == {"t": "msg", "from": small.public_key, "data": b"to everyone",
                             "direct": True}  # fmt: skip
            assert got_s["from"] == big.public_key and got_s["data"] == b"to one"
            mb.expect({big.public_key})  # small is no longer a seat: its link is closed
            await _until(lambda: not ms.channels)
            assert not ms.covers(seats)
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_a_stranger_or_a_seat_that_should_not_dial_is_refused() -> None:
    small, big = _pair()
    stranger = Identity.generate()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            mb = _mesh(big)
            await nursery.start(mb.run)
            mb.expect({small.public_key, big.public_key})
            for who in (stranger, big):  # not a seat; ourselves (not smaller than us)
                # the dialer's half of the handshake may finish; the responder then closes
                with pytest.raises((HandshakeError, ChannelError)):
                    channel = await open_tcp_channel(
                        "127.0.0.1", mb.port, who, big.public_key, connect_timeout=3
                    )
                    await channel.receive()  # the responder closes before any data
            assert not mb.channels
            # a dialer that names a wrong key for us is refused by its own pin
            with pytest.raises(HandshakeError):
                await open_tcp_channel(
                    "127.0.0.1", mb.port, small, stranger.public_key, connect_timeout=3
                )
            nursery.cancel_scope.cancel()

    trio.run(main)


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("10.0.0.1:4000", "a list"),
        ([], "a list"),
        ([["10.0.0.1", 4000]] * (CANDIDATES_MAX + 1), "a list"),
        ([["10.0.0.1"]], "[address, port]"),
        ([["relay.example", 4000]], "not an IP address"),
        ([[b"10.0.0.1", 4000]], "must be an IP address"),
        ([["10.0.0.1", 0]], "port"),
        ([["10.0.0.1", 65536]], "port"),
        ([["10.0.0.1", True]], "port"),
        ([["10.0.0.1", "4000"]], "port"),
    ],
)
def test_malformed_candidates_are_refused_saying_why(value: object, why: str) -> None:
    with pytest.raises(ValueError, match=why.replace("[", r"\[").replace("]", r"\]")):
        parse_candidates(value)


def test_candidates_round_trip() -> None:
    assert parse_candidates([["192.168.1.5", 4000], ("2001:db8::1", 5)]) == [
        ("192.168.1.5", 4000),
        ("2001:db8::1", 5),
    ]


def test_a_seat_is_told_our_candidates_once_then_only_when_it_has_no_link() -> None:
    me, other = _pair()
    mesh = _mesh(me)
    mesh.port = 4000  # as if listening
    offers = CandidateOffers(mesh)
    seats = frozenset({me.public_key, other.public_key})
    assert offers.table(seats, 0.0) == {"t": "cand", "c": [["127.0.0.1", 4000]]}
    assert offers.table(seats, 1.0) is None  # the same seats: nothing new
    theirs = {"t": "cand", "c": [["127.0.0.1", 4001]]}
    assert offers.heard(other.public_key, theirs, 2.0) is None  # told 2 s ago
    assert offers.heard(other.public_key, theirs, 6.0) is not None  # it may have restarted
    assert mesh.offers[other.public_key] == [("127.0.0.1", 4001)]
    with pytest.raises(ValueError):
        offers.heard(other.public_key, {"t": "cand", "c": "junk"}, 20.0)


def test_a_dialer_the_listener_does_not_seat_gets_no_link() -> None:
    """The dialer's half of the handshake ends before the listener checked its key: without
    the listener's word it must not count the link as up (it would send moves into it)."""
    small, big = _pair()
    said: list[str] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            ms = Mesh(small, say=lambda n: said.append(english(n)), addresses=lambda: ["127.0.0.1"],
                      listen_host="127.0.0.1")  # fmt: skip
            mb = _mesh(big)
            await nursery.start(ms.run)
            await nursery.start(mb.run)
            ms.expect({small.public_key, big.public_key})
            mb.expect({big.public_key})  # big no longer seats small (it sat out, say)
            ms.offer(big.public_key, [("127.0.0.1", mb.port)])
            await _until(lambda: big.public_key not in ms._dialling)
            assert not ms.channels and not mb.channels
            assert not any("is up" in line for line in said), said
            nursery.cancel_scope.cancel()

    trio.run(main)
