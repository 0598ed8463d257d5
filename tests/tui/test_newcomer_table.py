"""Issue 13, items 1-5: what a newcomer sees on the table screen, tested on the model, the
presenter and the app without a terminal (an 80x24 in-memory screen where drawing matters)."""

from __future__ import annotations

import re
from dataclasses import replace

from prompt_toolkit.input import create_pipe_input
from tui_helpers import FakeSession, play_by_bot, screen_output, snapshot

from dealerless.client.tui import presenter as P
from dealerless.client.tui.app import TableApp
from dealerless.client.tui.model import move_notes
from dealerless.client.tui.results import breakdown, summary
from dealerless.client.tui.rules_book import markdown_lines, rules_lines, rules_source
from dealerless.client.tui.session import LocalSession
from dealerless.client.tui.views import last_line_point
from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ActionKind, HandResult
from dealerless.protocol.rules.reasons import HandEnd
from dealerless.protocol.rules.registry import game_names, make_config
from dealerless.protocol.table.events import ActionApplied, CardsShown, HandEnded, HandStarted

K = ActionKind
EN = P.Look("en", False)


def text(fragments: object) -> str:
    return "".join(t for _, t, *_ in fragments)  # type: ignore[attr-defined]


def ansi_free(drawn: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", drawn)


# --- 1. the newest line of the log is always in view ----------------------------------------


def test_the_log_cursor_sits_at_the_end_of_the_last_line() -> None:
    assert last_line_point([("", "a\nb\nlast line")]) == (9, 2)
    assert last_line_point([("", "only")]) == (4, 0)


def test_the_newest_log_line_is_drawn_when_the_log_overflows() -> None:
    errors = tuple(f"refusal number {i}" for i in range(40))
    session = FakeSession(snapshot(errors=errors))
    output, drawn = screen_output()
    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=output, clock=lambda: 0.0)
        inp.send_text("q")
        inp.send_text("y")
        assert app.run() == 0
    screen = ansi_free(drawn.getvalue())
    assert "refusal number 39" in screen  # the last one, not only the one before it


def test_the_log_scrolls_back_and_returns_to_the_newest() -> None:
    errors = tuple(f"refusal number {i}" for i in range(40))
    session = FakeSession(snapshot(errors=errors))
    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=screen_output()[0], clock=lambda: 0.0)
        app._before_render()
        app.scroll_log(5)
        assert text(app._log_text()).endswith("refusal number 34")
        app.scroll_log(0)
        assert text(app._log_text()).endswith("refusal number 39")


# --- 3. Belote: the right team, partners, the breakdown -------------------------------------


def test_belote_marks_the_partner_and_the_teams() -> None:
    snap = snapshot(teams=(0, 1, 0, 1), scores=(40, 120, 40, 120))
    lines = text(P.seats(snap, EN)).splitlines()
    assert "team 1" in lines[0] and "team 2" in lines[1]
    assert "your partner" in lines[2] and "your partner" not in lines[1] + lines[3]


def test_a_belote_hand_result_breaks_the_points_down_and_names_the_winning_team() -> None:
    session = LocalSession(make_config("belote", 4), seed=5, human_name="ann")
    played = [HandEnd.CONTRACT_MADE, HandEnd.CONTRACT_FAILED]
    for hands in range(1, 8):  # the deal is random: a hand everybody passed is dealt again
        play_by_bot(session, until_hands=hands)
        if any(r.code in played for r in session.snapshot().results):
            break
    snap = session.snapshot()
    result = next(r for r in snap.results if r.code in played)
    lines = summary(snap, EN, result)
    said = "\n".join(lines)
    assert "Card points: team 1" in said and "Points for the hand" in said
    assert "Last trick (+10)" in said
    assert said.count("trick ") >= 8  # every trick with who played which card
    team = snap.teams[result.winners[0]] + 1
    assert f"Winners: team {team} (" in said
    assert all(len(line) <= 78 for line in lines)


# --- 4. the card order and a rules viewer a newcomer can read -------------------------------


def test_every_rule_book_explains_the_card_order_in_its_language() -> None:
    order = {
        "en": "J < Q < K < A < 7 < 8 < 9 < 10",
        "de": "Bube (J) < Dame (Q)",
        "fr": "Valet (J) < Dame (Q)",
    }
    for game in game_names():
        for lang in ("en", "de", "nl", "fr"):
            lines = rules_lines(game, lang, 78)
            joined = "\n".join(lines)
            assert all(len(line) <= 78 for line in lines), (game, lang)
            for bad in ("seed", "spec/rules", "4-4 players", "True", "False"):
                assert bad not in joined, (game, lang, bad)
            if game != "belote" and lang in order:
                assert order[lang] in joined, (game, lang)
    assert "J  9  A  10  K  Q  8  7" in "\n".join(rules_lines("belote", "nl", 78))
    assert "J  9  A  10  K  Q  8  7" in "\n".join(rules_lines("belote", "fr", 78))
    english = "\n".join(rules_lines("tuppen", "en", 78))
    assert "Schmutzige" not in english and "Armut" not in english


def test_the_rules_viewer_never_wraps_inside_a_word() -> None:
    for width in (40, 60, 78):
        source = rules_source("tuppen", "de")
        lines = markdown_lines(source, width)
        words = set(source.split())
        for line in lines:
            for word in line.split():
                assert word in words or word.title() in words or word.lower() in words, word


# --- 5. refusals and penalties come with a reason -------------------------------------------


def _tuppen_state(**hand: object) -> dict[str, object]:
    base = {"phase": "play", "active": [0, 1, 2], "answer_queue": [], "stake": 1}
    return {"hand": {**base, **hand}}


def test_a_knock_refused_by_the_cap_says_why() -> None:
    notes = move_notes("tuppen", _tuppen_state(), 0, [], (2, 9, 0))
    assert notes and notes[0][0] == "note.knock_cap"
    snap = snapshot(notes=notes, legal=[Action(K.PLAY, 0, Card.parse("7H"))])
    said = text(P.actions(snap, EN))
    assert "No knock: bob has 9 points" in said
    assert move_notes("tuppen", _tuppen_state(), 0, [], (2, 5, 0)) == ()


def test_a_poverty_hand_says_why_you_call_or_fold() -> None:
    state = _tuppen_state(answer_kind="poverty", answer_queue=[0], poor=[2], stake=2)
    notes = move_notes("tuppen", state, 0, [], (0, 0, 9))
    said = P.note_text(snapshot(), notes[0][0], notes[0][1], EN)
    assert said.startswith("Poverty: cy has 9 points") and "losing costs 2" in said


def test_a_laundry_check_point_is_explained_in_the_breakdown() -> None:
    laundry = Action(K.LAUNDRY, 0)
    check = Action(K.CHECK, 1)
    cards = [Card.parse(c).index for c in ("JC", "QC", "KC", "7D")]
    shown = CardsShown(seat=0, cards=tuple(enumerate(cards)))
    result = HandResult(1, (2,), (0, 2, 0, 1), "last trick", {"stake": 1}, HandEnd.LAST_TRICK)
    log = (
        HandStarted(hand=1, dealer=3),
        ActionApplied(action=laundry),
        ActionApplied(action=check),
        shown,
        HandEnded(result=result),
    )
    snap = snapshot(log=log, results=(result,))
    said = "\n".join(breakdown(snap, result, EN))
    assert "bob checked ann's dirty laundry, it was genuine: bob +1" in said
    assert "bob +1: played on and lost at stake 1" in said  # the other point of the 2


def test_every_result_panel_is_shown_none_replaced_by_the_next() -> None:
    first = HandResult(1, (1,), (1, 0, 1, 1), "last trick", {}, HandEnd.LAST_TRICK)
    second = HandResult(2, (2,), (1, 1, 0, 1), "last trick", {}, HandEnd.LAST_TRICK)
    session = FakeSession(snapshot())
    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=screen_output()[0], clock=lambda: 0.0)
        session.snap = replace(session.snap, results=(first, second), hand_number=3)
        app._before_render()
        assert app.ui.summary == first  # the hand that knocked me out stays on screen
        app._before_render()
        assert app.ui.summary == first
        app.close_summary()
        app._before_render()
        assert app.ui.summary == second


def test_a_result_panel_with_a_pause_closes_after_the_game_went_on() -> None:
    first = HandResult(1, (1,), (1, 0, 1, 1), "last trick", {}, HandEnd.LAST_TRICK)
    session = FakeSession(snapshot(results=(first,), hand_number=1))
    with create_pipe_input() as inp:
        app = TableApp(
            session, input=inp, output=screen_output()[0], clock=lambda: 0.0, result_pause=0.01
        )
        session.snap = replace(session.snap, results=(first,))
        app.ui.results_seen = 0
        app._before_render()
        assert app.ui.summary == first
        app._before_render()
        assert app.ui.summary == first  # the next hand has not started: it stays
        session.snap = replace(session.snap, hand_number=2)
        app._before_render()
        assert app.ui.went_on_at is not None
        app.ui.went_on_at -= 1.0
        app._before_render()
        assert app.ui.summary is None
