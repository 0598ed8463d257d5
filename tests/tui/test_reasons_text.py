"""Why a hand or a game ended, said in the screen's language from the result's reason code
(protocol/rules/reasons.py), not by showing the engine's English text."""

from __future__ import annotations

from tui_helpers import snapshot

from dealerless.client.tui import presenter as P
from dealerless.protocol.rules.base import HandResult, Outcome
from dealerless.protocol.rules.reasons import GameEnd, HandEnd

LAST_TRICK = HandResult(1, (2,), (0, 3, 0, 3), "last trick", {}, HandEnd.LAST_TRICK)
VOIDED = HandResult(
    2, (), (0, 1, 0, 0), "aborted: seat 1 was silent", {}, HandEnd.VOIDED, "seat 1 was silent"
)


def test_a_hand_end_in_every_language() -> None:
    snap = snapshot(results=[LAST_TRICK])
    said = {lang: P.summary(snap, P.Look(lang), LAST_TRICK) for lang in ("en", "de", "nl", "fr")}
    assert "Why: last trick" in said["en"]
    assert "Warum: letzter Stich" in said["de"]
    assert "Waarom: laatste slag" in said["nl"]
    assert "Pourquoi\u00a0: dernier pli" in said["fr"]  # French: a no-break space before ':'


def test_a_voided_hand_shows_the_violation_once() -> None:
    snap = snapshot(results=[VOIDED])
    (first, *_) = P.hand_result_lines(snap, VOIDED, P.Look("de"), aborted=True)
    # the machine's note counts seats from 0: the screen names the seat instead
    assert first == "Runde 2 abgebrochen: bob was silent."
    assert P.hand_reason(snap, VOIDED, P.Look("en")) == "voided: bob was silent"


def test_belote_capot_and_solo_are_added_to_the_contract() -> None:
    snap = snapshot(names=("ann", "bob", "cy", "dee"))
    capot = HandResult(
        1,
        (0, 2),
        (252, 0, 252, 0),
        "contract made, capot by team 0",
        {"capot_team": 0},
        HandEnd.CONTRACT_MADE,
    )
    solo = HandResult(
        1,
        (1, 3),
        (0, 252, 0, 252),
        "contract failed, seat 3 took every trick",
        {"capot_team": 1, "solo_capot_seat": 3},
        HandEnd.CONTRACT_FAILED,
    )
    # teams are counted from 1 on screen, as in the header (results count them from 0)
    assert (
        P.hand_reason(snap, capot, P.Look("nl")) == "contract gehaald, capot voor team 1 (ann, cy)"
    )
    assert P.hand_reason(snap, solo, P.Look("en")) == "contract failed, dee took every trick"


def test_game_ends() -> None:
    target = Outcome(
        (1, 3), (320, 512, 320, 512), "team 1 reached 501 points", GameEnd.TARGET_REACHED
    )
    snap = snapshot(teams=(0, 1, 0, 1))
    # seats 1 and 3 are the header's team 2 (the results count teams from 0)
    said = P.game_reason(snap, target, P.Look("de"))
    assert said == "Team 2 (bob, dee) hat mit 512 Punkten das Ziel erreicht"
    one_left = Outcome((2,), (10, 12, 4), "one player left under 10", GameEnd.ONE_LEFT)
    assert P.game_reason(snap, one_left, P.Look("nl")) == "nog één speler onder de 10"


def test_an_unknown_code_falls_back_to_the_english_text() -> None:
    snap = snapshot()
    odd = HandResult(1, (0,), (1, 0, 0, 0), "a reason from a newer peer", {}, "new_code")
    assert P.hand_reason(snap, odd, P.Look("de")) == "a reason from a newer peer"
    assert P.game_reason(snap, Outcome((0,), (1,), "why not"), P.Look("de")) == "why not"
