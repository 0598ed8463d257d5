"""An out-of-turn move (an any-time knock while another seat is to play) from the screen of a
networked seat: DriverSession acts on the machine itself when the node is not asking."""

from __future__ import annotations

import random

import trio

from dealerless.client.bots import bot_for
from dealerless.client.protocol_sim import ProtocolGame, start_game
from dealerless.client.tui.node_session import DriverSession
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.registry import make_config


def deliver(sim: ProtocolGame) -> None:
    while sim.bus.pending():
        seat, frame = sim.bus.pop()
        sim.machines[seat].receive(frame, 0.0)
        sim.flush(seat)


def reach_optional_knock(sim: ProtocolGame, rng: random.Random) -> int:
    """Bots play until some seat may knock while another seat is to act; that seat."""
    bot = bot_for("tuppen")
    for _ in range(500):
        deliver(sim)
        for seat, machine in enumerate(sim.machines):
            if machine.may_act() and not machine.my_turn_to_act():
                kinds = {a.kind for a in machine.engine.legal_actions(seat)}
                if ActionKind.KNOCK in kinds:
                    return seat
        acting = next(m for m in sim.machines if m.my_turn_to_act())
        assert acting.seat is not None
        move = bot(acting.engine, acting.seat, rng, True)
        assert move is not None
        acting.act(move, 0.0)
        sim.flush(acting.seat)
    raise AssertionError("no optional knock came up")


def test_a_knock_out_of_turn_is_signed_and_reaches_the_peers() -> None:
    rng = random.Random(5)
    sim = start_game(make_config("tuppen", 3), rng)
    seat = reach_optional_knock(sim, rng)
    machine = sim.machines[seat]
    session = DriverSession(clock=lambda: 0.0)
    knock = next(a for a in machine.engine.legal_actions(seat) if a.kind is ActionKind.KNOCK)
    before = [len(m.records) for m in sim.machines]

    async def main() -> None:
        session.attach()
        session.on_events(machine, [])
        assert session.ready and session.seat == seat
        assert knock in session.snapshot().legal and not session.snapshot().my_turn
        session.act(knock)  # from the screen: not awaited by any choose()
        await trio.sleep(0)
        await trio.sleep(0)

    trio.run(main)
    assert not session.snapshot().errors
    sim.flush(seat)  # what the node's next tick does: persist, then send
    deliver(sim)
    assert all(len(m.records) > n for m, n in zip(sim.machines, before, strict=True))
    assert not any(m.violations for m in sim.machines)
    session.on_events(machine, [])
    assert "knocked" in session.snapshot().statuses[seat]


def test_a_move_when_the_seat_may_not_act_is_an_error_on_screen() -> None:
    sim = start_game(make_config("tuppen", 3), random.Random(2))
    idle = sim.machines[0]  # the deck is still being shuffled: no moves yet
    assert not idle.may_act()
    session = DriverSession(clock=lambda: 0.0)

    async def main() -> None:
        session.attach()
        session.on_events(idle, [])
        session.act(Action(ActionKind.KNOCK, 0))
        await trio.sleep(0)

    trio.run(main)
    assert session.snapshot().errors == ("it is not your turn",)
