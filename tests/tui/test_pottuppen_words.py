"""Pottuppen's result in words says what happened to the money (issue 25, item 13): a bettor
that takes the last trick wins its bet out of the pot (it never paid it in, so it takes nothing
"back"), and a pass round, where everybody passed, has no winners."""

from __future__ import annotations

from tui_helpers import snapshot

from dealerless.client.tui import presenter as P
from dealerless.client.tui.i18n import LANGUAGES
from dealerless.client.tui.model import TableSnapshot
from dealerless.protocol.rules.base import HandResult
from dealerless.protocol.rules.reasons import HandEnd
from dealerless.protocol.rules.registry import game_spec
from dealerless.protocol.table.events import HandEnded, HandStarted

EN = P.Look("en", False)


def pottuppen(result: HandResult) -> TableSnapshot:
    """A 4-seat Pottuppen table (we are seat 3, dee) right after ``result``'s hand."""
    return snapshot(
        game="pottuppen",
        title="Pottuppen",
        score_kind=game_spec("pottuppen").score_kind,
        seat=3,
        scores=result.deltas,
        info=(("info.pot", 8),),
        results=(result,),
        log=(HandStarted(1, 3), HandEnded(result, scores=result.deltas)),
        my_turn=False,
    )


def shown(snap: TableSnapshot, look: P.Look = EN) -> str:
    return "\n".join([*P.summary(snap, look, snap.results[-1]), *P.log_lines(snap, look)])


def test_a_bettor_that_takes_the_last_trick_wins_its_bet_not_takes_it_back() -> None:
    # ann bet 5 and took the last trick, bob bet 3 and paid it in (antes 1 each)
    details = {"mode": "contest", "bets": {0: 5, 1: 3}, "last_trick": 0, "antes": 1, "pot": 3}
    result = HandResult(1, (0,), (4, -4, -1, -1), "last trick", details, HandEnd.LAST_TRICK)
    text = shown(pottuppen(result))
    assert "ann took the last trick and wins its bet: 5 out of the pot" in text, text
    assert "bob paid its bet of 3 into the pot" in text
    assert "back" not in text
    assert "Winners: ann" in text


def test_a_pass_round_says_nobody_wins_and_what_the_last_trick_pays() -> None:
    # everybody passed; cy took the last trick and pays 2 (antes 1 each)
    details = {"mode": "pass_round", "bets": {}, "last_trick": 2, "antes": 1, "pot": 10}
    reason = "pass round: the last trick pays in"
    result = HandResult(1, (0, 1, 3), (-1, -1, -3, -1), reason, details, HandEnd.PASS_ROUND)
    snap = pottuppen(result)
    text = shown(snap)
    assert "Winners: nobody" in text, text
    assert "Hand 1: nobody won (pass round" in text
    assert "A pass round (nobody bet), so nobody wins: cy took the last trick and pays 2" in text
    assert "ann, bob" not in text
    for lang in LANGUAGES:
        words = shown(snap, P.Look(lang, True))
        assert "{" not in words and "ann, bob" not in words, (lang, words)
