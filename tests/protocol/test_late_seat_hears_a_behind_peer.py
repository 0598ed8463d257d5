"""A late seat that hears first from a peer that is behind too (issue 23; spec/protocol.md §8).

Three seats at the result round of hand 1; seat 2's result is late. Seats 0 and 1 vote it
silent; seat 0 gets seat 1's vote, so its certificate is complete, and it signs its result again
at the certificate's head. Seat 1 is behind: seat 0's vote has not reached it, and the late
result has. It takes that result (after its own vote: it goes on), closes the round and starts
hand 2 together with seat 2, which held both others' results all along and never heard of the
votes. Seat 2 hears only from seat 1, so both are on one branch a hand ahead of seat 0.

Before a timeout certificate could be rolled back across a hand, seats 1 and 2 kept that branch
(§8). Now seat 0's vote reaches seat 1, the certificate wins over the late element there and
then at seat 2 (two others signed it), and the table plays on with one transcript."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from dealerless.client.protocol_sim import ProtocolGame, ProtocolSimError, run_game, start_game
from dealerless.protocol.messages import decode_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import SeatSilent
from dealerless.protocol.table.kinds import TABLE_REGISTRY

AHEAD, BEHIND, LATE = 0, 1, 2
Letter = tuple[int, int, bytes]  # sender, recipient, frame


def kind(frame: bytes) -> str:
    return decode_message(frame, registry=TABLE_REGISTRY).kind


class PostOffice:
    """Every frame any seat sends waits here until the test delivers it."""

    def __init__(self, sim: ProtocolGame) -> None:
        self.sim, self.mail = sim, list[Letter]()
        sim.bus.allow = self._keep

    def _keep(self, sender: int, to: int, frame: bytes) -> bool:
        self.mail.append((sender, to, frame))
        return False

    def deliver(self, wanted: Callable[[int, int, str], bool], at: float) -> None:
        """Deliver the letters ``wanted(sender, to, kind)`` picks, and what they cause."""
        while True:
            picked = [m for m in self.mail if wanted(m[0], m[1], kind(m[2]))]
            if not picked:
                return
            for letter in picked:
                self.mail.remove(letter)
                _sender, to, frame = letter
                self.sim.events[to].extend(self.sim.machines[to].receive(frame, at))
                self.sim.flush(to)

    def tick(self, seats: list[int], at: float) -> None:
        for seat in seats:
            self.sim.events[seat].extend(self.sim.machines[seat].tick(at))
            self.sim.flush(seat)


def play_out(sim: ProtocolGame, rng: random.Random, stalls: int) -> None:
    """Play to the end; where the game stalls (a seat waits for a timeout), let a step pass
    on every seat's clock, at most ``stalls`` times."""
    for _ in range(stalls):
        try:
            run_game(sim, rng)
        except ProtocolSimError:
            sim.clock += sim.table.step_timeout_ms / 1000.0 + 1.0
            for seat in range(len(sim.machines)):
                sim.events[seat].extend(sim.machines[seat].tick(sim.clock))
                sim.flush(seat)
            continue
        return


def _at_the_result_round(
    seed: int, hands: int = 2
) -> tuple[ProtocolGame, random.Random, list[Letter]]:
    """Hand 1 played to its result round; every seat's result is signed and held."""
    rng = random.Random(seed)
    sim = start_game(make_config("limit-tuppen", 3, {"hands": hands}), rng)
    held: list[Letter] = []

    def hold_results(sender: int, to: int, frame: bytes) -> bool:
        if kind(frame) != "result":
            return True
        held.append((sender, to, frame))
        return False

    sim.bus.allow = hold_results
    with pytest.raises(ProtocolSimError, match="stalled"):
        run_game(sim, rng)
    assert all(m.phase == "result" and m.hand == 1 for m in sim.machines)
    return sim, rng, held


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_late_seat_on_a_behind_peers_branch_takes_the_certificate(seed: int) -> None:
    sim, rng, held = _at_the_result_round(seed)
    post = PostOffice(sim)
    post.mail.extend(held)
    now = sim.clock
    # The late seat gets both others' results: it closes the round and starts hand 2.
    post.deliver(lambda s, t, k: t == LATE and k == "result", now)
    assert sim.machines[LATE].hand == 2
    # The others get each other's results, not the late one.
    post.deliver(lambda s, t, k: s != LATE and t != LATE and k == "result", now)
    deadline = now + sim.table.step_timeout_ms / 1000.0 + 0.5
    post.tick([AHEAD, BEHIND], deadline)  # both vote the late seat silent
    post.deliver(lambda s, t, k: s == BEHIND and t == AHEAD and k == "timeout-vote", deadline)
    assert sim.machines[AHEAD].hand == 1 and any(
        isinstance(e, SeatSilent) for e in sim.events[AHEAD]
    ), "the certificate is complete at the seat ahead"
    # The late result reaches the seat that is behind, after its vote: it goes on, into hand 2.
    post.deliver(lambda s, t, k: s == LATE and t == BEHIND and k == "result", deadline)
    assert sim.machines[BEHIND].hand == 2
    # The late seat and the behind one hear only each other: one branch, a hand ahead.
    post.deliver(lambda s, t, k: {s, t} == {LATE, BEHIND}, deadline)
    assert sim.machines[LATE].hand == sim.machines[BEHIND].hand == 2
    assert sim.machines[LATE].head == sim.machines[BEHIND].head
    # Now everything arrives.
    later = deadline + 0.5
    post.deliver(lambda s, t, k: True, later)
    post.tick([0, 1, 2], later)
    post.deliver(lambda s, t, k: True, later)
    sim.bus.allow = None
    sim.clock = later
    play_out(sim, rng, 4)
    records = [list(m.records) for m in sim.machines]
    assert records[0] == records[1] == records[2], [len(r) for r in records]
    assert all(m.over for m in sim.machines)
    for seat in range(3):
        silent = [e.seat for e in sim.events[seat] if isinstance(e, SeatSilent)]
        assert LATE in silent, seat
    assert not [v for v in sim.violations() if v.culprit is not None]
    auditor = TableMachine.resume(sim.table, None, records[0])
    assert auditor.over and auditor.state_hash() == sim.machines[0].state_hash()
