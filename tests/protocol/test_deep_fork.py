"""A branch several hands deep comes back onto the table's chain (issue 23; protocol.md §5, §8).

Three seats at the result round of hand 1; seat 2's result is late. Seats 0 and 1 vote it
silent; seat 1's vote reaches seat 0, whose certificate is complete: it signs its result again
at the certificate's head and waits there. Seat 0's vote never reaches seat 1, but the late
result does: seat 1 goes on with seat 2 into hand 2. Then seat 0 is cut off. Seats 1 and 2 hear
only each other and time seat 0 out at every step it misses: hands 2 and 3 end for its silence,
and they are in hand 4, three hands past the fork.

When seat 0 is heard again, its vote completes the certificate at seat 1, which rolls back
three hands and takes it; seat 2 takes it too (two others signed it), and the three seats play
to the end on one transcript. With a roll-back that reached one hand back, seats 1 and 2 kept
their branch and seat 0 stayed alone on its own."""

from __future__ import annotations

import pytest
from test_late_seat_hears_a_behind_peer import PostOffice, _at_the_result_round, play_out

from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import SeatSilent, TranscriptCut

AHEAD, BEHIND, LATE = 0, 1, 2


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_branch_three_hands_deep_takes_the_certificate(seed: int) -> None:
    sim, rng, held = _at_the_result_round(seed, hands=6)
    post = PostOffice(sim)
    post.mail.extend(held)
    step = sim.table.step_timeout_ms / 1000.0
    now = sim.clock
    post.deliver(lambda s, t, k: t == LATE and k == "result", now)
    post.deliver(lambda s, t, k: s != LATE and t != LATE and k == "result", now)
    clock = now + step + 0.5
    post.tick([AHEAD, BEHIND], clock)  # both vote the late seat silent
    post.deliver(lambda s, t, k: s == BEHIND and t == AHEAD and k == "timeout-vote", clock)
    assert any(isinstance(e, SeatSilent) for e in sim.events[AHEAD]), "complete at seat 0"
    post.deliver(lambda s, t, k: s == LATE and t == BEHIND and k == "result", clock)
    assert sim.machines[BEHIND].hand == 2
    # Seat 0 is cut off: seats 1 and 2 go on alone and time it out at every step.
    for _ in range(40):
        post.deliver(lambda s, t, k: {s, t} == {LATE, BEHIND}, clock)
        if sim.machines[BEHIND].hand >= 4 and sim.machines[LATE].hand >= 4:
            break
        clock += step + 0.5
        post.tick([BEHIND, LATE], clock)
    assert sim.machines[BEHIND].hand == sim.machines[LATE].hand == 4, "three hands past the fork"
    assert sim.machines[BEHIND].head == sim.machines[LATE].head
    assert sim.machines[AHEAD].hand == 1
    # Seat 0 is heard again: everything arrives.
    clock += 0.5
    for _ in range(3):
        post.deliver(lambda s, t, k: True, clock)
        post.tick([0, 1, 2], clock)
    assert any(isinstance(e, TranscriptCut) for e in sim.events[BEHIND])
    sim.bus.allow = None
    sim.clock = clock
    play_out(sim, rng, 6)
    records = [list(m.records) for m in sim.machines]
    assert records[0] == records[1] == records[2], [len(r) for r in records]
    assert all(m.over for m in sim.machines)
    assert not [v for v in sim.violations() if v.culprit is not None]
    auditor = TableMachine.resume(sim.table, None, records[0])
    assert auditor.over and auditor.state_hash() == sim.machines[0].state_hash()
