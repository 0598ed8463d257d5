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


@pytest.fixture(scope="module")
def playing() -> TableMachine:
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
