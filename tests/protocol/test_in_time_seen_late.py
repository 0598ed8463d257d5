"""An element written in time on its author's clock that reaches the others after their
deadline (issue 23; spec/protocol.md §5 and §8): a 3 s step and 0.4 s of delay on the author's
link. The others vote it silent and their certificate completes; the author, whose own clock
says it wrote in time, takes the certificate (every other seat signed it: the table's
decision, at the bounded cost of silence) instead of keeping its own branch. Every seat ends
the game on one transcript, which the auditor accepts.

At 2 seats the certificate is the one opponent's word, and the author refuses it (§8: what it
costs to take, and why it is not taken there); that case is in test_parallel_rounds.py."""

from __future__ import annotations

import pytest
from hostile import HostileTable, decode

from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.events import SeatSilent, TimeoutVoted

STEP_S = 3.0
DELAY_S = 0.4
LATE = 1  # the seat whose link is slow


def _slow_move(seed: int, write_at: float) -> HostileTable:
    """Play until LATE must act; it acts ``write_at`` s after the head was reached (every seat
    reached it at the same time), and its frame reaches the others ``DELAY_S`` later."""
    ht = HostileTable(
        make_config("limit-tuppen", 3, {"hands": 2}), seed, LATE, step_timeout_ms=3000
    )
    assert ht.play(lambda t: t.hostile_to_act())
    ht.hold_now()
    reached = ht.clock
    machine = ht.machines[LATE]
    action = machine.engine.legal_actions(LATE)[0]
    ht.sim.events[LATE].extend(machine.act(action, reached + write_at))
    ht.sim.flush(LATE)
    ht.pump()
    (frame,) = [f for f in ht.held if decode(f).kind == "action"]
    ht.held.clear()
    # The others' deadline passes before the frame arrives: they vote and their certificate
    # completes among them.
    ht.tick(reached + STEP_S + 0.01)
    for seat in ht.honest:
        voted = [e.silent for e in ht.events(seat) if isinstance(e, TimeoutVoted)]
        assert voted == [LATE], seat
    ht.sim.clock = reached + write_at + DELAY_S
    ht.passing = True
    for seat in ht.honest:
        ht.deliver(seat, frame)  # late: it lost its place, blames nobody
        ht.sim.flush(seat)
    return ht


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_in_time_element_seen_late_gives_one_transcript(seed: int) -> None:
    write_at = 0.88 * STEP_S  # in time on the author's own clock (within the 0.9 margin)
    assert write_at + DELAY_S > STEP_S
    ht = _slow_move(seed, write_at)
    ht.pump()  # the votes reach the slow seat now
    ht.tick(ht.clock + 0.01)
    silences = [e.seat for e in ht.events(LATE) if isinstance(e, SeatSilent)]
    assert silences == [LATE], "the slow seat did not take the table's certificate"
    for _ in range(5):  # the game to its end; a stall is ticked past its deadline
        if ht.play(lambda t: all(m.over for m in t.machines)):
            break
        ht.tick_past_deadline()
    records = [list(m.records) for m in ht.machines]
    assert all(m.over for m in ht.machines)
    assert records[0] == records[1] == records[2], [len(r) for r in records]
    assert not [v for s in range(3) for v in ht.violations(s) if v.culprit is not None]
    ht.audit()
