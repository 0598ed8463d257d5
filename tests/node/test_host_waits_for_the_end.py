"""The next host does not sign the next configuration while a certificate of the ended
segment's last hand may still roll its end back (spec/protocol.md P-31): its switch to the next
segment could not be undone. Seat 0 voted LATE's result silent, then took it late, which ended
the segment for a seat change; its node holds the next configuration, the certificate
completes, the round is signed again without LATE, and then the node hosts the next segment.
(In memory: real keys, deck and signatures, and the node's real seat-change handling.)"""

from __future__ import annotations

import random
import secrets
import sys
from pathlib import Path

from dealerless.client.protocol_sim import Bus, ProtocolGame
from dealerless.node.app import meta_for_invite
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.seat import SeatNode
from dealerless.node.store import TableStore
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from late_result_sim import give, hold_late_result, settle, vote

GAME = make_config("limit-tuppen", 3, {"mode": "cash", "hands": 4, "max_buy_in": 10})


# covers: P-50
def test_the_next_host_signs_once_the_last_hand_cannot_move(tmp_path: Path) -> None:
    ids = [Identity.generate() for _ in range(3)]
    invite = Invite.create(ids[0].public_key, GAME, 60_000, token=secrets.token_bytes(16))
    seats = tuple(SeatInfo(f"p{i}", ident.public_key) for i, ident in enumerate(ids))
    table = TableConfig(invite.table_id, GAME, seats, 60_000)
    keys = [ident.wire_key() for ident in ids]
    rng = random.Random(3)
    machines = [TableMachine(table, key, now=0.0) for key in keys]
    sim = ProtocolGame(table, keys, machines, Bus(3, rng), [[] for _ in keys])
    for seat in range(3):
        sim.flush(seat)
    sim.machines[1].want_change("sit-out")
    late = hold_late_result(sim, rng)

    host = sim.machines[0]
    meta = meta_for_invite(invite, name="p0", bot=True, transcript="")
    node = SeatNode(
        ids[0], TableStore(tmp_path, invite.table_id), meta, connector=None, driver=None, say=print
    )  # type: ignore[arg-type]
    node.machine, node.config = host, table
    deadline = sim.clock + 61.0
    node.now = lambda: deadline  # type: ignore[method-assign]  # no trio clock here

    vote0, vote1 = vote(sim, 0, deadline), vote(sim, 1, deadline)
    give(sim, 1, vote0, deadline)  # seat 1: the certificate is complete
    give(sim, 0, [late], deadline)  # seat 0 takes the late result: the segment ends here
    change = host.seat_change
    assert host.over and change is not None and host.end_may_move
    assert host.seat_plan().host == ids[0].public_key
    assert node.changes.seats_changing(host, change) == []
    assert node.changes.end_moving is change and host.config == table  # held, not switched
    assert node.changes.host_when_settled(host) == []  # still held

    give(sim, 0, vote1, deadline)  # the certificate wins over the late result (P-31)
    give(sim, 2, vote0 + vote1, deadline)
    settle(sim, deadline)
    assert len({tuple(m.records) for m in sim.machines}) == 1
    assert host.over and host.seat_change is not None and not host.end_may_move
    node.changes.host_when_settled(host)
    assert node.changes.end_moving is None
    assert host.config != table and host.config.players == 2  # it hosts the next segment
    assert [s.key for s in host.config.seats] == [ids[0].public_key, ids[2].public_key]
