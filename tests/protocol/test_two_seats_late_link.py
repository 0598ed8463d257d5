"""At a hand of two seats the certificate is one opponent's word, and a seat that wrote in time
refuses it (protocol.md §5). A lone voter therefore waits twice the step timeout before it
votes (P-26): a move that took a step and a half to cross the link is taken, and the two seats
keep one transcript. Before, the voter timed it out after one step, the mover refused that
vote, and the two transcripts parted for good (protocol.md §8)."""

from __future__ import annotations

import random

import pytest
from test_fair_play import GAMES, to_move

from dealerless.client.bots import bot_for
from dealerless.client.protocol_sim import run_game, start_game
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import SeatSilent, TimeoutVoted
from dealerless.protocol.table.votes import LONE_VOTER_WAIT

MOVER, OTHER = 1, 0


# covers: P-26
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_move_a_step_and_a_half_late_keeps_one_transcript(seed: int) -> None:
    game = GAMES[("tuppen", 2)]
    rng = random.Random(seed)
    sim = start_game(game, rng)
    assert to_move(sim, MOVER, rng)
    mover, other = sim.machines[MOVER], sim.machines[OTHER]
    head, step = mover.head, mover.timeout
    assert other.head == head
    held: list[bytes] = []
    sim.bus.allow = lambda sender, to, frame: not (sender == MOVER and not held.append(frame))
    move = bot_for(game.game)(mover.engine, MOVER, rng, True)
    assert move is not None
    sim.events[MOVER].extend(mover.act(move, sim.clock))  # in time, on its own clock
    sim.flush(MOVER)
    assert held, "the move is on the slow link"
    # One step and a half later the other seat has not heard it: it does not vote yet.
    late = sim.clock + 1.5 * step
    sim.events[OTHER].extend(other.tick(late))
    sim.flush(OTHER)
    assert not [e for e in sim.events[OTHER] if isinstance(e, TimeoutVoted)]
    assert LONE_VOTER_WAIT * step > 1.5 * step
    # Then the move arrives: taken, and the game goes on on one chain.
    # (The move may end a trick or the hand, so either seat may write next: deliver both ways.)
    sim.bus.allow = None
    for frame in held:
        sim.events[OTHER].extend(other.receive(frame, late))
    sim.flush(OTHER)
    sim.clock = late
    sim.deliver_all()
    assert other.head == mover.head != head
    assert not [e for e in sim.events[MOVER] if isinstance(e, TimeoutVoted)]
    run_game(sim, rng)
    assert mover.records == other.records and mover.over and other.over
    assert not [e for e in sim.events[OTHER] if isinstance(e, SeatSilent)]
    auditor = TableMachine.resume(sim.table, None, other.records)
    assert auditor.over and auditor.state_hash() == other.state_hash()


def test_a_silent_seat_is_still_timed_out_after_twice_the_step() -> None:
    """Silence still costs the silent seat its hand: the lone voter votes once it waited twice
    the step, and its vote is the certificate."""
    game = GAMES[("tuppen", 2)]
    rng = random.Random(7)
    sim = start_game(game, rng)
    assert to_move(sim, MOVER, rng)
    other = sim.machines[OTHER]
    step = other.timeout
    sim.events[OTHER].extend(other.tick(sim.clock + (LONE_VOTER_WAIT - 0.1) * step))
    assert not [e for e in sim.events[OTHER] if isinstance(e, TimeoutVoted)]
    sim.events[OTHER].extend(other.tick(sim.clock + LONE_VOTER_WAIT * step + 0.1))
    assert [e.silent for e in sim.events[OTHER] if isinstance(e, TimeoutVoted)] == [MOVER]
    assert [e.seat for e in sim.events[OTHER] if isinstance(e, SeatSilent)] == [MOVER]
