"""Catch-up sends no record twice (issue 21: over Nostr, counts that had waited in a relay queue
made every seat send the whole transcript again, a third of a table's events): records held for
less than the serve grace are not served; during play an equal count gets no answer unless its
seat waits for proof (its nonce comes back), after the game it does (a finished seat waits for
the others' counts)."""

from __future__ import annotations

import random
import secrets

import pytest
from catch_up_seat import CatchUpSeat

from dealerless.client.protocol_sim import run_game, start_game
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine

PEER = b"p" * 32


@pytest.fixture(scope="module")
def machine() -> TableMachine:
    sim = start_game(make_config("limit-tuppen", 2, {"hands": 1}), random.Random(5))
    run_game(sim, random.Random(6))
    return sim.machines[0]


def test_records_held_briefly_are_not_sent_again_and_the_seat_hears_our_count(
    machine: TableMachine,
) -> None:
    seat = CatchUpSeat(machine, grace=3.0)
    count = machine.chain_count
    seat.catch_up.grew(count - 2, 90.0)  # all but the last two records for a while ...
    seat.catch_up.grew(count, 99.0)  # ... the last two for one second
    seat.catch_up.on_have(PEER, {"t": "have", "n": count - 1, "ask": True})
    assert seat.kinds() == ["have"]  # not the record: it is on its way; our count instead
    assert seat.sent[0][1]["n"] == count and seat.sent[0][2] == PEER
    seat.sent.clear()
    seat.clock = 102.5  # held 3.5 s: a real loss
    seat.catch_up.on_have(PEER, {"t": "have", "n": count - 1, "ask": True})
    assert seat.kinds() == ["recs", "have"]  # the record, then our count
    assert seat.sent[0][1]["start"] == count - 1 and len(seat.sent[0][1]["frames"]) == 1


def test_without_grace_records_are_served_at_once(machine: TableMachine) -> None:
    seat = CatchUpSeat(machine, grace=0.0)
    seat.catch_up.grew(machine.chain_count, 100.0)
    seat.catch_up.on_have(PEER, {"t": "have", "n": 3, "ask": True})
    assert seat.kinds() == ["recs", "have"] and seat.sent[0][1]["start"] == 3


@pytest.fixture(scope="module")
def playing() -> TableMachine:
    """A machine in the middle of its game (the deck steps done, nobody has moved)."""
    sim = start_game(make_config("limit-tuppen", 2, {"hands": 1}), random.Random(7))
    sim.deliver_all()
    assert not sim.machines[0].over and sim.machines[0].chain_count > 0
    return sim.machines[0]


def test_during_play_an_equal_count_gets_no_answer_unless_the_seat_waits_for_proof(
    playing: TableMachine,
) -> None:
    seat = CatchUpSeat(playing, grace=3.0)
    count = playing.chain_count
    seat.catch_up.on_have(PEER, {"t": "have", "n": count, "ask": True})
    assert seat.sent == []  # the same count, mid-game: nothing to say
    nonce = secrets.token_bytes(12)
    asker = b"q" * 32
    seat.catch_up.on_have(asker, {"t": "have", "n": count, "ask": True, "nonce": nonce})
    # The frames we hold of the next hand's prepared setup (P-53), then our count, to that seat
    # only: it may be back from a crash, and no record holds them before that hand starts.
    prepared = playing.prepared_frames()
    assert set(playing.pending_prepared_frames()) <= set(prepared)
    assert len(prepared) >= len(playing.participants), "the next deck is being prepared"
    assert seat.kinds() == ["f"] * len(prepared) + ["have"]
    assert seat.sent[-1][1]["echo"] == nonce
    assert [(payload["f"], to) for _, payload, to in seat.sent[:-1]] == [
        (frame, asker) for frame in prepared
    ]


def test_after_the_game_an_equal_count_is_answered(machine: TableMachine) -> None:
    assert machine.over
    seat = CatchUpSeat(machine, grace=3.0)
    count = machine.chain_count
    seat.catch_up.on_have(PEER, {"t": "have", "n": count, "ask": True})
    assert seat.kinds() == ["have"] and seat.sent[0][1]["n"] == count  # a finished seat waits


def test_a_seat_ahead_of_us_hears_our_count(machine: TableMachine) -> None:
    seat = CatchUpSeat(machine, grace=3.0)
    seat.catch_up.on_have(PEER, {"t": "have", "n": machine.chain_count + 5, "ask": False})
    assert seat.kinds() == ["have"] and seat.sent[0][1]["n"] == machine.chain_count


def test_a_seat_that_waits_for_records_is_served_at_once_and_they_echo_its_nonce(
    machine: TableMachine,
) -> None:
    """An ask with the asker's nonce (a newcomer fetching the chain from the start, a seat back
    from a crash) has nothing on its way: no grace; the records echo the nonce, so over Nostr
    they go with the table's messages (node/nostr/link.py)."""
    seat = CatchUpSeat(machine, grace=3.0)
    count = machine.chain_count
    seat.catch_up.grew(count, 99.5)  # everything held for half a second only
    nonce = secrets.token_bytes(12)
    seat.catch_up.on_have(PEER, {"t": "have", "n": 0, "ask": True, "nonce": nonce})
    records = [payload for kind, payload, _ in seat.sent if kind == "recs"]
    assert records and records[0]["start"] == 0 and all(r["echo"] == nonce for r in records)
    assert sum(len(r["frames"]) for r in records) == count


def test_a_newcomer_waiting_for_its_seat_is_served_but_never_counted(
    machine: TableMachine,
) -> None:
    seat = CatchUpSeat(machine, grace=3.0)
    newcomer = b"n" * 32
    seat.waiting[newcomer] = ("dora", 10)
    seat.catch_up.on_have(
        newcomer, {"t": "have", "n": 2, "ask": True, "nonce": secrets.token_bytes(12)}
    )
    assert seat.kinds() == ["recs"] and seat.sent[0][2] == newcomer  # no count back
    assert newcomer not in seat.catch_up.peer_counts
    seat.sent.clear()
    seat.catch_up.send_chain_tail(
        newcomer, machine.chain_count
    )  # with its offer: nothing is missing
    assert seat.sent == []
    assert seat.catch_up._budget(newcomer).upto == machine.chain_count
