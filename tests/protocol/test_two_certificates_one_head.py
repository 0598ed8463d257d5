"""Two certificates at one head (spec/protocol.md P-49): in a parallel round seats 1 and 2 each
miss the other's frame, and seat 0 misses both. Seat 1 votes seat 2 silent, seat 2 votes seat
1 silent, seat 0 votes both: both certificates complete. Whichever a seat meets first, every
seat must end on the one against the lower seat (the randomized schedules diverged here: a
seat took one, then rolled back for the other, and the seats ended on different ones)."""

from __future__ import annotations

import random

import pytest
from late_result_sim import give

from dealerless.client.protocol_sim import ProtocolGame, ProtocolSimError, run_game, start_game
from dealerless.protocol.messages import decode_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import SeatSilent
from dealerless.protocol.table.kinds import TABLE_REGISTRY


def _kind(frame: bytes) -> str:
    return decode_message(frame, registry=TABLE_REGISTRY).kind


def _missed_commits(seed: int) -> tuple[ProtocolGame, dict[int, dict[int, list[bytes]]]]:
    """The first hand's key commits of seats 1 and 2 reach nobody but their author; every seat
    then votes at its deadline. Returns the votes of each voter, by the seat they accuse."""
    rng = random.Random(seed)
    sim = start_game(make_config("limit-tuppen", 3, {"hands": 1}), rng)
    sim.bus.allow = lambda sender, _to, frame: sender == 0 or _kind(frame) != "key-commit"
    with pytest.raises(ProtocolSimError, match="stalled"):
        run_game(sim, rng)
    sim.bus.allow = None
    deadline = sim.clock + sim.table.step_timeout_ms / 1000.0 + 1.0
    votes: dict[int, dict[int, list[bytes]]] = {}
    for seat, machine in enumerate(sim.machines):
        sim.events[seat].extend(machine.tick(deadline))
        for frame in machine.take_outgoing():
            message = decode_message(frame, registry=TABLE_REGISTRY)
            assert message.kind == "timeout-vote"
            votes.setdefault(seat, {}).setdefault(int(message.body["silent"]), []).append(frame)
        machine.take_records()
    assert {s: sorted(v) for s, v in votes.items()} == {0: [1, 2], 1: [2], 2: [1]}
    sim.clock = deadline
    return sim, votes


# covers: P-49
@pytest.mark.parametrize("seed", [1, 2])
def test_the_certificate_against_the_lower_seat_wins_in_any_order(seed: int) -> None:
    sim, votes = _missed_commits(seed)
    at = sim.clock
    against_1 = votes[0][1] + votes[2][1]
    against_2 = votes[0][2] + votes[1][2]
    give(sim, 0, against_2, at)  # seat 0: the one against seat 2 first ...
    give(sim, 0, against_1, at)  # ... then the one against seat 1 completes
    give(sim, 1, against_1, at)  # seat 1: against itself first, then against seat 2
    give(sim, 1, against_2, at)
    give(sim, 2, against_2, at)  # seat 2: against itself first, then against seat 1
    give(sim, 2, against_1, at)
    run_game(sim, random.Random(seed))
    records = [list(m.records) for m in sim.machines]
    assert records[0] == records[1] == records[2], [len(r) for r in records]
    silent = {e.seat for seat in range(3) for e in sim.events[seat] if isinstance(e, SeatSilent)}
    assert 1 in silent
    taken = [
        int(decode_message(f, registry=TABLE_REGISTRY).body["silent"])
        for f in records[0]
        if _kind(f) == "timeout-vote"
    ]
    assert taken == [1, 1], taken  # the certificate against seat 1, and only that one
    assert all(m.over for m in sim.machines)
    auditor = TableMachine.resume(sim.table, None, records[0])
    assert auditor.over and auditor.state_hash() == sim.machines[0].state_hash()
