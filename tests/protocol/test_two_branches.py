"""One seat's frames for the same step on two branches are no equivocation.

After a rollback (an abort certificate anchored at an earlier head, or a returning seat's void
branch) an honest seat signs a step again on the surviving branch; a frame it signed for that
step on the void branch may still be on its way to a peer that never saw it. Equivocation is two
different frames for one step *at the same head* (same ``prev``); a frame for another branch is
stale or waits for its predecessor like any other, and blames nobody.
"""

from __future__ import annotations

import random
import secrets

from dealerless.client.protocol_sim import ProtocolGame, run_game, start_game
from dealerless.protocol.crypto import HandDeckContext, PlayerSecret
from dealerless.protocol.messages import decode_message, sign_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.events import Violation
from dealerless.protocol.table.kinds import TABLE_REGISTRY

WRITER, PEER = 2, 0


def at_writers_frame(seed: int) -> tuple[ProtocolGame, random.Random, bytes]:
    """Deliver until the writer's next chain frame is on its way to the peer; hold it back."""
    rng = random.Random(seed)
    sim = start_game(make_config("limit-tuppen", 3, {"hands": 1}), rng)
    while True:
        for index, frame in enumerate(sim.bus.queues[PEER]):
            message = decode_message(frame, registry=TABLE_REGISTRY)
            if message.seat == WRITER and message.kind == "key-commit":
                del sim.bus.queues[PEER][index]
                return sim, rng, frame
        assert sim.bus.pending()
        seat, frame = sim.bus.pop()
        sim.events[seat].extend(sim.machines[seat].receive(frame, sim.clock))
        sim.flush(seat)


def resigned(sim: ProtocolGame, frame: bytes, **changes: object) -> bytes:
    m = decode_message(frame, registry=TABLE_REGISTRY)
    fields: dict[str, object] = {
        "table_id": m.table_id,
        "hand": m.hand,
        "seq": m.seq,
        "prev": m.prev,
        "seat": m.seat,
        "kind": m.kind,
        "body": m.body,
    }
    fields.update(changes)
    return sign_message(sim.keys[WRITER], registry=TABLE_REGISTRY, **fields).frame  # type: ignore[arg-type]


def blamed(sim: ProtocolGame, seat: int) -> list[Violation]:
    return [e for e in sim.events[seat] if isinstance(e, Violation) and e.culprit is not None]


# covers: P-9
def test_a_frame_for_the_same_step_on_another_branch_blames_nobody() -> None:
    sim, rng, genuine = at_writers_frame(seed=1)
    other_branch = resigned(sim, genuine, prev=secrets.token_bytes(32))
    peer = sim.machines[PEER]
    sim.events[PEER].extend(peer.receive(other_branch, sim.clock))  # arrives first
    sim.events[PEER].extend(peer.receive(genuine, sim.clock))
    sim.flush(PEER)
    assert not blamed(sim, PEER)
    sim.deliver_all()
    assert genuine in peer.records  # the frame on the chain was taken
    run_game(sim, rng)
    assert len({m.state_hash() for m in sim.machines}) == 1 and not sim.violations()


# covers: P-9
def test_two_frames_for_one_step_at_the_same_head_are_still_equivocation() -> None:
    sim, _rng, genuine = at_writers_frame(seed=2)
    peer = sim.machines[PEER]
    hctx = HandDeckContext(sim.table.table_id, 1, sim.table.digest())
    fresh = PlayerSecret.generate(hctx, WRITER).commit().to_wire()
    twin = resigned(sim, genuine, body={"commit": fresh})  # another valid commitment
    sim.events[PEER].extend(peer.receive(genuine, sim.clock))
    sim.events[PEER].extend(peer.receive(twin, sim.clock))
    sim.flush(PEER)
    sim.deliver_all()  # the peer reaches the round's head (both frames may wait for it)
    reasons = [v.reason for v in blamed(sim, PEER) if v.culprit == WRITER]
    assert any("equivocation" in r for r in reasons), reasons
