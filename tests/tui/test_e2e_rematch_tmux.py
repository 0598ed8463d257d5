"""A rematch, end to end in a real terminal (tmux, 80x24; issue 25, item 6): ``dealerless play``
against a bot process, played to the final scoreboard; ``r`` starts another game with the same
settings (new bot nodes, a new table), whose first hand is dealt; ``q`` then leaves."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from test_e2e_tmux import (  # noqa: F401 - the fixture
    TMUX,
    Terminal,
    choose,
    continue_key,
    moves_text,
    steady,
    terminal,
)

from dealerless.node.invite import Invite
from dealerless.node.store import TableStore

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


def test_a_rematch_between_people_over_a_direct_link(terminal: Terminal, tmp_path: Path) -> None:  # noqa: F811
    """``host`` and ``join`` on one network (a direct link, no relay): after the game both
    press r (the joiner first, so it waits for the host's new table) and the rematch's first
    hand is dealt at the table each derived from the last invite, on the host's same port."""
    host, guest = terminal, Terminal(socket=terminal.socket, name="guest")
    invite = tmp_path / "invite"
    common = " --ascii --lang en --linger 2"
    host.tmux(
        "new-session", "-d", "-s", host.name, "-x", "80", "-y", "24",
        f"{sys.executable} -m dealerless.client.cli host --game limit-tuppen --seats 2"
        f" --rule hands=1 --listen 127.0.0.1:0 --name ann --home {tmp_path / 'a'}"
        f" --invite-file {invite}{common}; echo EXIT=$?; sleep 60",
    )  # fmt: skip
    host.wait_for(lambda s: "dl3:" in s)
    for _ in range(100):
        if invite.exists():
            break
        time.sleep(0.05)
    code = invite.read_text().strip()
    guest.tmux(
        "new-session", "-d", "-s", guest.name, "-x", "80", "-y", "24",
        f"{sys.executable} -m dealerless.client.cli join {code} --name bob"
        f" --home {tmp_path / 'b'}{common}; echo EXIT=$?; sleep 60",
    )  # fmt: skip
    terms = (host, guest)
    for term in terms:
        term.wait_for(lambda s: "Your hand:" in s and "Your moves:" in s)
    over: set[str] = set()
    for _ in range(600):
        for term in terms:
            screen = term.screen()
            assert "EXIT=" not in screen, screen
            if "r: rematch" in screen:
                over.add(term.name)
                continue
            key = continue_key(screen) or choose(screen, prefer="cpa")
            if key is not None and "waiting for" not in moves_text(screen):
                term.press(key)
        if len(over) == 2:
            break
        time.sleep(0.15)
    else:
        raise AssertionError("the game did not end")
    guest.press("r")
    guest.wait_for(lambda s: "Rematch: waiting for the host" in s, limit=30)
    host.press("r")
    for term in terms:
        screen = term.wait_for(
            lambda s: ("Your hand:" in s and "The game is over" not in s) or "EXIT=" in s,
            limit=90,
        )
        assert "EXIT=" not in screen, screen
    again = Invite.decode(code).rematch()
    for home in (tmp_path / "a", tmp_path / "b"):
        assert TableStore(home, again.table_id).exists  # each at the table it derived
    for term in terms:
        term.press("q")
        term.wait_for(lambda s: "Quit? (y/n)" in s or "EXIT=" in s)
        term.press("y")
        term.wait_for(lambda s: "EXIT=" in s, limit=60)
