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

import sys
from pathlib import Path

from host_end_table import HostEndTable as _Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from late_result_sim import give, settle, vote

from dealerless.protocol.table.events import SegmentStarted


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
