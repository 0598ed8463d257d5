"""Issue 13, items 6-10: saving, no developer text, settings, lobby, the smaller things; tested
without a terminal."""

from __future__ import annotations

import argparse
import re
from dataclasses import replace
from pathlib import Path

import pytest
import trio
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from tui_helpers import FakeSession, play_by_bot, run_keys, screen_output, snapshot

from dealerless.client.commands import play
from dealerless.client.commands.audit import _text as audit_text
from dealerless.client.commands.join import bot_name
from dealerless.client.line_mode import TextLineDriver, plain_say
from dealerless.client.tui import presenter as P
from dealerless.client.tui.app import TableApp
from dealerless.client.tui.i18n import tr
from dealerless.client.tui.log_rebuild import rebuild_log
from dealerless.client.tui.model import last_moves, move_notes
from dealerless.client.tui.node_text import node_notice
from dealerless.client.tui.session import LocalSession
from dealerless.client.tui.settings import Settings
from dealerless.client.tui.start import StartScreen
from dealerless.node.identity import load_or_create_identity
from dealerless.node.notices import Who, notice
from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ActionKind, HandResult, Outcome
from dealerless.protocol.rules.reasons import GameEnd, HandEnd
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.audit import audit_records
from dealerless.protocol.table.events import ActionApplied, GameOver, HandStarted, TableEvent

K = ActionKind
EN = P.Look("en", False)


def text(fragments: object) -> str:
    return "".join(t for _, t, *_ in fragments)  # type: ignore[attr-defined]


# --- 6. saving -----------------------------------------------------------------------------


def test_s_on_the_game_over_panel_saves_and_the_path_is_not_cut(tmp_path: Path) -> None:
    over = snapshot(over=True, outcome=Outcome((1,), (10, 3, 10, 10), "x", GameEnd.ONE_LEFT))
    session = FakeSession(over)
    code, app = run_keys(session, ["s", " "], save_dir=tmp_path, data_dir=tmp_path / "data")
    assert code == 0
    (saved,) = tmp_path.glob("tuppen-*.dlt")  # the one transcript extension
    assert str(saved) in app.ui.message
    status = text(app._status_text())
    assert status == app.ui.message  # alone on the status line, not cut by the key hints
    # a long path is wrapped, not cut: all of it is on the panel
    panel = "".join(text(app._summary_text()).split())
    assert "".join(f"Every table's transcript is kept in {tmp_path / 'data'}".split()) in panel
    assert str(saved) in panel
    assert "s:saveacopy" in panel


# --- 7. no developer text -----------------------------------------------------------------


def test_no_python_repr_and_seats_by_name_in_the_log() -> None:
    snap = snapshot()
    outcome = Outcome((1,), (10, 3, 10, 10), "one player left under 10", GameEnd.ONE_LEFT)
    events: list[TableEvent] = [HandStarted(hand=1, dealer=3), GameOver(outcome=outcome)]
    for lang in ("en", "de", "nl", "fr"):
        lines = [line for e in events for line in P.event_lines(snap, e, P.Look(lang))]
        joined = "\n".join(lines)
        assert "Outcome(" not in joined and "seat 3" not in joined and "dee" in joined
    assert P.event_lines(snap, events[0], P.Look("de")) == ["Runde 1 beginnt; dee gibt."]
    voided = HandResult(2, (), (0, 1, 0, 0), "x", {}, HandEnd.VOIDED, "seat 0 was silent")
    assert P.hand_reason(snap, voided, EN) == "voided: ann was silent"


def test_the_node_messages_in_the_screens_words() -> None:
    assert node_notice(notice("connected", peers=0), "de") == "mit dem Tisch verbunden"
    over = notice("game_over", reason="one left", winners="seat 0 (ann)", scores="ann 1")
    assert node_notice(over, "en") == ""
    assert node_notice(notice("hand_starts", hand=1, dealer=Who(seat=3, name="bot2")), "en") == ""
    said = node_notice(notice("transcript", records=220, verified=1, violations=0), "nl")
    assert "220" in said and "transcript:" not in said


def test_you_is_not_shown_twice_and_a_bot_has_a_bots_name(tmp_path: Path) -> None:
    snap = snapshot(names=("you", "bob", "cy", "dee"))
    assert P.seat_name(snap, 0, EN) == "you"
    assert P.seat_name(snapshot(), 0, EN) == "ann (you)"
    identity, _ = load_or_create_identity(tmp_path)
    assert bot_name(identity).startswith("bot-") and bot_name(identity) != "player"


def test_line_mode_prints_standings_by_name_not_a_list() -> None:
    session = LocalSession(make_config("tuppen", 3), seed=2, human_name="ann")
    session.start(threaded=False)
    session.run_until_idle()
    written: list[str] = []
    driver = TextLineDriver("en", unicode=False, write=written.append, read=lambda _: "1")
    driver.on_events(session.machine, list(session.snapshot().log))

    async def choose() -> Action | None:
        return await driver.choose(session.machine)

    assert trio.run(choose) is not None
    joined = "\n".join(written)
    # by name (the values depend on the deal: a laundry check may already have cost a point)
    assert "scores: [" not in joined
    assert re.search(r"Standings \(penalty\): ann \d+, bot1 \d+, bot2 \d+", joined), joined
    assert "Hand 1 starts" in joined and "seat " not in joined
    shown: list[str] = []
    plain_say("de", shown.append)(notice("connected", peers=2))
    assert shown == ["mit dem Tisch verbunden"]


def test_the_audit_text_names_the_seats() -> None:
    session = LocalSession(make_config("tuppen", 2), seed=4, human_name="ann")
    play_by_bot(session, until_hands=1)
    report = audit_records(session.config, list(session.machine.records))
    said = audit_text(report)
    assert "change [" not in said and "winners [" not in said and "standing [" not in said
    assert "won by" in said and ("ann +" in said or "bot1 +" in said)


# --- 8. the start screen and the saved settings --------------------------------------------


def test_settings_show_yes_no_and_translated_rule_names() -> None:
    with create_pipe_input() as inp:
        screen = StartScreen(Settings(lang="de"), input=inp, output=screen_output()[0])
        rows = dict(screen.setting_rows())
    assert rows["ascii"].endswith(": nein")
    assert rows["rule:poverty"].startswith("Armut") and rows["rule:poverty"].endswith(": ja")
    assert not any("True" in t or "False" in t for t in rows.values())


def test_play_takes_name_language_and_time_from_the_saved_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "client.json"
    Settings(name="ann", lang="nl", timeout_s=45, result_pause_s=5).save(path)
    monkeypatch.setattr(Settings, "default_path", staticmethod(lambda home=None: path))
    args = argparse.Namespace(lang=None, ascii=False)
    assert play.screen_language(args) == "nl"
    assert play.saved_settings().name == "ann" and play.saved_settings().timeout_s == 45


# --- 10. the smaller things ----------------------------------------------------------------


def test_a_laundry_round_pass_is_gone_once_a_knock_is_answered() -> None:
    log = [
        HandStarted(hand=1, dealer=3),
        ActionApplied(action=Action(K.PASS, 0)),
        ActionApplied(action=Action(K.PASS, 1)),
        ActionApplied(action=Action(K.KNOCK, 2)),
    ]
    assert last_moves(log) == {2: "knocked"}


def test_the_bet_chooser_reads_as_bets() -> None:
    bets = [Action(K.BET, 0, amount=n) for n in (1, 2, 3)]
    said = text(P.actions(snapshot(legal=bets), EN, chooser=bets))
    assert "1) bet 1" in said and "3) bet 3" in said and " 1 1 " not in said


def test_dutch_fold_and_pass_are_different_words() -> None:
    assert tr("nl", "act.fold") != tr("nl", "act.pass")
    assert "passen" not in tr("nl", "help.text").split("\n")[4]  # the k c f r line


def test_a_knock_with_an_empty_hand_says_what_it_does() -> None:
    state = {
        "hand": {
            "phase": "play",
            "active": [0, 1],
            "answer_queue": [],
            "stake": 1,
            "holding": [[[0, None], [1, None]], []],
            "played": [0, 1],
        }
    }
    notes = move_notes("tuppen", state, 0, [Action(K.KNOCK, 0)], (0, 0))
    assert [k for k, _ in notes] == ["note.knock_empty"]


def test_the_last_trick_says_who_played_each_card() -> None:
    plays = ((0, Card.parse("7H")), (1, Card.parse("10H")))
    said = text(P.trick(snapshot(last_trick=(plays, 1)), EN))
    assert "ann 7H" in said and "bob 10H" in said


def test_the_move_clock_shows_under_the_help_and_beside_the_seat() -> None:
    snap = snapshot(deadline=30.0, now=0.0)
    session = FakeSession(snap)
    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=screen_output()[0], clock=lambda: 0.0)
        app._before_render()
        assert "30s left for ann (you)" in text(app._help_text())
    assert "30s left" in text(P.seats(snap, EN, 0.0)).splitlines()[0]


def test_a_small_terminal_says_so() -> None:
    session = FakeSession(snapshot())
    output = Vt100_Output(__import__("io").StringIO(), lambda: Size(rows=12, columns=40))
    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=output, clock=lambda: 0.0)
        notice = app._too_small_text()
    assert notice is not None and "40x12" in text(notice)


def test_a_resumed_table_shows_what_happened_before() -> None:
    session = LocalSession(make_config("tuppen", 3), seed=6, human_name="ann")
    play_by_bot(session, until_hands=1)
    live = [e for e in session.snapshot().log if isinstance(e, ActionApplied)]
    rebuilt = rebuild_log(session.machine)
    again = [e for e in rebuilt if isinstance(e, ActionApplied)]
    assert [e.action for e in again] == [e.action for e in live]
    assert sum(isinstance(e, HandStarted) for e in rebuilt) >= 1
    assert replace(session.snapshot(), log=tuple(rebuilt)).log


class FrozenSession(FakeSession):
    """A session whose table has not changed yet after a move (the move is on its way)."""

    def act(self, action: Action) -> None:
        self.acted.append(action)


def test_a_key_pressed_twice_before_the_table_changed_sends_one_move() -> None:
    play = Action(K.PLAY, 0, card=Card.parse("AS"))
    session = FrozenSession(snapshot([play], [Card.parse("AS")]))
    run_keys(session, ["1", "1", "q", "y"])
    assert session.acted == [play]


def test_a_limit_call_says_what_it_costs() -> None:
    state = {"betting": {"current_bet": 3, "bets": [1, 3, 0], "pot": 9}}
    notes = move_notes("limit-tuppen", state, 0, [Action(K.CALL, 0)], (0, 0, 0))
    said = P.note_text(snapshot(), notes[0][0], notes[0][1], EN)
    assert said.startswith("A call costs 2; the pot is 9.")
