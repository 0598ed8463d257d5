"""End to end in a real terminal (tmux, 80x24): ``dealerless play`` of Limit Tuppen against two
bot node processes; the player presses ``w`` to stand up after this hand, confirms, sees it
pending, plays the hand out, gets the "You left the table" panel with its chips, and closing it
lets its node (the bots' direct-link hub) serve them until their table ends. Needs tmux."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_e2e_tmux import TMUX, Terminal, choose, steady, terminal  # noqa: F401 - the fixture

pytestmark = [
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)"),
    pytest.mark.slow,
]

LEFT = re.compile(r"You stood up after hand (\d+), taking (\d+) chips \(([-+]\d+) net\)\.")


def test_standing_up_at_a_networked_table_by_keys(terminal: Terminal, tmp_path: Path) -> None:  # noqa: F811
    term = terminal
    command = (
        f"{sys.executable} -m dealerless.client.cli play --game limit-tuppen --bots 2"
        f" --rule hands=4 --ascii --lang en --name ann --timeout 600 --home {tmp_path};"
        " echo EXIT=$?; sleep 120"
    )
    term.tmux("new-session", "-d", "-s", term.name, "-x", "80", "-y", "24", command)
    screen = term.wait_for(lambda s: "Your hand:" in s and "Your moves:" in s, limit=90)
    term.press("w")
    screen = term.wait_for(lambda s: "Stand up after this hand, taking your chips?" in s)
    term.press("y")
    screen = term.wait_for(lambda s: "you stand up after this hand" in s)
    for _ in range(2000):
        if "You left the table" in screen and "Space: continue" in screen:
            break
        key = "Space" if "Space: continue" in screen else choose(screen, "cpa")
        before = steady(screen)
        if key is not None:
            term.press(key)
        screen = term.wait_for(lambda s, b=before: steady(s) != b, limit=120)
    else:
        raise AssertionError("never left the table:\n" + screen)
    assert "The table goes on without you." in screen, screen
    flat = " ".join(screen.split())
    left = LEFT.search(flat)
    assert left is not None, screen
    term.press("Space")
    # the bots play on to hand 4 through our node; then it finishes, with the game saved
    screen = term.wait_for(lambda s: "EXIT=" in s, limit=240)
    assert "You left the table. Letting the others catch up first" in " ".join(screen.split())
    assert "EXIT=0" in screen, screen
    listed = subprocess.run(
        [sys.executable, "-m", "dealerless.client.cli", "games", "--home", str(tmp_path), "--json"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    (saved,) = json.loads(listed.stdout)["games"]
    assert saved["game"] == "limit-tuppen" and saved["verified"], saved
    assert saved["result"].startswith(f"left after hand {left.group(1)}: "), saved
    assert f"stack {left.group(2)}" in saved["result"], saved
