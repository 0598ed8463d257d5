"""Line mode with stdin closed (`dealerless play --plain < /dev/null`): the driver says so once
and leaves the seat's turns to the step timeout instead of being asked again in a busy loop."""

from __future__ import annotations

import logging
import random

import pytest
import trio

from dealerless.client.protocol_sim import start_game
from dealerless.node.line_driver import LineDriver
from dealerless.protocol.rules.registry import make_config


def closed_stdin(_prompt: str) -> str:
    raise EOFError


def test_a_closed_stdin_waits_for_the_timeout_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sim = start_game(make_config("limit-tuppen", 2, {"hands": 1}), random.Random(1))
    sim.deliver_all()
    seat = next(s for s, m in enumerate(sim.machines) if m.my_turn_to_act())
    driver = LineDriver(write=lambda _line: None, read=closed_stdin)
    returned: list[object] = []

    async def main() -> None:
        for _ in range(2):
            with trio.move_on_after(0.3):
                returned.append(await driver.choose(sim.machines[seat]))

    with caplog.at_level(logging.WARNING, logger="dealerless.node"):
        trio.run(main)
    assert returned == []  # never came back with "no move" to be asked again at once
    warnings = [r for r in caplog.records if "standard input is closed" in r.getMessage()]
    assert len(warnings) == 1
