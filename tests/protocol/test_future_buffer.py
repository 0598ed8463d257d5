"""The buffer of frames whose predecessor has not arrived yet is bounded (MAX_FUTURE); when a
flood of frames for made-up, far-off steps fills it, the next real frames still get in: the
least useful buffered frame (one for a step already passed, else the one farthest ahead) gives
way to them."""

from __future__ import annotations

import random
import secrets

from dealerless.client.protocol_sim import run_game, start_game
from dealerless.protocol.messages import IdentityKey, decode_message, sign_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.future import FutureFrames
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.machine import MAX_FUTURE

PEER = 2  # the last seat of the shuffle round: it receives both other seats' shuffles first


# covers: P-10
def test_a_flood_does_not_crowd_out_the_next_real_frames() -> None:
    rng = random.Random(8)
    sim = start_game(make_config("limit-tuppen", 3, {"hands": 1}), rng)
    held: list[bytes] = []
    body: dict[str, object] = {}
    while len(held) < 2:  # the shuffles of seats 0 and 1 (a chain), held back from the peer
        seat, frame = sim.bus.pop()
        message = decode_message(frame, registry=TABLE_REGISTRY)
        if message.kind == "key-commit" and message.seat == 0:
            body = dict(message.body)
        if seat == PEER and message.kind == "shuffle":
            held.append(frame)
            continue
        sim.events[seat].extend(sim.machines[seat].receive(frame, sim.clock))
        sim.flush(seat)
    first, second = held
    peer = sim.machines[PEER]
    assert body
    for i in range(MAX_FUTURE + 100):  # signed by seat 0, for hands far ahead, on made-up heads
        junk = sign_message(
            sim.keys[0],
            registry=TABLE_REGISTRY,
            table_id=sim.table.table_id,
            hand=100 + i,
            seq=0,
            prev=secrets.token_bytes(32),
            seat=0,
            kind="key-commit",
            body=body,
        ).frame
        peer.receive(junk, sim.clock)
    assert len(peer.future) == MAX_FUTURE
    peer.receive(second, sim.clock)  # its predecessor is not there yet: it must be kept
    assert second in set(peer.future.frames())
    assert len(peer.future) == MAX_FUTURE
    sim.events[PEER].extend(peer.receive(first, sim.clock))
    assert first in peer.records and second in peer.records
    sim.flush(PEER)
    run_game(sim, rng)
    assert len({m.state_hash() for m in sim.machines}) == 1 and not sim.violations()


def test_a_frame_kept_twice_is_released_once() -> None:
    """A frame that comes again while it waits for its predecessor is kept once. The machine
    keeps frames of the next segment without marking them seen (intake's ``Kept``), so a
    duplicate of one reached the buffer twice, and taking them raised a KeyError (the
    randomized schedules crashed there)."""
    key = IdentityKey.generate()
    prev = secrets.token_bytes(32)
    message = sign_message(
        key,
        registry=TABLE_REGISTRY,
        table_id=secrets.token_bytes(16),
        hand=0,
        seq=3,
        prev=prev,
        seat=1,
        kind="config-sign",
        body={"config_hash": secrets.token_bytes(32)},
    )
    future = FutureFrames(4)
    assert future.add(message, (0, 1)) is None
    assert future.add(message, (0, 1)) is None
    assert len(future) == 1 and list(future.frames()) == [message.frame]
    assert future.take(prev) == [message.frame]
    assert len(future) == 0 and prev not in future
