"""Punching on one machine (127.0.0.1, two ports): simultaneous open, the handshake, the
nomination; a peer that cannot prove the expected key gets no channel. The real routers are
in tests/natlab/."""

from __future__ import annotations

import time

import trio
import trio.testing

from dealerless.node.identity import Identity
from dealerless.node.punch import (
    Candidate,
    PunchReport,
    PunchSchedule,
    pick_port,
    punch,
    rendezvous,
)
from dealerless.node.transport import TransportConfig

TABLE = b"T" * 32
FAST = PunchSchedule(attempts=2, spacing=0.5, connect_timeout=0.4)


async def _punch_pair(
    ann: Identity, bob: Identity, bob_expected_by_ann: bytes
) -> tuple[object, object, PunchReport, PunchReport]:
    port_a, port_b = pick_port(), pick_port()
    cand_a = [Candidate("lan", "127.0.0.1", port_a)]
    cand_b = [Candidate("lan", "127.0.0.1", port_b)]
    start = trio.current_time() + 0.05
    reports = PunchReport(), PunchReport()
    results: list[object] = [None, None]
    config = TransportConfig(handshake_timeout=1.0)

    async def side(i: int, me: Identity, peer: bytes, mine: list[Candidate],
                   theirs: list[Candidate], port: int) -> None:  # fmt: skip
        results[i] = await punch(
            me, peer, mine, theirs, start, local_port=port, table_id=TABLE,
            schedule=FAST, config=config, report=reports[i],
        )  # fmt: skip

    async with trio.open_nursery() as nursery:
        nursery.start_soon(side, 0, ann, bob_expected_by_ann, cand_a, cand_b, port_a)
        nursery.start_soon(side, 1, bob, ann.public_key, cand_b, cand_a, port_b)
    return results[0], results[1], reports[0], reports[1]


def test_two_seats_punch_and_talk() -> None:
    async def main() -> None:
        ann, bob = Identity.generate(), Identity.generate()
        a, b, report_a, _ = await _punch_pair(ann, bob, bob.public_key)
        from dealerless.node.transport import SecureChannel

        assert isinstance(a, SecureChannel) and isinstance(b, SecureChannel), report_a
        assert a.peer_id.public_key == bob.public_key and b.peer_id.public_key == ann.public_key
        await a.send(b"hello bob")
        assert await b.receive() == b"hello bob"
        await b.send(b"hello ann")
        assert await a.receive() == b"hello ann"
        await a.aclose()
        await b.aclose()

    trio.run(main)


def test_a_wrong_key_is_refused_within_the_bound() -> None:
    async def main() -> None:
        ann, bob, eve = Identity.generate(), Identity.generate(), Identity.generate()
        began = time.monotonic()
        # Ann expects Eve's key at Bob's address: the handshake refuses Bob.
        a, b, report_a, _ = await _punch_pair(ann, bob, eve.public_key)
        assert a is None and b is None
        assert any("refused" in e or "mismatch" in e for e in report_a.errors), report_a.errors
        assert time.monotonic() - began < 2 * FAST.spacing + 1.0 + 1.0

    trio.run(main)


def test_nobody_answers_gives_none_in_time() -> None:
    async def main() -> None:
        ann, bob = Identity.generate(), Identity.generate()
        port = pick_port()
        began = time.monotonic()
        channel = await punch(
            ann, bob.public_key, [Candidate("lan", "127.0.0.1", port)],
            [Candidate("lan", "127.0.0.1", pick_port())], trio.current_time(),
            local_port=port, schedule=FAST,
        )  # fmt: skip
        assert channel is None
        assert time.monotonic() - began < 2 * FAST.spacing + 5.0 + 0.5

    trio.run(main)


def test_rendezvous_agrees_on_candidates_and_time() -> None:
    async def main() -> None:
        ann, bob = Identity.generate(), Identity.generate()
        a_to_b_send, a_to_b_recv = trio.open_memory_channel[bytes](10)
        b_to_a_send, b_to_a_recv = trio.open_memory_channel[bytes](10)
        cand_a = [Candidate("stun", "198.18.0.11", 4000)]
        cand_b = [Candidate("stun", "198.18.0.12", 5000)]
        got: dict[str, object] = {}

        async def side(name: str, me: Identity, peer: Identity, mine: list[Candidate],
                       send: trio.MemorySendChannel[bytes],
                       recv: trio.MemoryReceiveChannel[bytes]) -> None:  # fmt: skip
            async def slow_send(data: bytes) -> None:
                await trio.sleep(0.05)  # a relay's delay
                await send.send(data)

            await send.send(b"junk that does not open")  # dropped, not fatal
            got[name] = await rendezvous(
                me, peer.public_key, mine, slow_send, recv.receive, table_id=TABLE
            )

        async with trio.open_nursery() as nursery:
            nursery.start_soon(side, "a", ann, bob, cand_a, a_to_b_send, b_to_a_recv)
            nursery.start_soon(side, "b", bob, ann, cand_b, b_to_a_send, a_to_b_recv)
        result_a, result_b = got["a"], got["b"]
        assert isinstance(result_a, tuple) and isinstance(result_b, tuple)
        assert result_a[0] == cand_b and result_b[0] == cand_a
        # Both dial at about the same moment: within a relay hop of each other.
        assert abs(result_a[1] - result_b[1]) < 0.04

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
