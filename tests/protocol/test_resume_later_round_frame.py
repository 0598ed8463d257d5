"""A node killed after storing its key share with its next round frame and before storing the
records that closed the round before (the node stores shares, then records, then sends): back
from the crash, its transcript ends in the open round while its stored frame is of the next
one. It must send that stored frame when the next round opens, not sign a second frame there
(a second frame of one seat in one round is refused as that seat's violation)."""

from __future__ import annotations

from dealerless.client.protocol_sim import make_table
from dealerless.protocol.messages import decode_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import Violation
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.steps import Phase


def test_a_stored_frame_of_the_next_round_is_sent_again_not_signed_anew() -> None:
    table, keys = make_table(make_config("limit-tuppen", 3, {"hands": 2}))
    machines = [TableMachine(table, key, now=0.0) for key in keys]
    commits: list[list[bytes]] = [[] for _ in machines]
    while any(m.phase is Phase.CONFIG for m in machines):  # the configuration round only
        for seat, machine in enumerate(machines):
            for frame in machine.take_outgoing():
                if decode_message(frame, registry=TABLE_REGISTRY).kind == "key-commit":
                    commits[seat].append(frame)  # held back: the next round
                    continue
                for other, peer in enumerate(machines):
                    if other != seat:
                        peer.receive(frame, 0.0)
    for seat, machine in enumerate(machines):
        commits[seat] += machine.take_outgoing()
    shares0 = dict(machines[0].take_secrets())
    me = machines[0]
    assert me.phase is Phase.KEY_COMMIT
    stored_records = list(me.records)  # what reached the disk before the kill
    for seat, frames in enumerate(commits):  # seat 0 hears the others: the round closes
        if seat != 0:
            for frame in frames:
                me.receive(frame, 0.0)
    assert me.phase is Phase.KEY_REVEAL
    shares = dict(me.take_secrets())  # its share, stored with its key reveal (R0)
    # Its key reveal (beside it may go its key commitment of hand 2, prepared: P-53).
    reveal = [
        f for f in me.take_outgoing() if decode_message(f, registry=TABLE_REGISTRY).hand == 1
    ]
    assert len(reveal) == 1
    # Killed here: the records that closed the commitments never reached the disk.
    back = TableMachine.resume(table, keys[0], stored_records, secrets={**shares0, **shares})
    assert back.phase is Phase.KEY_COMMIT
    out, events = back.take_outgoing(), []
    for seat, frames in enumerate(commits):
        for frame in frames:
            if seat != 0:
                events += back.receive(frame, 0.1)
    out += back.take_outgoing()
    assert back.phase is Phase.KEY_REVEAL
    assert [e for e in events if isinstance(e, Violation)] == []
    signed = [
        f
        for f in out
        if decode_message(f, registry=TABLE_REGISTRY).kind == "key-reveal"
        and decode_message(f, registry=TABLE_REGISTRY).hand == 1
    ]
    assert signed in ([], reveal)  # no second reveal signed
    assert back.pending_round_frame() == reveal[0]  # the stored one: the node resends it
