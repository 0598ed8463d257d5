"""A 3-seat table whose last result of a segment is late (spec/protocol.md §5, P-31): LATE's
result frame is held back while every other frame is delivered; helpers to cast the others'
votes, deliver frames at a time and let everything settle. In memory: real keys, deck and
signatures."""

from __future__ import annotations

import random

import pytest

from dealerless.client.protocol_sim import ProtocolGame, ProtocolSimError, run_game
from dealerless.protocol.messages import decode_message
from dealerless.protocol.table.kinds import TABLE_REGISTRY

LATE = 2  # the seat whose last result is late: the last one of the result round


def hold_late_result(sim: ProtocolGame, rng: random.Random, late: int = LATE) -> bytes:
    """Run ``sim`` until ``late`` has written its result of the segment's last hand (the
    game's, or the hand before a seat change); that frame is held (returned, not delivered),
    every other frame is."""
    held: list[bytes] = []

    def allow(sender: int, _to: int, frame: bytes) -> bool:
        if sender == late and decode_message(frame, registry=TABLE_REGISTRY).kind == "result":
            if frame not in held:
                held.append(frame)
            return False
        return True

    sim.bus.allow = allow
    with pytest.raises(ProtocolSimError, match="stalled"):
        run_game(sim, rng)  # the others wait for LATE's result: no move is left to make
    others = [m for seat, m in enumerate(sim.machines) if seat != late]
    assert held and sim.machines[late].over and not any(m.over for m in others)
    sim.bus.allow = None
    return held[0]


def vote(sim: ProtocolGame, seat: int, at: float) -> list[bytes]:
    """``seat`` ticks past its deadline: its timeout vote against LATE (not delivered yet)."""
    machine = sim.machines[seat]
    sim.events[seat].extend(machine.tick(at))
    out = machine.take_outgoing()
    machine.take_records()
    votes = [f for f in out if decode_message(f, registry=TABLE_REGISTRY).kind == "timeout-vote"]
    assert votes, f"seat {seat} did not vote"
    return out


def give(sim: ProtocolGame, seat: int, frames: list[bytes], at: float) -> None:
    for frame in frames:
        sim.events[seat].extend(sim.machines[seat].receive(frame, at))
    sim.flush(seat)


def settle(sim: ProtocolGame, at: float) -> None:
    """Deliver everything still under way and tick every seat, a few times over."""
    for _ in range(4):
        sim.clock = at
        sim.deliver_all()
        for seat, machine in enumerate(sim.machines):
            sim.events[seat].extend(machine.tick(at))
            sim.flush(seat)
        at += 1.0
    sim.deliver_all()
