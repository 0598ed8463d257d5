"""Who comes and goes, on the table screen (issue 25, item 3): what the node alone learns about
the people at a running table (a peer quit, dropped, was timed out, comes back) goes into the
move log, in the screen's language and in the order it happened, not only onto the status line
for a few seconds; a way in that keeps failing while the table runs is no news there (item 10:
"connecting to ..." over a game that runs over Nostr)."""

from __future__ import annotations

import random

import pytest

from dealerless.client.protocol_sim import start_game
from dealerless.client.tui import presenter as P
from dealerless.client.tui.i18n import LANGUAGES
from dealerless.client.tui.node_session import DriverSession
from dealerless.protocol.rules.registry import make_config

NEWS = {
    "seat 1 (bob) quit the table; if they do not come back they are timed out": "bob",
    "seat 1 (bob) disconnected": "bob",
    "seat 1 (bob) disconnected; the table waits up to 120 s at their step, then times them out": (
        "bob"
    ),
    "seat 2 (cy) was timed out (play, hand 1)": "cy",
    "seat 2 (cy) [AB12] comes back after this hand": "cy",
}
NOISE = [
    "connecting to 10.0.0.5:4000",
    "direct 10.0.0.5:4000: cannot connect to 10.0.0.5:4000: refused; trying again",
    "seat 1 (bob) connected",
]


def _running(seed: int = 3) -> DriverSession:
    sim = start_game(make_config("tuppen", 3), random.Random(seed))
    session = DriverSession(sim.table, 0, clock=lambda: 0.0)
    session.observe(sim.machines[0])
    return session


def _log(session: DriverSession, lang: str) -> list[str]:
    return P.log_lines(session.snapshot(), P.Look(lang, False))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_news_of_the_people_goes_into_the_move_log_in_order(lang: str) -> None:
    session = _running()
    before = _log(session, lang)
    for text in NEWS:
        session.say(text.replace("bob", "bot1").replace("cy", "bot2"))
    added = _log(session, lang)[len(before) :]
    assert len(added) == len(NEWS), added
    for line, who in zip(added, NEWS.values(), strict=True):
        assert ("bot1" if who == "bob" else "bot2") in line, added
    assert "120" in added[2]  # what happens next: how long the table waits
    if lang != "en":  # translated, not the node's English
        assert not any("quit the table" in line or "timed out" in line for line in added), added


def test_ways_in_that_keep_failing_are_no_news_once_the_table_runs() -> None:
    session = _running()
    shown = session.notice("en")
    for text in NOISE:
        session.say(text)
        assert session.notice("en") == shown  # the status line keeps what it had
    assert all("connect" not in line for line in _log(session, "en"))


def test_before_the_table_runs_the_lobby_hears_everything() -> None:
    session = DriverSession()
    for text in (*NOISE, *NEWS):
        session.say(text)
    assert session.lobby.messages == [*NOISE, *NEWS]  # nothing dropped, nothing logged twice


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_a_refused_move_is_said_in_the_screens_language(lang: str) -> None:
    """The rules' reason for a refused move is English: another language says in its own
    words that the move is not allowed (seen: a Dutch game's log line with 'and')."""
    from tui_helpers import snapshot

    from dealerless.client.tui.i18n import tr

    snap = snapshot(errors=("seat 0 must follow hearts and holds one",))
    lines = P.log_lines(snap, P.Look(lang, False))
    assert any(tr(lang, "refusal.illegal") in line for line in lines), lines
    assert not any("must follow" in line for line in lines), lines
    english = P.log_lines(snap, P.Look("en", False))
    assert any("must follow hearts" in line for line in english), english  # the detail, in en
