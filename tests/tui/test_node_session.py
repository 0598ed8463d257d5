"""DriverSession: the screen as the node's Driver, with Trio in guest mode inside the app.

A Trio task stands in for the node (in-memory peers, bots on the other seats, the local seat
asking ``session.choose``); the player presses keys on the pipe input as the screen shows."""

from __future__ import annotations

import random

import trio
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_app_local import choose_key

from dealerless.client.bots import bot_for
from dealerless.client.protocol_sim import start_game
from dealerless.client.tui.app import TableApp
from dealerless.client.tui.node_session import DriverSession
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.registry import make_config


def test_a_hand_through_the_driver_session() -> None:
    rng = random.Random(6)
    sim = start_game(make_config("tuppen", 3), rng)
    session = DriverSession(sim.table, 0, clock=lambda: 0.0)
    bot = bot_for("tuppen")
    me = sim.machines[0]
    session.observe(me)
    assert session.snapshot().names == ("bot0", "bot1", "bot2")
    pressed: list[str] = []

    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=DummyOutput())

        async def player() -> None:
            seen, idle = -1, 0
            while True:
                snap = app.snap
                idle += 1
                if idle > 100:
                    # A key read against a frame drawn just before the move was asked for does
                    # nothing; a player would press it again, so does this one.
                    seen, idle = -1, 0
                if app.ui.summary is not None or app.ui.chooser or snap.version != seen:
                    key = choose_key(app, snap)
                    if key is not None:
                        seen, idle = snap.version, 0
                        pressed.append(key)
                        inp.send_text(key)
                await trio.sleep(0.01)

        async def node() -> None:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(player)
                while not me.engine.results:
                    # A key pressed while the node was not waiting goes out through the
                    # machine directly (as an out-of-turn move would); a node's ticker sends
                    # it, so does this loop.
                    sim.flush(0)
                    while sim.bus.pending():
                        seat, frame = sim.bus.pop()
                        events = sim.machines[seat].receive(frame, 0.0)
                        if seat == 0:
                            session.observe(me, events)
                        sim.flush(seat)
                    for seat, machine in enumerate(sim.machines):
                        if machine.my_turn_to_act():
                            if seat == 0:
                                action = await session.choose(machine)
                            else:
                                action = bot(machine.engine, seat, rng, True)
                            assert action is not None
                            events = machine.act(action, 0.0)
                            if seat == 0:
                                session.observe(me, events)
                            sim.flush(seat)
                            break
                    await trio.sleep(0)
                nursery.cancel_scope.cancel()
            inp.send_text("q")
            inp.send_text("y")

        assert app.run(trio_main=node) == 0
    assert me.engine.results and not me.violations
    assert pressed, "the player pressed keys"
    log = [type(e).__name__ for e in session.snapshot().log]
    assert "HandEnded" in log and "ActionApplied" in log


def test_a_refused_move_stays_on_screen() -> None:
    rng = random.Random(1)
    sim = start_game(make_config("tuppen", 2), rng)
    session = DriverSession(sim.table, 0, clock=lambda: 0.0)
    got: list[Action] = []

    async def main() -> None:
        while sim.bus.pending():
            seat, frame = sim.bus.pop()
            events = sim.machines[seat].receive(frame, 0.0)
            if seat == 0:
                session.observe(sim.machines[0], events)
            sim.flush(seat)
        machine = next(m for m in sim.machines if m.my_turn_to_act())
        seat = machine.seat
        assert seat is not None
        local = DriverSession(sim.table, seat, clock=lambda: 0.0)

        async def answer() -> None:
            await trio.sleep(0.01)
            local.act(Action(ActionKind.TUPP, seat))  # not legal now
            await trio.sleep(0.01)
            local.act(machine.engine.legal_actions(seat)[0])

        async with trio.open_nursery() as nursery:
            nursery.start_soon(answer)
            got.append(await local.choose(machine))
        assert local.snapshot().errors

    trio.run(main)
    assert len(got) == 1
