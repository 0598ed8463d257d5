"""A result panel that opens hands after its hand (the player read the previous ones slowly, or
the table went on while it was away) shows the standings as they were after its own hand, not
the standings of the moment it opens (issue 25 item 7: hand 8 showed 4/9 where the audit says
3/8). The truth here is independent of the screen: in Limit Tuppen every seat's score is the
sum of its deltas, hand by hand."""

from __future__ import annotations

import pytest
from tui_helpers import play_by_bot

from dealerless.client.tui import presenter as P
from dealerless.client.tui.session import LocalSession
from dealerless.protocol.rules.registry import make_config


@pytest.mark.parametrize("lang", ["en", "de", "nl", "fr"])
def test_a_late_panel_shows_the_standings_after_its_own_hand(lang: str) -> None:
    session = LocalSession(make_config("limit-tuppen", 3, {"hands": 4}), seed=5, human_name="ann")
    play_by_bot(session)
    snap = session.snapshot()
    assert snap.over and len(snap.results) == 4
    names = ["ann", *(snap.names[s] for s in range(1, 3))]
    totals: list[list[int]] = []
    running = [0, 0, 0]
    for result in snap.results:
        running = [a + d for a, d in zip(running, result.deltas, strict=True)]
        totals.append(running)
    assert tuple(totals[-1]) == snap.scores  # the deltas add up to the final standings
    look = P.Look(lang, True)
    shown = []
    for result, after in zip(snap.results, totals, strict=True):
        line = P.summary(snap, look, result)[-1 if snap.over else -2]
        expected = ", ".join(f"{n} {x}" for n, x in zip(names, after, strict=True))
        assert line.endswith(expected), (result.hand_number, line, expected)
        shown.append(line)
    assert len(set(shown)) > 1  # the hands changed the standings: the test can tell them apart
