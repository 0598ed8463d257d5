"""Catch-up finds a fork (protocol.md §5, §8): a seat's ``have`` carries a tag of its last
record; a peer that holds another record at that count serves it from where a roll-back can
reach, at once, so that the seat meets what decided there (a certificate the others formed
against its element) and adopts it. Before, records were served from the seat's count only,
and the fork's records never reached it."""

from __future__ import annotations

import random

import pytest
from catch_up_seat import CatchUpSeat

from dealerless.client.bots import lineup_bot
from dealerless.client.protocol_sim import start_game
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.machine import RECORD_TAG_BYTES

PEER = b"p" * 32


def held_briefly(machine: TableMachine) -> CatchUpSeat:
    """Records held briefly (no plain serve yet: the serve grace of 3 s)."""
    seat = CatchUpSeat(machine, grace=3.0)
    seat.catch_up.grew(machine.chain_count, 99.5)
    return seat


def receiving() -> tuple[CatchUpSeat, list[bytes]]:
    """A machine of its own (records served to it reach it) on its own clock (no deadline
    passes meanwhile), its records held briefly; and its records as they were."""
    machine = _playing()
    seat = CatchUpSeat(machine, grace=3.0, receives=True)
    seat.clock = machine.now
    seat.catch_up.grew(machine.chain_count, machine.now - 0.5)
    return seat, list(machine.records)


def _playing() -> TableMachine:
    """A machine in its second hand (the first one signed), in the middle of play."""
    sim = start_game(make_config("limit-tuppen", 2, {"hands": 3}), random.Random(3))
    rng = random.Random(4)
    bot = lineup_bot("limit-tuppen", None)
    while sim.machines[0].hand < 2 or sim.machines[0].phase != "play":
        sim.deliver_all()
        for seat, machine in enumerate(sim.machines):
            if machine.my_turn_to_act():
                machine.act(bot(machine.engine, seat, rng, True), sim.clock)
                sim.flush(seat)
                break
    machine = sim.machines[0]
    assert machine.rollback_floor_count < machine.hand_start_count < machine.chain_count
    return machine


@pytest.fixture(scope="module")
def playing() -> TableMachine:
    return _playing()


def test_a_forked_seat_is_served_from_where_a_roll_back_can_reach(playing: TableMachine) -> None:
    seat = held_briefly(playing)
    n = playing.chain_count - 1
    other = bytes(RECORD_TAG_BYTES)  # its record n - 1 is not ours
    assert playing.record_tag(n) != other
    seat.catch_up.on_have(PEER, {"t": "have", "n": n, "ask": False, "last": other})
    served = seat.served()
    assert served and served[0]["start"] == playing.rollback_floor_count
    frames = [f for payload in served for f in payload["frames"]]
    assert frames == playing.records[playing.rollback_floor_count - playing.chain_base :]


def test_the_same_last_record_is_no_fork(playing: TableMachine) -> None:
    seat = held_briefly(playing)
    n = playing.chain_count - 1
    seat.catch_up.on_have(PEER, {"t": "have", "n": n, "ask": False, "last": playing.record_tag(n)})
    assert seat.served() == []  # held briefly: on its way to that seat (the serve grace)


@pytest.mark.parametrize("last", ["text", b"short", bytes(RECORD_TAG_BYTES + 1), 7, None])
def test_a_malformed_tag_is_no_fork(playing: TableMachine, last: object) -> None:
    seat = held_briefly(playing)
    n = playing.chain_count - 1
    seat.catch_up.on_have(PEER, {"t": "have", "n": n, "ask": False, "last": last})
    assert seat.served() == []


def test_our_count_carries_the_tag_of_our_last_record(playing: TableMachine) -> None:
    seat = held_briefly(playing)
    seat.catch_up.have(playing.chain_count, False, to=PEER)
    payload = seat.sent[-1][1]
    assert payload["last"] == playing.record_tag(playing.chain_count)
    assert len(payload["last"]) == RECORD_TAG_BYTES


@pytest.fixture(scope="module")
def other_table() -> TableMachine:
    """A machine of another table: its records stand for a branch that is not ours."""
    sim = start_game(make_config("limit-tuppen", 2, {"hands": 3}), random.Random(5))
    sim.deliver_all()
    return sim.machines[0]


def test_records_of_another_branch_are_answered_with_ours(other_table: TableMachine) -> None:
    """A seat ahead of us on its branch serves us its records (our count's tag told it we
    forked); we do not take them (here: not even this table's), so we send it our branch from
    where a roll-back can reach: it cannot see the fork from our count alone (protocol.md §5)."""
    seat, before = receiving()
    machine = seat.machine
    fork = machine.chain_count - 2  # the records before it are ours, the next ones not
    ours = machine.records[fork - 3 - machine.chain_base : fork - machine.chain_base]
    theirs = [*ours, *other_table.records[:3]]  # reaching past our count
    seat.catch_up.on_recs(PEER, theirs, fork - 3)
    assert machine.records == before  # nothing of theirs taken
    served = seat.served()
    start = min(fork, machine.rollback_floor_count)
    assert served and served[0]["start"] == start
    frames = [f for payload in served for f in payload["frames"]]
    assert frames == machine.records[start - machine.chain_base :]


def test_records_that_agree_with_ours_are_no_fork() -> None:
    seat, before = receiving()
    start = seat.machine.chain_count - 3
    seat.catch_up.on_recs(PEER, before[start - seat.machine.chain_base :], start)
    assert seat.served() == [] and seat.machine.records == before


def test_a_run_with_frames_dropped_is_not_laid_beside_ours(other_table: TableMachine) -> None:
    """Frames by keys that are no seats were taken out of the run: its positions are no longer
    the chain's, so it cannot show a fork."""
    seat, before = receiving()
    start = seat.machine.chain_count - 2
    seat.catch_up.on_recs(PEER, other_table.records[:2], start, whole=False)
    assert seat.served() == [] and seat.machine.records == before
