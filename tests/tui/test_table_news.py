"""Who comes and goes, on the table screen (issue 25, item 3): what the node alone learns about
the people at a running table (a peer quit, dropped, was timed out, comes back) goes into the
move log, in the screen's language and in the order it happened, not only onto the status line
for a few seconds; a way in that keeps failing while the table runs is no news there (item 10:
"connecting to ..." over a game that runs over Nostr)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from dealerless.client.protocol_sim import start_game
from dealerless.client.tui import presenter as P
from dealerless.client.tui.i18n import LANGUAGES
from dealerless.client.tui.node_session import DriverSession
from dealerless.node.notices import Notice, Who, notice
from dealerless.protocol.rules.registry import make_config

BOB, CY = Who(seat=1, name="bob"), Who(seat=2, name="cy")
NEWS = {
    notice("peer_quit", who=BOB): "bob",
    notice("peer_down", who=BOB): "bob",
    notice("peer_down_wait", who=BOB, seconds=120.0): "bob",
    notice("timed_out", who=CY, phase="play", hand=1): "cy",
    notice("comes_back", who=Who(name="cy"), fingerprint="AB12"): "cy",
}
NOISE = [
    notice("connecting", address="10.0.0.5:4000"),
    notice(
        "way_retry",
        way="direct 10.0.0.5:4000",
        kind="direct",
        where="10.0.0.5:4000",
        error="cannot connect to 10.0.0.5:4000: refused",
    ),
    notice("peer_up", who=BOB),
]
BOTS = {"bob": "bot1", "cy": "bot2"}


def _bots(said: Notice) -> Notice:
    """The notice with the bots' names the simulated table seats (bob -> bot1, cy -> bot2)."""
    who = said.params["who"]
    assert isinstance(who, Who) and who.name is not None
    return notice(said.code, **{**said.params, "who": replace(who, name=BOTS[who.name])})


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
    for said in NEWS:
        session.say(_bots(said))
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
