"""A peer back from a crash or a long absence: its peers may have timed it out and gone on.

* ``resume(hold=True)`` (what a node does until it hears from a peer) writes nothing and takes
  no move until :meth:`TableMachine.release`.
* Without the hold (or when the peers it heard from were behind too), it may write at its old
  head. Every other seat signed that it was silent there: when their timeout certificate
  reaches it, it rolls its own branch back and takes the certificate, and ends with the same
  chain as everyone else.
"""

from __future__ import annotations

import random

import pytest

from dealerless.client.bots import bot_for
from dealerless.client.protocol_sim import ProtocolGame, run_game, start_game
from dealerless.protocol.messages import decode_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import (
    Accepted,
    LocalProtocolError,
    TableEvent,
    TranscriptCut,
)
from dealerless.protocol.table.kinds import TABLE_REGISTRY

VICTIM = 2
GAME = make_config("limit-tuppen", 3, {"hands": 2})


def play_until_victim_must_move(seed: int) -> tuple[ProtocolGame, random.Random, list[bytes]]:
    """Play until the victim must choose a move; returns its transcript at that point."""
    rng = random.Random(seed)
    sim = start_game(GAME, rng)
    bot = bot_for(GAME.game)
    while True:
        sim.deliver_all()
        mover = next(s for s, m in enumerate(sim.machines) if m.my_turn_to_act())
        if mover == VICTIM:
            return sim, rng, list(sim.machines[VICTIM].records)
        machine = sim.machines[mover]
        sim.events[mover].extend(machine.act(bot(machine.engine, mover, rng, True), sim.clock))
        sim.flush(mover)


def time_out_the_victim(sim: ProtocolGame) -> None:
    """The victim is gone; the others vote it silent at this head until their certificate
    forms (nothing else: the hand stays where it is)."""
    offline = {VICTIM}
    sim.bus.allow = lambda src, dst, _frame: src not in offline and dst not in offline
    before = sim.machines[0].seq
    while sim.machines[0].seq == before:
        sim.clock += 1.0
        for seat in (0, 1):
            sim.events[seat].extend(sim.machines[seat].tick(sim.clock))
            sim.flush(seat)
        sim.deliver_all()
    assert sim.machines[0].head == sim.machines[1].head


def resend_round_frames(sim: ProtocolGame, to: int) -> list[TableEvent]:
    """What the others' nodes send a seat back from a crash: their own frame of the parallel
    round open at their head (resent with every catch-up announcement) and, answering its
    count, every frame they hold of the next hand's prepared deck (none is in a record yet)."""
    events: list[TableEvent] = []
    for seat, other in enumerate(sim.machines):
        pending = other.pending_round_frame()
        if seat != to and pending is not None:
            events.extend(sim.machines[to].receive(pending, sim.clock))
        for frame in other.prepared_frames() if seat != to else []:
            events.extend(sim.machines[to].receive(frame, sim.clock))
    return events


def in_hand(machine: TableMachine, frames: list[bytes]) -> list[bytes]:
    """The frames of the running hand (not those of the next hand's prepared deck, P-53)."""
    return [f for f in frames if decode_message(f, registry=TABLE_REGISTRY).hand == machine.hand]


def bring_back(sim: ProtocolGame, records: list[bytes], *, hold: bool) -> TableMachine:
    sim.bus.allow = None
    sim.machines[VICTIM] = TableMachine.resume(
        sim.table,
        sim.keys[VICTIM],
        records,
        secrets=sim.secrets[VICTIM],
        now=sim.clock,
        hold=hold,
    )
    return sim.machines[VICTIM]


# covers: P-32
def test_a_held_machine_writes_nothing_until_released() -> None:
    sim, rng, records = play_until_victim_must_move(seed=3)
    machine = bring_back(sim, records, hold=True)
    assert machine.held and not machine.my_turn_to_act() and not machine.may_act()
    move = bot_for(GAME.game)(machine.engine, VICTIM, rng, True)
    assert move is not None
    with pytest.raises(LocalProtocolError, match="waiting to hear from the peers"):
        machine.act(move, sim.clock)
    sim.clock += 10 * machine.timeout  # no timeout votes on a view that may be stale either
    assert machine.tick(sim.clock) == [] and machine.take_outgoing() == []
    assert machine.release(sim.clock) == [] and machine.my_turn_to_act()
    machine.act(move, sim.clock)
    assert len(in_hand(machine, machine.take_outgoing())) == 1


# covers: P-32
def test_a_held_machine_catches_up_then_takes_part() -> None:
    sim, rng, records = play_until_victim_must_move(seed=4)
    time_out_the_victim(sim)
    machine = bring_back(sim, records, hold=True)
    for frame in sim.machines[0].records[len(records) :]:
        machine.receive(frame, sim.clock)
    resend_round_frames(sim, VICTIM)
    assert machine.take_outgoing() == []  # held: nothing written at the old head
    assert machine.head == sim.machines[0].head  # caught up, on their chain
    sim.events[VICTIM].extend(machine.release(sim.clock))  # may write its next element now
    sim.flush(VICTIM)
    run_game(sim, rng)
    assert len({m.state_hash() for m in sim.machines}) == 1
    assert all(m.records == sim.machines[0].records for m in sim.machines)
    assert not sim.violations()


# covers: P-30
@pytest.mark.parametrize("seed", [5, 6, 7])
def test_an_element_written_at_the_old_head_is_rolled_back(seed: int) -> None:
    sim, rng, records = play_until_victim_must_move(seed)
    time_out_the_victim(sim)
    machine = bring_back(sim, records, hold=False)
    move = bot_for(GAME.game)(machine.engine, VICTIM, rng, True)
    assert move is not None
    machine.act(move, sim.clock)  # written at the head the others left behind
    stale = in_hand(machine, machine.take_outgoing())
    assert len(stale) == 1 and machine.head != sim.machines[0].head
    sim.bus.broadcast(VICTIM, stale)
    sim.deliver_all()  # the others refuse it (they voted it silent there)
    assert sim.machines[0].head == sim.machines[1].head != machine.head
    events = []
    for frame in sim.machines[0].records[len(records) :]:  # catch-up: the others' records
        events.extend(machine.receive(frame, sim.clock))
    events.extend(resend_round_frames(sim, VICTIM))
    assert any(isinstance(e, TranscriptCut) and e.keep == len(records) for e in events)
    assert any(isinstance(e, Accepted) and e.kind == "timeout-certificate" for e in events)
    theirs = sim.machines[0].records
    assert machine.records[: len(theirs)] == theirs  # their chain, then what we wrote on it
    sim.flush(VICTIM)
    run_game(sim, rng)
    assert len({m.state_hash() for m in sim.machines}) == 1
    assert all(m.records == sim.machines[0].records for m in sim.machines)
    assert not sim.violations()  # nobody was blamed: the victim was only late
