"""The next shuffler sends its shuffle before it verifies the previous proof, and checks it
right after (protocol/table/check_later.py): nothing unchecked is persisted, a bad proof found
then is convicted as if refused on arrival, and a crash in between sends the same frame again."""

from __future__ import annotations

import copy
from typing import Any

from hostile import HostileTable, decode

from dealerless.protocol.crypto.group import N
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import TranscriptCut, Violation
from dealerless.protocol.table.hand_deck import stored_round_frame

HOSTILE = 1  # shuffles just before NEXT in hand 1 (3 seats, seat order)
NEXT = 2


def held_shuffle() -> HostileTable:
    ht = HostileTable(make_config("tuppen", 3), 11, HOSTILE)
    ht.hold_when(lambda m: m.kind == "shuffle" and m.hand == 1)
    ht.play(lambda t: False)
    assert ht.held and decode(ht.held[0]).kind == "shuffle"
    assert ht.machines[NEXT].this_hand.round is not None
    assert ht.machines[NEXT].this_hand.round.seats[:2] == [HOSTILE, NEXT]
    return ht


def in_hand_1(frames: list[bytes]) -> list[bytes]:
    return [f for f in frames if decode(f).hand == 1]


def bad_proof(ht: HostileTable) -> bytes:
    body: dict[str, Any] = copy.deepcopy(dict(decode(ht.held[0]).body))
    scalars = body["shuffle"]["proof"]["s"]
    scalars[0] = ((int.from_bytes(scalars[0], "big") + 1) % N).to_bytes(32, "big")
    return ht.resign(ht.held[0], body=body)


# covers: P-18
def test_the_next_shuffler_sends_first_and_persists_only_what_it_checked() -> None:
    ht = held_shuffle()
    theirs, nxt = ht.held[0], ht.machines[NEXT]
    ht.deliver(NEXT, theirs)
    assert nxt.unchecked
    ours = nxt.take_outgoing()
    assert [(decode(f).kind, decode(f).seat) for f in ours] == [("shuffle", NEXT)]
    assert decode(ours[0]).prev == decode(theirs).digest
    assert nxt.take_records() == []  # neither shuffle is on disk before the check
    kept = nxt.take_secrets()
    assert kept and stored_round_frame(kept[-1][1]) == ours[0]  # ours is, with the key share
    nxt.check_now(ht.clock)
    assert not nxt.unchecked
    assert nxt.take_records() == [theirs, ours[0]]
    # The others take both; the table goes on and nobody is blamed.
    ht.sim.bus.broadcast(NEXT, ours)
    ht.send(theirs, to=[0])
    ht.play(lambda t: t.ref.hand > 1)
    assert not any(ht.violations(s) for s in ht.honest)
    ht.assert_converged()
    ht.audit(NEXT)


# covers: P-18
def test_a_peer_that_is_not_next_checks_on_arrival() -> None:
    ht = held_shuffle()
    ht.deliver(0, ht.held[0])
    assert not ht.machines[0].unchecked
    assert ht.machines[0].take_records()[-1] == ht.held[0]


# covers: P-18
def test_a_bad_proof_found_after_sending_is_convicted_as_if_refused_on_arrival() -> None:
    ht = held_shuffle()
    before, hand = ht.scores(), ht.ref.hand
    bad, nxt = bad_proof(ht), ht.machines[NEXT]
    persisted = len(nxt.records)
    ht.deliver(NEXT, bad)
    assert nxt.unchecked  # its shape is fine: only a proof equation is wrong
    ours = nxt.take_outgoing()
    assert [decode(f).kind for f in ours] == ["shuffle"]
    events = nxt.check_now(ht.clock)
    ht.sim.events[NEXT].extend(events)
    blamed = [e.culprit for e in events if isinstance(e, Violation) and bad in e.evidence]
    assert blamed == [HOSTILE]
    assert any(isinstance(e, TranscriptCut) and e.keep == persisted for e in events)
    assert bad not in nxt.records and ours[0] not in nxt.records
    assert nxt.take_records() == []  # nothing unchecked ever reached the disk
    # Our shuffle went out first, then the vote; the other seat refuses the bad one itself.
    ht.sim.bus.broadcast(NEXT, ours)
    ht.sim.flush(NEXT)
    ht.send(bad, to=[0])
    ht.refused_and_aborted(bad, before, hand)
    assert not any(v.culprit == NEXT for s in ht.honest for v in ht.violations(s))


# covers: P-18
def test_a_crash_between_sending_and_checking_sends_the_same_shuffle_again() -> None:
    ht = held_shuffle()
    theirs, nxt = ht.held[0], ht.machines[NEXT]
    on_disk = list(nxt.records)
    ht.deliver(NEXT, theirs)
    ours = nxt.take_outgoing()
    stored = dict(ht.sim.secrets[NEXT])
    stored.update(nxt.take_secrets())
    assert nxt.take_records() == []
    # The node dies here: its transcript ends before both shuffles.
    rebuilt = TableMachine.resume(ht.sim.table, ht.sim.keys[NEXT], on_disk, secrets=stored)
    # Nothing of hand 1 (its frames of hand 2's prepared setup may go again: P-53).
    assert in_hand_1(rebuilt.take_outgoing()) == []
    rebuilt.receive(theirs, ht.clock)  # the previous shuffle comes again (catch-up)
    again = in_hand_1(rebuilt.take_outgoing())
    assert again == ours  # the same bytes: no second shuffle at that head
    rebuilt.check_now(ht.clock)
    assert rebuilt.records[-2:] == [theirs, ours[0]]
