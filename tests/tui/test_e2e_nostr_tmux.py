"""End to end over Nostr from the start screen: two people, each in a terminal (tmux) of their
own with their own home and settings, and each in a network namespace of their own that reaches
only a real Nostr relay's (no direct path between them). Ann picks "Host a table (internet)",
the relay coming from her settings file (``[nostr] relays``); the invite code is read off her
screen and typed into Bob's "Join with a code"; both play the game to its end by keys.

Needs tmux, root and ``ip netns`` (the namespace fixture fails, saying why, without them).
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_e2e_tmux import (  # noqa: F401 - fixture
    TMUX,
    Terminal,
    choose,
    continue_key,
    moves_text,
    terminal,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "nostr"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "node"))

from netns import RELAY_ADDRESS, Namespaces, make_namespaces, reaches  # noqa: F401
from node_cluster import Cluster

from dealerless.client.bench.nostr_relay import RelayProcess
from dealerless.client.config import Config, save_config
from dealerless.node.invite import Invite
from dealerless.node.store import list_games, list_tables

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")

QUOTED_CODE = re.compile(r"'(dl3:[-\w]+)'")
MENU = "Host a table (internet)"


def _start_screen(term: Terminal, spaces: Namespaces, seat: int, root: Path, **kw: object) -> Path:
    """``dealerless`` alone, in the player's namespace, with a home and settings of its own."""
    home, xdg = root / f"home{seat}", root / f"xdg{seat}"
    home.mkdir()
    settings = Config(ascii=True, language="en", start_game="limit-tuppen", start_bots=1,
                      rules={"limit-tuppen": {"hands": 2}}, **kw)  # type: ignore[arg-type]  # fmt: skip
    save_config(settings, home / "config.toml")
    command = (
        f"{' '.join(spaces.exec(spaces.players[seat]))} env DEALERLESS_HOME={home}"
        f" XDG_CONFIG_HOME={xdg} {sys.executable} -m dealerless.client.cli; echo EXIT=$?; sleep 60"
    )
    term.tmux("new-session", "-d", "-s", term.name, "-x", "80", "-y", "24", command)
    term.wait_for(lambda s: MENU in s and "Join with a code" in s, limit=60)
    return home


def test_an_evening_of_two_people_from_the_start_screen_over_nostr(
    terminal: Terminal,  # noqa: F811
    tmp_path: Path,
    make_namespaces: Callable[[int], Namespaces],  # noqa: F811
) -> None:
    """Issue 25's evening: Ann hosts from the form and copies the code with c (OSC 52, which
    tmux keeps as a paste buffer), Bob pastes it; they play to the final scoreboard, both press
    r and play the rematch's first hand; Ann quits in the middle of its second and Bob's screen
    says so within 5 s."""
    spaces = make_namespaces(2)
    relay = RelayProcess(
        tmp_path / "relay", host=RELAY_ADDRESS, prefix=tuple(spaces.exec(spaces.relay))
    ).start()
    try:
        ann, bob = terminal, Terminal(socket=terminal.socket, name="bob")
        homes = [
            _start_screen(ann, spaces, 0, tmp_path, name="ann", nostr_relays=[relay.url]),
            _start_screen(bob, spaces, 1, tmp_path, name="bob"),
        ]
        ann.tmux("set-option", "-s", "set-clipboard", "on")  # OSC 52 makes a paste buffer
        ann.press("2")  # Host a table (internet): the form, with its last choice
        form = ann.wait_for(lambda s: "Host a table" in s and "Seats: 2" in s, limit=30)
        assert "Bots: 0" in form and "Nostr relays and this network" in form, form
        ann.press("Enter")
        lobby = ann.wait_for(lambda s: QUOTED_CODE.search(_joined(s)) is not None, limit=60)
        assert "At the table (1/2):" in lobby and "1. ann  (you)  host" in lobby
        match = QUOTED_CODE.search(_joined(lobby))
        assert match is not None
        code = match.group(1)
        invite = Invite.decode(code)
        assert invite.nostr == (relay.url,)  # the settings file's relay
        for host, port in invite.direct:  # the LAN way in the code is none from Bob's side
            assert reaches(spaces, spaces.players[1], host, port) != "open"

        ann.press("c")
        ann.wait_for(lambda s: "copied" in s, limit=10)
        assert ann.tmux("show-buffer").strip() == code  # what the terminal got from c
        bob.press("4")  # Join with a code
        bob.wait_for(lambda s: "Join with a code:" in s)
        bob.tmux("paste-buffer", "-t", bob.name)  # Ann's copy, pasted
        bob.press("Enter")
        for term in (ann, bob):
            term.wait_for(lambda s: "Your hand:" in s and "Your moves:" in s, limit=120)
        _play_to_the_end(ann, bob, until=lambda s: "r: rematch" in s)
        for term in (ann, bob):
            screen = term.screen()
            assert "The game is over" in screen and "Final standings" in screen, screen

        # The rematch: Bob first (he waits for Ann's table), then Ann.
        bob.press("r")
        bob.wait_for(lambda s: "Rematch: waiting for the host" in s, limit=30)
        ann.press("r")
        ann.wait_for(lambda s: "Rematch: the others come" in s or "Your hand:" in s, limit=60)
        for term in (ann, bob):
            term.wait_for(lambda s: "Your hand:" in s and "Your moves:" in s, limit=120)
        # the second game's first hand, played; Ann quits in the middle of the second
        _play_to_the_end(ann, bob, until=lambda s: "Hand 2 " in s and "Your hand:" in s)
        ann.press("q")
        ann.wait_for(lambda s: "Quit? (y/n)" in s, limit=20)
        ann.press("y")
        quit_at = time.monotonic()
        told = bob.wait_for(lambda s: "ann quit the table" in _joined_words(s), limit=30)
        assert time.monotonic() - quit_at <= 5.0, told  # within 5 s of her y
        ann.wait_for(lambda s: MENU in s, limit=60)  # back at the start screen
        bob.press("q")
        bob.wait_for(lambda s: "Quit? (y/n)" in s, limit=20)
        bob.press("y")
        for term in (ann, bob):
            term.wait_for(lambda s: MENU in s, limit=60)
            term.press("q")  # leave the start screen
            screen = term.wait_for(lambda s: "EXIT=" in s)
            assert "EXIT=0" in screen, screen

        cluster = Cluster(tmp_path)
        cluster.homes, cluster.invite = homes, invite
        audit = cluster.check_identical([0, 1])  # the first game: one transcript, complete
        assert audit.over
        transcripts = {cluster.store(i).transcript_path.read_bytes() for i in (0, 1)}
        assert len(transcripts) == 1  # byte-identical
        # The start screen keeps its commands' exit codes to itself; each node's history row
        # says what made its exit code 0: verified by replay, nobody blamed, a result.
        rematch_id = invite.rematch().table_id.hex()
        for home in homes:
            (first,) = list_games(home)
            assert first.table_id == invite.table_id.hex()
            assert first.verified and first.result.startswith("winners"), first
            tables = {meta.table_id: meta for _, meta in list_tables(home)[0]}
            assert rematch_id in tables, tables  # the table each derived alone, unfinished
    finally:
        relay.kill()


def _joined(screen: str) -> str:
    """The screen's lines end to end: a code cut at the width is whole again."""
    return "".join(line.rstrip() for line in screen.splitlines())


def _joined_words(screen: str) -> str:
    """The screen's lines as one text of single spaces: a message wrapped at the width reads
    whole again."""
    return " ".join(screen.split())


def _play_to_the_end(*terms: Terminal, until: Callable[[str], bool] | None = None) -> None:
    """Each presses what a player would until the game is over and ``until`` holds for its
    screen (default: the start screen is back)."""
    screens = {t.name: t.screen() for t in terms}
    done: set[str] = set()
    for _ in range(1200):
        for term in terms:
            if term.name in done:
                continue
            screen = screens[term.name] = term.screen()
            if (until or (lambda s: MENU in s))(screen):
                done.add(term.name)
                continue
            key = continue_key(screen) or choose(screen, prefer="cpa")
            if key is not None and "waiting for" not in moves_text(screen):
                term.press(key)
        if len(done) == len(terms):
            return
        time.sleep(0.15)
    raise AssertionError("the game did not end:\n" + "\n".join(screens.values()))
