"""A seat's configuration signature that reaches the others only after their deadline (spec
protocol.md §8, the in-time element seen late, at the table's very first step): the others
time it out and the table does not start. The late seat meets their complete certificate at a
head it has left (its own signature moved it on) and adopts it by rolling the configuration
round back, so every seat holds the same transcript. Before, the configuration round could not
be rolled back: that seat kept its own branch and waited forever for the next signature."""

from __future__ import annotations

from dealerless.client.protocol_sim import make_table
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import TableNotStarted, TranscriptCut


def test_a_late_configuration_signature_gives_way_to_the_certificate() -> None:
    table, keys = make_table(make_config("limit-tuppen", 3, {"hands": 2}), step_timeout_ms=3000)
    late, *others = [TableMachine(table, key, now=0.0) for key in keys]
    own = late.take_outgoing()  # seat 0 signs first; its frame is delayed on every link
    assert len(own) == 1 and late.seq == 1
    for machine in others:
        assert machine.take_outgoing() == []  # they wait for seat 0's signature
    votes = []
    for machine in others:
        machine.tick(3.5)  # past the deadline on their clocks: seat 0 was silent
        votes += machine.take_outgoing()
    assert len(votes) == 2
    for machine, vote in zip(others, reversed(votes), strict=True):
        events = machine.receive(vote, 3.6)  # each gets the other's vote: certificate
        assert any(isinstance(e, TableNotStarted) and e.silent == 0 for e in events)
        ended = list(machine.records)
        machine.receive(own[0], 3.7)  # the late signature: stale now, it changes nothing
        assert machine.records == ended and machine.over
    events = []
    for vote in votes:
        events += late.receive(vote, 3.8)
    events += late.tick(3.8)
    assert any(isinstance(e, TranscriptCut) for e in events)  # its own signature undone
    assert any(isinstance(e, TableNotStarted) and e.silent == 0 for e in events)
    assert late.over
    assert late.records == others[0].records == others[1].records
