"""The next host does not sign the next configuration while a certificate of the ended
segment's last hand may still roll its end back (spec/protocol.md P-31): its switch to the next
segment could not be undone. Seat 0 voted LATE's result silent, then took it late, which ended
the segment for a seat change; its node holds the next configuration, the certificate
completes, the round is signed again without LATE, and then the node hosts the next segment.
The same hold covers a next host whose own last result reached no other seat in time: it ends
the segment before any vote against it arrives, so it signs only once a seat of the round says
it holds the round, and otherwise meets the certificate first (protocol.md §8 listed this as a
divergence). (In memory: real keys, deck and signatures, and the node's real seat-change
handling.)"""

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
from late_result_sim import give, hold_late_result, settle, vote

from dealerless.protocol.table.events import SegmentStarted

GAME = make_config("limit-tuppen", 3, {"mode": "cash", "hands": 4, "max_buy_in": 10})


class _Table:
    """A 3-seat cash table whose seat 1 sits out after this hand, run until ``late``'s
    result of that hand is written and held; seat 0 hosts the next segment and has a node."""

    def __init__(self, tmp_path: Path, late: int) -> None:
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


# covers: P-50
def test_the_next_host_signs_once_the_last_hand_cannot_move(tmp_path: Path) -> None:
    t = _Table(tmp_path, late=2)
    sim, host, node, deadline = t.sim, t.host, t.node, t.deadline
    vote0, vote1 = vote(sim, 0, deadline), vote(sim, 1, deadline)
    give(sim, 1, vote0, deadline)  # seat 1: the certificate is complete
    give(sim, 0, [t.late], deadline)  # seat 0 takes the late result: the segment ends here
    change = host.seat_change
    assert host.over and change is not None and host.end_may_move
    assert host.seat_plan().host == t.ids[0].public_key
    assert node.changes.seats_changing(host, change) == []
    assert node.changes.end_moving is change and not t.hosted()  # held, not switched
    assert node.changes.host_when_settled(host) == []  # still held

    give(sim, 0, vote1, deadline)  # the certificate wins over the late result (P-31)
    give(sim, 2, vote0 + vote1, deadline)
    settle(sim, deadline)
    assert len({tuple(m.records) for m in sim.machines}) == 1
    assert host.over and host.seat_change is not None and not host.end_may_move
    t.have_from(1)  # seat 1 holds the round that the certificate closed
    node.changes.host_when_settled(host)
    assert node.changes.end_moving is None
    assert t.hosted() and host.config.players == 2  # it hosts the next segment
    assert [s.key for s in host.config.seats] == [t.ids[0].public_key, t.ids[2].public_key]


# covers: P-51
def test_the_next_host_whose_own_result_was_late_everywhere_takes_the_certificate(
    tmp_path: Path,
) -> None:
    """Seat 0, the next host, closed the result round with every result; its own reached
    neither other seat. No vote has come when its segment ends, but it holds the next
    configuration: neither other seat told it it holds the round. Their certificate then
    reaches it and wins (P-31); the round is signed again without its result, and every seat
    follows the one next configuration. On the code before, seat 0 signed at once and went
    on alone."""
    t = _Table(tmp_path, late=0)
    sim, host, node, deadline = t.sim, t.host, t.node, t.deadline
    change = host.seat_change
    assert host.over and change is not None and not host.end_may_move
    assert host.unconfirmed_last_round == frozenset({1, 2})
    assert node.changes.seats_changing(host, change) == []
    assert node.changes.end_moving is change and not t.hosted()  # held: nobody confirmed
    vote1, vote2 = vote(sim, 1, deadline), vote(sim, 2, deadline)
    give(sim, 1, vote2, deadline)
    give(sim, 2, vote1, deadline)  # both others: the result stands without seat 0's
    give(sim, 1, [t.late], deadline)  # late: the certificate won already
    give(sim, 2, [t.late], deadline)
    assert node.changes.host_when_settled(host) == [] and not t.hosted()
    give(sim, 0, vote1 + vote2, deadline)  # the certificate reaches the host: it wins
    settle(sim, deadline)
    assert len({tuple(m.records) for m in sim.machines}) == 1
    assert all(m.over and m.seat_change is not None for m in sim.machines)
    assert host.seat_plan().host == t.ids[0].public_key
    assert host.unconfirmed_last_round is None
    node.changes.host_when_settled(host)
    assert node.changes.end_moving is None and t.hosted()
    frame = host.take_outgoing()[0]
    for seat in (1, 2):  # seat 1 sits out and follows; seat 2 plays on
        started = [
            e for e in sim.machines[seat].receive(frame, deadline) if isinstance(e, SegmentStarted)
        ]
        assert started and started[0].config == host.config


# covers: P-51
def test_the_word_of_a_seat_that_voted_against_the_hosts_result_does_not_count(
    tmp_path: Path,
) -> None:
    """Seat 1 voted the host's result silent, then took it late (its round closed, its vote
    waits) and told the host it holds the round. The host still holds: seat 2's vote may
    complete the certificate at seat 1, which then rolls back. It does, and every seat ends on
    the certificate."""
    t = _Table(tmp_path, late=0)
    sim, host, node, deadline = t.sim, t.host, t.node, t.deadline
    t.end_held()
    vote1, vote2 = vote(sim, 1, deadline), vote(sim, 2, deadline)
    give(sim, 1, [t.late], deadline)  # after its vote: the round closes at seat 1
    assert sim.machines[1].over
    give(sim, 0, vote1, deadline)
    assert not host.end_may_move  # half a step after the host's end: P-50 no longer holds
    t.have_from(1)
    assert host.unconfirmed_last_round == frozenset({2})  # seat 1 voted: its word is void
    assert node.changes.host_when_settled(host) == [] and not t.hosted()
    give(sim, 1, vote2, deadline)  # complete at seat 1: the certificate wins (P-31)
    give(sim, 2, [*vote1, t.late], deadline)
    give(sim, 0, vote2, deadline)
    settle(sim, deadline)
    assert len({tuple(m.records) for m in sim.machines}) == 1
    assert host.unconfirmed_last_round is None
    node.changes.host_when_settled(host)
    assert t.hosted()


# covers: P-51
def test_a_seat_whose_vote_waits_says_so_and_its_word_does_not_count(tmp_path: Path) -> None:
    """As above, but seat 1's count reaches the host before its vote (over Nostr, events of
    one author may come out of order): the count says that its vote waits, and the host
    holds on."""
    t = _Table(tmp_path, late=0)
    sim, host, node, deadline = t.sim, t.host, t.node, t.deadline
    t.end_held()
    vote1, vote2 = vote(sim, 1, deadline), vote(sim, 2, deadline)
    give(sim, 1, [t.late], deadline)
    assert sim.machines[1].over and sim.machines[1].own_vote_waits
    assert t.have_from(1).get("voted") is True
    assert host.unconfirmed_last_round == frozenset({1, 2})  # no vote here yet
    assert node.changes.host_when_settled(host) == [] and not t.hosted()
    give(sim, 1, vote2, deadline)
    give(sim, 2, [*vote1, t.late], deadline)
    give(sim, 0, vote1 + vote2, deadline)
    settle(sim, deadline)
    assert len({tuple(m.records) for m in sim.machines}) == 1
    assert not sim.machines[1].own_vote_waits
    assert "voted" not in t.have_from(1)  # carried out: its word counts again
    node.changes.host_when_settled(host)
    assert t.hosted()


# covers: P-51
def test_the_next_host_signs_when_a_seat_of_the_round_holds_it(tmp_path: Path) -> None:
    """Nothing late: the next host closed the round with its own result in it, and signs the
    next configuration once one other seat of the round says it holds the round (its count
    and last record), not before; the one's word is enough, since a certificate against the
    host's result would need that seat's vote too."""
    t = _Table(tmp_path, late=0)
    sim, host, node = t.sim, t.host, t.node
    give(sim, 1, [t.late], sim.clock)  # in time this time
    assert sim.machines[1].over
    t.end_held()
    t.have_from(2)  # seat 2 lacks the host's result: its count is one element short
    assert node.changes.host_when_settled(host) == [] and not t.hosted()
    t.have_from(1)
    node.changes.host_when_settled(host)
    assert t.hosted() and node.changes.end_moving is None
