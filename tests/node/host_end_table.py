"""A 3-seat cash table whose seat 1 sits out after its first hand, run until one seat's result
of that hand is written and held back; seat 0 hosts the next segment and has a real node
(tests/node/test_host_waits_for_the_end.py, test_switch_undone.py). In memory: real keys, deck
and signatures, and the node's real seat-change handling."""

from __future__ import annotations

import random
import secrets
import sys
from pathlib import Path
from typing import Any

from dealerless.client.protocol_sim import Bus, ProtocolGame
from dealerless.node.app import meta_for_invite
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.seat import SeatNode
from dealerless.node.store import TableStore
from dealerless.node.wire import decode, unseal, verify_sealed
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from late_result_sim import hold_late_result

GAME = make_config("limit-tuppen", 3, {"mode": "cash", "hands": 4, "max_buy_in": 10})


class HostEndTable:
    """A 3-seat cash table whose seat 1 sits out after this hand, run until ``late``'s
    result of that hand is written and held; seat 0 hosts the next segment and has a node."""

    def __init__(self, tmp_path: Path, late: int, *, reseat: bool = False) -> None:
        """``reseat``: seat 2 asks to re-form the table too (newcomers may sit down)."""
        self.ids = [Identity.generate() for _ in range(3)]
        invite = Invite.create(self.ids[0].public_key, GAME, 60_000, token=secrets.token_bytes(16))
        seats = tuple(SeatInfo(f"p{i}", ident.public_key) for i, ident in enumerate(self.ids))
        self.table = TableConfig(invite.table_id, GAME, seats, 60_000)
        keys = [ident.wire_key() for ident in self.ids]
        rng = random.Random(3)
        machines = [TableMachine(self.table, key, now=0.0) for key in keys]
        self.sim = ProtocolGame(self.table, keys, machines, Bus(3, rng), [[] for _ in keys])
        for seat in range(3):
            self.sim.flush(seat)
        self.sim.machines[1].want_change("sit-out")
        if reseat:
            self.sim.machines[2].want_change("reseat")
        self.late = hold_late_result(self.sim, rng, late)
        self.host = self.sim.machines[0]
        meta = meta_for_invite(invite, name="p0", bot=True, transcript="")
        self.node = SeatNode(
            self.ids[0],
            TableStore(tmp_path, invite.table_id),
            meta,
            connector=None,  # type: ignore[arg-type]
            driver=None,
            say=print,
        )
        self.node.machine, self.node.config = self.host, self.table
        self.deadline = self.sim.clock + 61.0
        self.node.now = lambda: self.deadline  # type: ignore[method-assign]  # no trio clock
        self.nodes = {0: self.node}
        for seat in (1, 2):
            meta = meta_for_invite(invite, name=f"p{seat}", bot=True, transcript="")
            store = TableStore(tmp_path / f"p{seat}", invite.table_id)
            other = SeatNode(self.ids[seat], store, meta, connector=None, driver=None, say=print)  # type: ignore[arg-type]
            other.machine, other.config = self.sim.machines[seat], self.table
            self.nodes[seat] = other

    def have_from(self, seat: int) -> dict[str, Any]:
        """``seat``'s node tells ours how many records it holds, and its last one: its own
        signed ``have``, as it goes on the wire, reaches our node."""
        node = self.nodes[seat]
        node.outbox.clear()
        node.catch_up.have(self.sim.machines[seat].chain_count, False)
        (message, _), *_ = node.outbox
        payload, body, signature = unseal(decode(message["data"]))
        sender = self.ids[seat].public_key
        assert verify_sealed(sender, self.table.table_id, body, signature)
        self.node.catch_up.on_have(sender, payload)
        return payload

    def end_held(self) -> None:
        """The host's segment ended: its node holds the next configuration (P-51)."""
        change = self.host.seat_change
        assert change is not None
        assert self.node.changes.seats_changing(self.host, change) == []
        assert self.node.changes.end_moving is change and not self.hosted()

    def hosted(self) -> bool:
        return self.host.config != self.table
