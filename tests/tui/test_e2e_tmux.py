"""End to end: ``dealerless play`` in a real terminal (tmux): the lobby while the bots (separate
node processes over loopback) join, then a complete hand of Tuppen and of Belote played by key
presses; the screen is read back with capture-pane.

Needs the ``tmux`` program (CI: ``apt-get install tmux``); skipped with the reason otherwise.
The test waits for the screen to change (bounded polling); it never asserts on timing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dealerless.client.tui.app import TYPED_AHEAD_S

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")

CARD = re.compile(r"(\d):(\(?)([0-9JQKA]+[CDHS])\)?")
KEY = re.compile(r"(?:^|\s)([a-z]) (?=[A-Za-z])")


@dataclass
class Terminal:
    socket: str
    name: str = "client"
    presses: list[str] = field(default_factory=list)

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run(
            [TMUX, "-L", self.socket, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def press(self, key: str) -> None:
        self.presses.append(key)
        self.tmux("send-keys", "-t", self.name, key)

    def wait_for(self, predicate, limit: float = 60.0) -> str:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + limit
        while True:
            screen = self.screen()
            if predicate(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError("the screen never got there:\n" + screen)
            time.sleep(0.1)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal(socket=f"dealerless-test-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    yield term
    subprocess.run([TMUX or "tmux", "-L", term.socket, "kill-server"], capture_output=True)


def moves_text(screen: str) -> str:
    lines = screen.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Your moves:"):
            block = []
            for text in lines[i : i + 4]:
                if "? help" in text or text.startswith("---"):
                    break  # the countdown and key-hint line
                if not text.startswith(" * "):  # a note on why the moves are what they are
                    block.append(text)
            return " ".join(block)
    return ""


CLOCK = re.compile(r"\d+s left")
HAND_OVER = re.compile(r"Hand \d+ is over")


def panel_gone(screen: str) -> Callable[[str], bool]:
    """After Space on the result panel on ``screen``: that hand's panel is gone. The next
    hand's may be up already: a hand can end (a Tupp claimed right after the deal, by bots)
    before a player closes the panel of the one before, and every result is shown in turn."""
    shown = HAND_OVER.search(screen)
    assert shown is not None, screen
    return lambda s: shown.group() not in s


def steady(screen: str) -> str:
    """The screen without the countdown line and the seats' clocks (they change every
    second)."""
    lines = (CLOCK.sub("", line) for line in screen.splitlines() if "s left for" not in line)
    return "\n".join(lines)


def continue_key(screen: str) -> str | None:
    """Space on a result panel; on the game's last panel (over, or we left) only after a
    glance, as a person's: a Space right after the last hand's panel closed is taken for one
    typed ahead, and ignored (TableApp.typed_ahead)."""
    if "Space: continue" not in screen and "Space: back to the menu" not in screen:
        return None
    if "The game is over" in screen or "You left the table" in screen:
        time.sleep(TYPED_AHEAD_S)
    return "Space"


def choose(screen: str, prefer: str) -> str | None:
    """The key a player would press on this screen."""
    moves = moves_text(screen)
    if "choose " in moves:
        return "1"
    if "play a card" in moves:
        hand = next(line for line in screen.splitlines() if line.startswith("Your hand:"))
        for number, paren, _card in CARD.findall(hand):
            if not paren:
                return number
    keys = KEY.findall(moves.removeprefix("Your moves:"))
    for key in prefer:
        if key in keys:
            return key
    return keys[0] if keys else None


def play_first_hand(term: Terminal, game: str, prefer: str) -> str:
    """``dealerless play``: the lobby while the bot processes join, then the table."""
    command = (
        f"{sys.executable} -m dealerless.client.cli play --game {game} --bots 3"
        " --ascii --lang en --name ann --timeout 600"
    )
    term.tmux("new-session", "-d", "-s", term.name, "-x", "80", "-y", "24", command)
    lobby = term.wait_for(lambda s: "dl3:" in s or "Your hand:" in s)
    if "dl3:" in lobby:
        assert "dl3:" in lobby and "ann  (you)  host" in lobby
    screen = term.wait_for(lambda s: "Your hand:" in s and "Your moves:" in s)
    assert "ann (you)" in screen and "bot1" in screen
    for _ in range(600):
        if HAND_OVER.search(screen):
            if any(k.isdigit() for k in term.presses):
                return screen
            # we folded before playing a card (the deal decides): the next hand
            term.press("Space")
            screen = term.wait_for(panel_gone(screen))
            continue
        key = choose(screen, prefer)
        before = steady(screen)
        if key is not None:
            term.press(key)
        # a move is done (or the bots moved) when the screen changes, apart from the countdown
        screen = term.wait_for(lambda s, b=before: steady(s) != b)
    raise AssertionError("no hand ended where we played a card:\n" + screen)


def check_hand_over(term: Terminal, screen: str) -> None:
    assert "Winners:" in screen and "Why:" in screen
    assert "Every proof checked" in screen
    assert "Standings" in screen and "ann" in screen
    assert any(k.isdigit() for k in term.presses), "at least one card played by its number"
    term.press("Space")
    term.wait_for(panel_gone(screen))
    term.press("q")
    term.wait_for(lambda s: "Quit? (y/n)" in s)
    term.press("y")


def test_tuppen_hand_by_keys(terminal: Terminal) -> None:
    screen = play_first_hand(terminal, "tuppen", prefer="pca")
    check_hand_over(terminal, screen)


def test_belote_hand_by_keys(terminal: Terminal) -> None:
    screen = play_first_hand(terminal, "belote", prefer="dp")
    check_hand_over(terminal, screen)


def test_a_whole_game_to_the_verified_transcript(terminal: Terminal) -> None:
    """One hand of Limit Tuppen against one bot process, played to the end of the game; after
    the final result the command exits 0 and prints that the transcript verified."""
    command = (
        f"{sys.executable} -m dealerless.client.cli play --game limit-tuppen --bots 1"
        " --rule hands=1 --ascii --lang en --name ann --timeout 600; echo EXIT=$?; sleep 60"
    )
    terminal.tmux("new-session", "-d", "-s", terminal.name, "-x", "80", "-y", "24", command)
    screen = terminal.wait_for(lambda s: "Your hand:" in s and "Your moves:" in s)
    for _ in range(300):
        if "EXIT=" in screen:
            break
        # a result panel (of the hand, of the game), else the table
        key = continue_key(screen) or choose(screen, prefer="cpa")
        before = steady(screen)
        if key is not None:
            terminal.press(key)
        screen = terminal.wait_for(lambda s, b=before: steady(s) != b or "EXIT=" in s)
    else:
        raise AssertionError("the game did not end:\n" + screen)
    screen = terminal.wait_for(lambda s: "EXIT=" in s)
    assert "EXIT=0" in screen, screen
    assert "verified by replay" in screen


def test_host_and_join_full_screen(terminal: Terminal, tmp_path: Path) -> None:
    """``dealerless host`` and ``dealerless join CODE`` in two terminals: the lobby (the invite
    code, who has joined), then a whole game played by keys on both screens."""
    host = terminal
    guest = Terminal(socket=host.socket, name="guest")
    invite = tmp_path / "invite"
    common = " --ascii --lang en --linger 2"
    host.tmux(
        "new-session", "-d", "-s", host.name, "-x", "80", "-y", "24",
        f"{sys.executable} -m dealerless.client.cli host --game limit-tuppen --seats 2"
        f" --rule hands=1 --listen 127.0.0.1:0 --name ann --home {tmp_path / 'a'}"
        f" --invite-file {invite}{common}; echo EXIT=$?; sleep 60",
    )  # fmt: skip
    lobby = host.wait_for(lambda s: "dl3:" in s)
    assert "At the table (1/2):" in lobby and "1. ann  (you)  host" in lobby
    assert "waiting for 1 more player(s)" in lobby
    for _ in range(100):
        if invite.exists():
            break
        time.sleep(0.05)
    code = invite.read_text().strip()
    assert code.replace("\n", "") in lobby.replace("\n", "")  # the code, in whole lines
    guest.tmux(
        "new-session", "-d", "-s", guest.name, "-x", "80", "-y", "24",
        f"{sys.executable} -m dealerless.client.cli join {code} --name bob"
        f" --home {tmp_path / 'b'}{common}; echo EXIT=$?; sleep 60",
    )  # fmt: skip
    for term in (host, guest):
        term.wait_for(lambda s: "Your hand:" in s and "Your moves:" in s)
    screens = {t.name: t.screen() for t in (host, guest)}
    for _ in range(600):
        if all("EXIT=" in s for s in screens.values()):
            break
        for term in (host, guest):
            screen = screens[term.name] = term.screen()
            if "EXIT=" in screen:
                continue
            key = continue_key(screen) or choose(screen, prefer="cpa")
            if key is not None and "waiting for" not in moves_text(screen):
                term.press(key)
        time.sleep(0.15)
    else:
        raise AssertionError("the game did not end:\n" + "\n".join(screens.values()))
    for term in (host, guest):
        screen = term.wait_for(lambda s: "EXIT=" in s)
        assert "EXIT=0" in screen and "verified by replay" in screen, screen


def test_the_start_screen_runs_a_real_game_and_comes_back(
    terminal: Terminal, tmp_path: Path
) -> None:
    """``dealerless`` alone opens the start screen; "Play against bots" runs the real ``play``
    command (lobby, bots as node processes, the table); quitting the table returns to it."""
    env = f"XDG_CONFIG_HOME={tmp_path / 'config'} DEALERLESS_HOME={tmp_path / 'home'}"
    terminal.tmux(
        "new-session", "-d", "-s", terminal.name, "-x", "80", "-y", "24",
        f"env {env} {sys.executable} -m dealerless.client.cli; echo EXIT=$?; sleep 60",
    )  # fmt: skip
    terminal.wait_for(lambda s: "Play against bots" in s and "Host a table" in s)
    terminal.press("1")
    terminal.wait_for(lambda s: "Bots: 3" in s)
    terminal.press("Enter")
    table = terminal.wait_for(lambda s: "Your hand:" in s, limit=90)
    assert "Tuppen" in table
    terminal.press("q")
    terminal.wait_for(lambda s: "(y/n)" in s or "y/n" in s.lower() or "quit" in s.lower())
    terminal.press("y")
    terminal.wait_for(lambda s: "Play against bots" in s, limit=60)
    terminal.press("q")
    screen = terminal.wait_for(lambda s: "EXIT=" in s)
    assert "EXIT=0" in screen


def test_resume_full_screen_says_when_there_is_nothing_to_resume(
    terminal: Terminal, tmp_path: Path
) -> None:
    terminal.tmux(
        "new-session", "-d", "-s", terminal.name, "-x", "80", "-y", "24",
        f"{sys.executable} -m dealerless.client.cli resume --home {tmp_path}; echo EXIT=$?;"
        " sleep 60",
    )  # fmt: skip
    # the screen says why and stays until the player leaves
    lobby = terminal.wait_for(lambda s: "The table did not start" in s)
    assert "no table to resume" in lobby and "q: back" in lobby
    terminal.press("q")
    screen = terminal.wait_for(lambda s: "EXIT=" in s)
    assert "EXIT=1" in screen
