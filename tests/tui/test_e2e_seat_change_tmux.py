"""End to end in a real terminal (tmux, 80x24) against bot node processes: ``dealerless play``
of Limit Tuppen where the player presses ``w`` to stand up after this hand, confirms, sees it
pending, plays the hand out, gets the "You left the table" panel with its chips, and closing it
lets its node (the bots' direct-link hub) serve them until their table ends; and ``dealerless
join`` where the player sits out with ``o``, watches, and comes back with ``o``. Needs tmux."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
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
        key = continue_key(screen) or choose(screen, "cpa")
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
    term.press(continue_key(screen) or "Space")
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


def _bot(tmp_path: Path, name: str, *args: str) -> subprocess.Popen[bytes]:
    home = tmp_path / name
    with (tmp_path / f"{name}.log").open("wb") as log:  # the child keeps its own copy
        return subprocess.Popen(
            [sys.executable, "-m", "dealerless.client.cli", *args, "--bot", "--name", name,
             "--home", str(home), "--linger", "2"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip


def _flat(screen: str) -> str:
    return " ".join(screen.split())


def test_sitting_out_and_coming_back_at_a_networked_table_by_keys(
    terminal: Terminal,  # noqa: F811
    tmp_path: Path,
) -> None:
    """ann joins two bot node processes with ``dealerless join`` (full screen), sits out with
    ``o``, watches the table go on without a hand of hers, comes back with ``o``, plays a hand
    with the chips she kept and stands up with ``w``; every node ends with exit code 0."""
    term = terminal
    invite = tmp_path / "invite"
    # 40 hands: two bots alone may play a hand in 0.1 s (folds), and ann's way back takes a few
    # seconds of key presses; with 10 hands the table once ended before she could ask.
    host = _bot(
        tmp_path, "bot0", "host", "--game", "limit-tuppen", "--seats", "3", "--rule", "hands=40",
        "--listen", "127.0.0.1:0", "--invite-file", str(invite), "--step-timeout", "30",
    )  # fmt: skip
    bots = [host]
    try:
        for _ in range(600):
            if invite.exists() and invite.read_text().strip():
                break
            time.sleep(0.05)
        term.tmux(
            "new-session", "-d", "-s", term.name, "-x", "80", "-y", "24",
            f"{sys.executable} -m dealerless.client.cli join --invite-file {invite} --name ann"
            f" --home {tmp_path / 'ann'} --ascii --lang en --linger 2; echo EXIT=$?; sleep 60",
        )  # fmt: skip
        term.wait_for(lambda s: "At the table" in s or "Your hand:" in s, limit=60)
        bots.append(_bot(tmp_path, "bot2", "join", "--invite-file", str(invite)))
        term.wait_for(lambda s: "Your hand:" in s and "Your moves:" in s, limit=90)
        term.press("o")
        term.wait_for(lambda s: "Sit out after this hand?" in s)
        term.press("y")
        screen = term.wait_for(lambda s: "you sit out after this hand" in s)
        screen = _play_until(term, screen, lambda s: "You sit out;" in _flat(s))
        flat = _flat(screen)
        assert "kept for you. The table goes on." in flat, screen
        assert "ocomeback" in "".join(screen.split()), screen  # the panel may wrap a word
        assert "Your hand:" not in screen, screen  # no hand of ours while we sit out
        _press_on_the_table(term, "o", "Come back to the table with your kept chips?")
        term.press("y")
        # the pending note, unless the table has seated us already
        term.wait_for(
            lambda s: "youaskedtocomeback" in "".join(s.split()) or "Your hand:" in s, limit=30
        )
        screen = _play_until(
            term, screen, lambda s: "Your hand:" in s and "You sit out;" not in _flat(s), 240
        )
        seats = screen.splitlines()[1:4]  # seated again: ann has a seat line of her own
        assert any("ann (you)" in line for line in seats), screen
        # and stands up: the bots play the table to its end through the host's links
        _press_on_the_table(term, "w", "Stand up after this hand, taking your chips?")
        term.press("y")
        screen = _play_until(term, screen, lambda s: "You left the table" in s, 240)
        assert "You stood up after hand" in _flat(screen), screen
        term.press(continue_key(screen) or "Space")
        screen = term.wait_for(lambda s: "EXIT=" in s, limit=240)
        assert "EXIT=0" in screen, screen
        codes = [bot.wait(timeout=120) for bot in bots]
        assert codes == [0, 0], [
            (tmp_path / f"{n}.log").read_text()[-2000:] for n in ("bot0", "bot2")
        ]
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()


def _press_on_the_table(term: Terminal, key: str, shows: str) -> None:
    """Close the result panels the table has opened meanwhile, then press ``key`` until the
    screen ``shows`` its answer."""
    for _ in range(100):
        screen = term.screen()
        if shows in screen:
            return
        if "(y/n)" in screen:
            # Another key's question: a press typed ahead on a loaded machine and drawn only
            # after the answer we waited for (o on the table again: "Sit out after this
            # hand?"). A person says no to what they did not mean.
            term.press("n")
            time.sleep(0.3)
            continue
        panel = continue_key(screen)
        if panel is not None:
            term.press(panel)
            time.sleep(0.15)
            continue
        term.press(key)
        # One press at a time: a second one typed before the first was drawn (a loaded
        # machine) would be taken after the answer, as the next question (o: sit out again).
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline:
            screen = term.screen()
            if shows in screen or continue_key(screen) is not None:
                break
            time.sleep(0.1)
    raise AssertionError(f"{key} never showed {shows!r}:\n" + term.screen())


def _play_until(
    term: Terminal, screen: str, done: Callable[[str], bool], limit: float = 180
) -> str:
    """Play ann's moves (and close the result panels) until the screen shows ``done``."""
    deadline = time.monotonic() + limit
    while not done(screen):
        if time.monotonic() > deadline:
            raise AssertionError("the screen never got there:\n" + screen)
        key = continue_key(screen) or choose(screen, "cpa")
        if "EXIT=" in screen or key is None or "waiting for" in moves_text(screen):
            time.sleep(0.15)
            screen = term.screen()
            continue
        before = steady(screen)
        term.press(key)
        for _ in range(20):  # drawn again after the key (or the table moved), at most 2 s
            time.sleep(0.1)
            screen = term.screen()
            if steady(screen) != before:
                break
    return screen
