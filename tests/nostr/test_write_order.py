"""What a seat writes first to a relay that makes it wait (a real `nostr-relay` process).

A table prepares the next hand's deck while a hand is played (protocol.md P-53): its shuffle is
the biggest message a seat writes, and a relay with a small size limit takes it in a dozen
pieces. On a relay that paces us, the running hand's moves must not wait behind those pieces,
and a frame a node sends again with its count must not cost the relay's events twice."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import trio
from nostr_relay_process import RelayProcess

from dealerless.node.identity import Identity
from dealerless.node.nostr.outbox import same_key
from dealerless.node.nostr.pacing import PaceSettings
from dealerless.node.nostr.pool import KIND_FRAME, Delivery, RelayPool
from dealerless.node.nostr.relay import TAKEN_QUIET, RelayPolicy
from dealerless.node.nostr.table_crypto import TableKeys

Start = Callable[..., RelayProcess]
# Two events a second after a burst of one: a dozen pieces take about six seconds.
SLOW = RelayPolicy(
    backoff_first=0.1,
    backoff_cap=0.5,
    pace=PaceSettings(burst=1.0, rate=2.0, ceiling=2.0),
)


def _pools(url: str) -> tuple[RelayPool, RelayPool]:
    secret, table = secrets.token_bytes(16), secrets.token_bytes(16)
    alice, bob = (
        RelayPool([url], TableKeys(secret, table), Identity.generate(), table, policy=SLOW)
        for _ in range(2)
    )
    return alice, bob


async def _deliveries(pool: RelayPool, count: int, timeout: float) -> list[bytes]:
    out: list[bytes] = []
    with trio.fail_after(timeout):
        while len(out) < count:
            item = await pool.inbox.receive()
            if isinstance(item, Delivery):
                out.append(item.data)
    return out


async def _meet(nursery: trio.Nursery, url: str) -> tuple[RelayPool, RelayPool]:
    """Two seats on the relay, once bob has heard alice's announcement."""
    alice, bob = _pools(url)
    await nursery.start(alice.run)
    await nursery.start(bob.run)
    assert await bob.wait_ready(10)
    with trio.fail_after(10):
        while not isinstance(await bob.inbox.receive(), bytes):  # alice is up
            pass
    return alice, bob


def test_a_move_goes_before_the_rest_of_a_prepared_shuffle(nostr_relays: Start) -> None:
    relay = nostr_relays(max_event_size=4096)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            alice, bob = await _meet(nursery, relay.url)
            writer = alice.relays[0]
            # The relay's size limit as a seat learns it (test_nostr_client.py shows how):
            # events of at most 3,000 characters of content.
            writer.max_content = writer.size_cap = 3000
            start = writer.stats["events_out"]
            shuffle = secrets.token_bytes(30_000)  # about a dozen pieces at this size
            await alice.publish(KIND_FRAME, shuffle, ahead=True)
            with trio.fail_after(10):
                while writer.stats["events_out"] < start + 2:  # its first pieces are out
                    await trio.sleep(0.02)
            before = writer.stats["events_out"]
            await alice.publish(KIND_FRAME, b"a card")
            got = await _deliveries(bob, 2, 60)
            assert got == [b"a card", shuffle], "the move waited for the whole shuffle"
            pieces = writer.stats["events_out"] - before
            assert pieces >= 3, pieces  # the shuffle's rest went after the move
            assert writer.stats["refused_too_big"] == 0  # every piece fit
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_a_frame_the_relay_took_is_not_written_to_it_again_for_a_while(
    nostr_relays: Start,
) -> None:
    relay = nostr_relays()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            alice, bob = await _meet(nursery, relay.url)
            frame = b"our key commitment"
            same = same_key(frame)
            writer = alice.relays[0]
            await alice.publish(KIND_FRAME, frame, same=same)
            assert await _deliveries(bob, 1, 10) == [frame]
            with trio.fail_after(10):
                while writer.taken.get(same) is None:  # its OK came back
                    await trio.sleep(0.02)
            sent = writer.stats["events_out"]
            for _ in range(3):  # sent again with three counts
                await alice.publish(KIND_FRAME, frame, same=same)
            other = b"another frame"
            await alice.publish(KIND_FRAME, other, same=same_key(other))
            assert await _deliveries(bob, 1, 10) == [other]  # not the resent one first
            assert writer.stats["resend_skipped"] == 3
            assert writer.stats["events_out"] == sent + 1
            # Once the quiet time is over, a resend goes out again (a peer may lack it).
            writer.taken[same] -= TAKEN_QUIET
            await alice.publish(KIND_FRAME, frame, same=same)
            assert await _deliveries(bob, 1, 10) == [frame]
            nursery.cancel_scope.cancel()

    trio.run(main)
