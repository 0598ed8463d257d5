"""The real table screen over a threaded LocalSession, played by key presses on a pipe input;
drawn on an 80x24 in-memory terminal to check what it shows."""

from __future__ import annotations

import asyncio
import re

import pytest
from prompt_toolkit.input import create_pipe_input
from tui_helpers import drive, screen_output

from dealerless.client.tui.app import TableApp
from dealerless.client.tui.model import TableSnapshot
from dealerless.client.tui.presenter import ACTION_KEYS
from dealerless.client.tui.session import LocalSession
from dealerless.protocol.rules.base import ActionKind
from dealerless.protocol.rules.registry import make_config

PREFERRED = (ActionKind.PASS, ActionKind.CALL, ActionKind.ACCEPT, ActionKind.BID)


def choose_key(app: TableApp, snap: TableSnapshot) -> str | None:
    """What a player would press: close a result panel, else a playable card by its number,
    else pass / call / accept / a bid (a chooser: its first entry)."""
    if app.ui.summary is not None:
        return " "
    if app.ui.chooser:
        return "1"
    if not snap.my_turn:
        return None
    playable = snap.playable()
    for i, card in enumerate(snap.hand):
        if card in playable:
            return str(i + 1)
    kinds = [a.kind for a in snap.others()]
    for kind in PREFERRED:
        if kind in kinds:
            return ACTION_KEYS[kind]
    return ACTION_KEYS[kinds[0]] if kinds else None


def ansi_free(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", text)


@pytest.mark.parametrize(("game", "players"), [("tuppen", 4), ("belote", 4), ("pottuppen", 3)])
def test_play_a_hand_by_keys(game: str, players: int) -> None:
    session = LocalSession(make_config(game, players), seed=3, human_name="ann")
    output, drawn = screen_output()

    async def main() -> int:
        with create_pipe_input() as inp:
            app = TableApp(session, input=inp, output=output)
            task = asyncio.create_task(app.app.run_async())
            await drive(
                app,
                lambda snap: choose_key(app, snap),
                lambda snap: len(snap.results) >= 1 and app.ui.summary is not None,
                inp.send_text,
            )
            for _ in range(2000):  # wait until the panel is drawn (bounded, not timed)
                screen = ansi_free(drawn.getvalue())
                if "Every proof checked" in screen:
                    break
                await asyncio.sleep(0.05)
            assert "Hand 1 is over" in screen
            assert "Every proof checked" in screen
            inp.send_text(" ")
            inp.send_text("q")
            inp.send_text("y")
            code = await task
            app.session.close()
            return code

    assert asyncio.run(main()) == 0
    snap = session.snapshot()
    assert snap.results and not snap.errors and not snap.violations
    assert session.failure is None
    screen = ansi_free(drawn.getvalue())
    for part in ("Your hand", "Your moves", "Trick", "ann (you)", "bot1", "Hand 1 starts"):
        assert part in screen, part
