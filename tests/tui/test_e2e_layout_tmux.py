"""Issue 25, item 12, end to end: ``dealerless play`` at a full Tuppen table (ann and seven bot
node processes) in a real 80x24 terminal (tmux); the first hand's result panel shows its key
line, however long the breakdown of eight seats is."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from test_e2e_tmux import (  # noqa: F401
    HAND_OVER,
    TMUX,
    Terminal,
    choose,
    panel_gone,
    steady,
    terminal,
)

pytestmark = [
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)"),
    pytest.mark.slow,
]

BOTTOM = re.compile(r"└─+┘")  # the bottom line of the panel's frame


def _keys_shown(screen: str) -> None:
    """The panel's key line is on the 24 rows, and its frame closes below it."""
    lines = screen.splitlines()
    assert len(lines) <= 24
    at = [i for i, line in enumerate(lines) if "Space: continue" in line]
    assert at, "no key line:\n" + screen
    assert BOTTOM.search("\n".join(lines[at[0] + 1 :])), "the frame is cut:\n" + screen


def _drawn(term: Terminal, screen: str) -> str:
    """The screen once two captures a moment apart agree (but for the clocks, which tick):
    under load a panel can be captured half drawn (CI: its top over the last lines of the
    moves below, its key line not yet)."""
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:
        time.sleep(0.2)
        again = term.screen()
        if steady(again) == steady(screen):
            return again
        screen = again
    return screen


def test_eight_seats_result_panels_keep_their_keys_at_80x24(
    terminal: Terminal,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Three hands' panels, each also after s (the saved file's long path is one more line)."""
    command = (
        f"env XDG_CONFIG_HOME={tmp_path / 'config'} {sys.executable} -m dealerless.client.cli"
        f" play --game tuppen --bots 7 --ascii --lang en --name ann --timeout 600"
        f" --home {tmp_path / 'a-data-folder-with-a-rather-long-name'}"
    )
    terminal.tmux("new-session", "-d", "-s", terminal.name, "-x", "80", "-y", "24", command)
    screen = terminal.wait_for(lambda s: "Your hand:" in s and "Your moves:" in s, limit=90)
    assert "bot7" in screen  # eight seats
    panels = 0
    for _ in range(600):
        if HAND_OVER.search(screen) or "The game is over" in screen:
            _keys_shown(_drawn(terminal, screen))
            terminal.press("s")
            screen = terminal.wait_for(lambda s: "Transcript saved" in s)
            screen = _drawn(terminal, screen)
            _keys_shown(screen)
            panels += 1
            if panels == 3 or "The game is over" in screen:
                break
            terminal.press("Space")
            screen = terminal.wait_for(panel_gone(screen))
            continue
        key = choose(screen, prefer="pcf")
        before = steady(screen)
        if key is not None:
            terminal.press(key)
        screen = terminal.wait_for(lambda s, b=before: steady(s) != b)
    else:
        raise AssertionError("the hands did not end:\n" + screen)
    terminal.press("q")
