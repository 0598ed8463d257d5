"""A rematch, end to end in a real terminal (tmux, 80x24; issue 25, item 6): ``dealerless play``
against a bot process, played to the final scoreboard; ``r`` starts another game with the same
settings (new bot nodes, a new table), whose first hand is dealt; ``q`` then leaves."""

from __future__ import annotations

import sys

import pytest
from test_e2e_tmux import (  # noqa: F401 - the fixture
    TMUX,
    Terminal,
    choose,
    continue_key,
    steady,
    terminal,
)

pytestmark = [
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)"),
    pytest.mark.slow,
]


def test_r_after_the_game_starts_another_with_the_same_settings(terminal: Terminal) -> None:  # noqa: F811
    command = (
        f"{sys.executable} -m dealerless.client.cli play --game limit-tuppen --bots 1"
        " --rule hands=1 --ascii --lang en --name ann --timeout 600; echo EXIT=$?; sleep 60"
    )
    terminal.tmux("new-session", "-d", "-s", terminal.name, "-x", "80", "-y", "24", command)
    screen = terminal.wait_for(lambda s: "Your hand:" in s and "Your moves:" in s)
    for _ in range(300):
        if "The game is over" in screen and "r: rematch" in screen:
            break
        key = continue_key(screen) or choose(screen, prefer="cpa")
        before = steady(screen)
        if key is not None:
            terminal.press(key)
        screen = terminal.wait_for(lambda s, b=before: steady(s) != b or "EXIT=" in s)
        assert "EXIT=" not in screen, screen
    else:
        raise AssertionError("the game did not end:\n" + screen)
    assert "Final standings" in screen and "ann" in screen, screen
    terminal.press("r")
    # the second game: a lobby, then a new first hand (hand 1 again, not an EXIT)
    screen = terminal.wait_for(
        lambda s: ("Your hand:" in s and "The game is over" not in s) or "EXIT=" in s, limit=120
    )
    assert "EXIT=" not in screen, screen
    terminal.press("q")
    terminal.wait_for(lambda s: "Quit? (y/n)" in s or "EXIT=" in s)
    terminal.press("y")
    screen = terminal.wait_for(lambda s: "EXIT=" in s, limit=60)
