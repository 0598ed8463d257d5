"""Key shares are needed only while their hand runs (issue 11, property 6): a machine resumes
from its transcript with the shares of signed hands deleted, and a share that is missing or
damaged in the running hand voids that hand for silence (bounded), never a crash."""

from __future__ import annotations

import random

import pytest

from dealerless.client.bots import bot_for
from dealerless.client.protocol_sim import ProtocolGame, run_game, start_game
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import (
    HandEnded,
    LocalProtocolError,
    SeatSilent,
    ShareMissing,
    Violation,
)

GAME = make_config("limit-tuppen", 3, {"hands": 3})
VICTIM = 2


def play_to_hand(hand: int, seed: int) -> tuple[ProtocolGame, random.Random]:
    """Until the victim must choose a move in ``hand``."""
    rng = random.Random(seed)
    sim = start_game(GAME, rng)
    bot = bot_for(GAME.game)
    while True:
        sim.deliver_all()
        mover = next(s for s, m in enumerate(sim.machines) if m.my_turn_to_act())
        if mover == VICTIM and sim.machines[VICTIM].hand == hand:
            return sim, rng
        m = sim.machines[mover]
        sim.events[mover].extend(m.act(bot(m.engine, mover, rng, True), sim.clock))
        sim.flush(mover)


def restart(sim: ProtocolGame, secrets: dict[int, bytes]) -> TableMachine:
    old = sim.machines[VICTIM]
    sim.machines[VICTIM] = TableMachine.resume(
        sim.table, sim.keys[VICTIM], list(old.records), secrets=secrets, now=sim.clock
    )
    sim.resend_prepared(VICTIM)  # what a node resends with its count (P-53)
    return sim.machines[VICTIM]


# covers: P-41
def test_resume_needs_only_the_share_of_the_running_hand() -> None:
    sim, rng = play_to_hand(3, seed=31)
    # The running hand's share, and the next hand's, made to prepare its deck (P-53).
    kept = {h: s for h, s in sim.secrets[VICTIM].items() if h >= 3}
    assert set(kept) == {3, 4}
    machine = restart(sim, kept)
    assert not machine.blind and machine.my_turn_to_act()
    sim.flush(VICTIM)
    run_game(sim, rng)
    assert len({m.state_hash() for m in sim.machines}) == 1
    assert not sim.violations()


# covers: P-41
@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_a_lost_share_of_the_running_hand_is_silence_not_a_crash(damage: str) -> None:
    sim, rng = play_to_hand(2, seed=32)
    secrets = dict(sim.secrets[VICTIM])
    if damage == "missing":
        del secrets[2]
    else:
        secrets[2] = b"\x93garbage"
    old = sim.machines[VICTIM]
    move = bot_for(GAME.game)(old.engine, VICTIM, rng, True)
    assert move is not None
    machine = restart(sim, secrets)
    events = machine.take_events()
    missing = [e for e in events if isinstance(e, ShareMissing)]
    assert missing and missing[0].hand == 2
    assert machine.blind and not machine.my_turn_to_act()
    with pytest.raises(LocalProtocolError, match="key share"):
        machine.act(move, sim.clock)
    # The others time it out; the hand ends for silence with the bounded settlement.
    while machine.hand == 2 and not machine.over:
        sim.clock += machine.timeout + 1
        for seat, m in enumerate(sim.machines):
            sim.events[seat].extend(m.tick(sim.clock))
            sim.flush(seat)
        sim.deliver_all()
        run_until_stuck(sim, rng)
    for seat in (0, 1):
        assert any(isinstance(e, SeatSilent) and e.seat == VICTIM for e in sim.events[seat])
        assert not [v for v in sim.events[seat] if isinstance(v, Violation)]
    run_game(sim, rng)
    assert len({m.state_hash() for m in sim.machines}) == 1
    assert not any(isinstance(e, HandEnded) and e.culprit is not None for e in sim.events[0])


def run_until_stuck(sim: ProtocolGame, rng: random.Random) -> None:
    bot = bot_for(GAME.game)
    for _ in range(200):
        sim.deliver_all()
        mover = next((s for s, m in enumerate(sim.machines) if m.my_turn_to_act()), None)
        if mover is None:
            return
        m = sim.machines[mover]
        sim.events[mover].extend(m.act(bot(m.engine, mover, rng, True), sim.clock))
        sim.flush(mover)


def _deliver_until_the_victim_starts_hand_2(
    sim: ProtocolGame,
) -> tuple[dict[int, bytes], list[bytes]] | None:
    """Deliver queued frames; when one starts hand 2 at the victim, return what its node had
    stored had it crashed before storing that call's records: the key shares (that call's
    too, stored first) and the records before the call."""
    while sim.bus.pending():
        for seat in range(GAME.players):
            queue, machine = sim.bus.queues[seat], sim.machines[seat]
            if not queue:
                continue
            hand, saved = machine.hand, len(machine.records)
            sim.events[seat].extend(machine.receive(queue.pop(0), sim.clock))
            if seat == VICTIM and (hand, machine.hand) == (1, 2):
                assert machine.cycle.hand.prepared_from is not None  # a prepared hand
                taken = dict(machine.take_secrets())
                assert 2 in taken  # this call stored hand 2's share with a frame of ours
                return {**sim.secrets[VICTIM], **taken}, list(machine.records[:saved])
            sim.flush(seat)
    return None


# covers: P-53
def test_a_crash_in_the_call_that_starts_a_prepared_hand_keeps_its_prepared_share() -> None:
    """The call that starts a prepared hand takes its setup onto the chain and stores our next
    frames with the key share; a node stores the share first, then the records. A crash in
    between (the share stored, that call's records not) must not lose the preparation stored
    with the share: back up, the seat plays the hand, nobody is timed out or blind."""
    rng = random.Random(33)
    sim = start_game(GAME, rng)
    bot = bot_for(GAME.game)
    while (crash := _deliver_until_the_victim_starts_hand_2(sim)) is None:
        mover = next(s for s, m in enumerate(sim.machines) if m.my_turn_to_act())
        m = sim.machines[mover]
        sim.events[mover].extend(m.act(bot(m.engine, mover, rng, True), sim.clock))
        sim.flush(mover)
    stored, records = crash
    sim.secrets[VICTIM] = stored
    sim.machines[VICTIM] = back = TableMachine.resume(
        sim.table, sim.keys[VICTIM], records, secrets=stored, now=sim.clock
    )
    assert not back.blind
    sim.flush(VICTIM)
    sim.resend_prepared(VICTIM)
    # What the others' nodes send a seat back from a crash (node.md §6): the records past its
    # count, and their own frames of an open round (the victim lost those it held in one).
    for seat, machine in enumerate(sim.machines):
        if seat != VICTIM:
            sim.bus.queues[VICTIM].extend(machine.records[len(records) :])
            pending = machine.pending_round_frame()
            if pending is not None:
                sim.bus.queues[VICTIM].append(pending)
    run_game(sim, rng)
    events = back.take_events() + sim.events[VICTIM]
    assert not [e for e in events if isinstance(e, ShareMissing)]
    silent = [e for evs in sim.events for e in evs if isinstance(e, SeatSilent)]
    assert not [e for e in silent if e.seat == VICTIM]
    assert all(m.records == sim.machines[0].records for m in sim.machines)
    assert all(m.over for m in sim.machines)
    assert not sim.violations()
