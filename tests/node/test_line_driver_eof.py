"""Line mode with stdin closed (`dealerless play --plain < /dev/null`): the driver says so once
and leaves the seat's turns to the step timeout instead of being asked again in a busy loop
(the node's own line driver, and the client's translated one that `play --plain` uses)."""

from __future__ import annotations

import logging
import random

import pytest
import trio

from dealerless.client.line_mode import TextLineDriver
from dealerless.client.protocol_sim import start_game
from dealerless.client.tui.i18n import tr
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


@pytest.mark.parametrize("lang", ["en", "de", "nl", "fr"])
def test_the_clients_line_mode_does_the_same_in_its_language(lang: str) -> None:
    sim = start_game(make_config("limit-tuppen", 2, {"hands": 1}), random.Random(1))
    sim.deliver_all()
    seat = next(s for s, m in enumerate(sim.machines) if m.my_turn_to_act())
    lines: list[str] = []
    reads: list[str] = []

    def closed(prompt: str) -> str:
        reads.append(prompt)
        raise EOFError

    driver = TextLineDriver(lang, write=lines.append, read=closed)
    returned: list[object] = []

    async def main() -> None:
        for _ in range(2):
            with trio.move_on_after(0.3):
                returned.append(await driver.choose(sim.machines[seat]))

    trio.run(main)
    assert returned == []  # None would have the node ask again at once: re-prompting forever
    assert len(reads) == 2  # one read per turn asked, not a loop
    told = [line for line in lines if "1)" not in line and "2)" not in line]
    closed_lines = [line for line in told if line == tr(lang, "line.stdin_closed")]
    assert len(closed_lines) == 1, lines
