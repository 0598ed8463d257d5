"""Table chat: a signed side message from the screen of one seat to the screens of the others."""

from __future__ import annotations

import random

import pytest
import trio

from dealerless.client.protocol_sim import start_game
from dealerless.client.tui.node_session import DriverSession
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import LocalProtocolError, TableMachine
from dealerless.protocol.table.events import ChatReceived


def test_a_chat_line_reaches_the_other_screens_and_not_the_transcript() -> None:
    sim = start_game(make_config("tuppen", 3), random.Random(3))
    sim.deliver_all()
    sender = DriverSession(clock=lambda: 0.0)
    receiver = DriverSession(clock=lambda: 0.0)
    records = [list(m.records) for m in sim.machines]

    async def main() -> None:
        sender.attach()
        sender.on_events(sim.machines[0], [])
        receiver.on_events(sim.machines[1], [])
        sender.send_chat("  good   luck ")
        await trio.sleep(0)
        await trio.sleep(0)

    trio.run(main)
    assert (0, "good   luck") in sender.snapshot().chat
    sim.flush(0)  # the node's next tick sends the signed line
    got: list[ChatReceived] = []
    while sim.bus.pending():
        seat, frame = sim.bus.pop()
        events = sim.machines[seat].receive(frame, 0.0)
        got += [e for e in events if isinstance(e, ChatReceived)]
        if seat == 1:
            receiver.on_events(sim.machines[1], events)
    assert {(e.seat, e.text) for e in got} == {(0, "good luck")}
    assert len(got) == 2  # both other seats
    assert (0, "good luck") in receiver.snapshot().chat
    assert [list(m.records) for m in sim.machines] == records, "chat is not a chain element"
    assert not any(m.violations for m in sim.machines)


def test_chat_needs_a_seat_and_some_text() -> None:
    sim = start_game(make_config("tuppen", 2), random.Random(1))
    observer = TableMachine(sim.table, None)
    with pytest.raises(LocalProtocolError):
        observer.chat("hello", 0.0)
    with pytest.raises(LocalProtocolError):
        sim.machines[0].chat("   ", 0.0)


def test_a_line_typed_before_the_table_machine_exists_is_sent_once_it_does() -> None:
    sim = start_game(make_config("tuppen", 3), random.Random(4))
    sim.deliver_all()
    sender = DriverSession(sim.table, 0, clock=lambda: 0.0)

    async def main() -> None:
        sender.attach()
        sender.send_chat("hi all")
        await trio.sleep(0)
        await trio.sleep(0)
        assert sender.chat_out == ["hi all"]  # no machine yet: kept
        sender.on_events(sim.machines[0], [])

    trio.run(main)
    assert sender.chat_out == []
    sim.flush(0)
    got = []
    while sim.bus.pending():
        seat, frame = sim.bus.pop()
        got += [e for e in sim.machines[seat].receive(frame, 0.0) if isinstance(e, ChatReceived)]
    assert {(e.seat, e.text) for e in got} == {(0, "hi all")} and len(got) == 2
