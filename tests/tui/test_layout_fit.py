"""Issue 25, item 12 (layout): at 80x24 every panel of every game with eight seats (Belote:
four) fits with its key line; at 100 columns the last trick and the status line are whole;
chat and log lines wrap between words; a wide screen uses its width.

Drawn into prompt_toolkit's in-memory screen (screen_render), as a terminal would show it.
"""

from __future__ import annotations

import asyncio
import io
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from screen_render import draw, sized_app, words
from tui_helpers import FakeSession, play_by_bot, snapshot

from dealerless.client.tui import presenter as P
from dealerless.client.tui.app import TableApp
from dealerless.client.tui.i18n import LANGUAGES, tr
from dealerless.client.tui.session import LocalSession
from dealerless.client.tui.wrap import fit_panel, short_path, wrap_lines
from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import OptionValue, Outcome
from dealerless.protocol.rules.reasons import GameEnd
from dealerless.protocol.rules.registry import game_names, game_spec, make_config

# Games that end after two hands, so their own game-over panel is drawn too.
SHORT: dict[str, dict[str, OptionValue]] = {
    "limit-tuppen": {"hands": 2},
    "no-limit-tuppen": {"hands": 2},
    "pot-limit-tuppen": {"hands": 2},
    "pottuppen": {"hands": 2},
}
# A transcript folder as deep as a real one (the game-over panel names it).
DATA_DIR = Path("/home/annabelle/.local/share/dealerless/tables/0123456789abcdef")


def _seats(game: str) -> int:
    return game_spec(game).max_players  # eight, Belote four


@cache
def _played(game: str) -> LocalSession:
    """``game`` at a full table, two hands played by bots (a full table: the tallest panels)."""
    session = LocalSession(make_config(game, _seats(game), SHORT.get(game)), seed=3)
    play_by_bot(session, until_hands=2)
    return session


def shown_as(text: str) -> str:
    """``text`` as the screen shows it: French no-break spaces as spaces."""
    return text.replace("\xa0", " ").replace("\u202f", " ")


def _text(fragments: object) -> list[str]:
    return "".join(f[1] for f in fragments).split("\n")  # type: ignore[attr-defined]


def _assert_panel_fits(app: TableApp, rows: list[str], where: str) -> None:
    """The result panel: its key line on the screen with the frame's bottom below it, and
    no line of it wider than the frame."""
    lang = app.look.lang
    keys = shown_as(tr(lang, "end.continue"))
    at = [i for i, row in enumerate(rows) if keys in row]
    assert at, f"{where}: no key line on the screen:\n" + "\n".join(rows)
    assert any("└" in row for row in rows[at[0] + 1 :]), f"{where}: frame cut:\n" + "\n".join(rows)
    size = app.app.output.get_size()
    for line in _text(app._summary_text()):
        assert len(line) <= size.columns - 4, f"{where}: too wide: {line!r}"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", game_names())
def test_every_result_panel_fits_80x24_with_its_keys(game: str, lang: str) -> None:
    session = _played(game)
    snap = session.snapshot()
    fake = FakeSession(snap)
    app = sized_app(fake, 80, 24, lang, data_dir=DATA_DIR, rematch=True)
    app.ui.results_seen = 0  # every hand's result panel, one after the other
    for result in snap.results:
        rows = draw(app)
        assert app.ui.summary == result
        _assert_panel_fits(app, rows, f"{game} hand {result.hand_number}")
        app.ui.message = tr(lang, "saved", path=DATA_DIR / "x.dlt")  # after s: one line more
        _assert_panel_fits(app, draw(app), f"{game} hand {result.hand_number}, saved")
        app.close_summary()
    if not snap.over:  # a game that goes on: its end made up
        outcome = Outcome(winners=(1,), standings=snap.scores, reason="x", code=GameEnd.ONE_LEFT)
        fake.snap = replace(snap, over=True, outcome=outcome, legal=())
    rows = draw(app)
    assert app.ui.summary_game
    _assert_panel_fits(app, rows, f"{game} game over")
    # the scoreboard: every seat on the screen
    assert all(any(f"{n}. " in row for row in rows) for n in range(1, _seats(game) + 1)), rows
    for how in ("stand", "sit-out", "silent"):  # the panel of a player who left
        ledger = (("stack", 7),)
        fake.snap = replace(snap, left=how, left_hand=2, left_ledger=ledger, over=True)
        _assert_panel_fits(app, draw(app), f"{game} left {how}")


def test_a_panel_taller_than_the_screen_scrolls_under_its_keys() -> None:
    body = [f"line {i}" for i in range(30)]
    more = "more: {above} above, {below} below"
    lines, top = fit_panel(body, ["keys"], 10, 0, more)
    assert lines == [*body[:8], "more: 0 above, 22 below", "keys"] and top == 0
    lines, top = fit_panel(body, ["keys"], 10, 99, more)  # scrolled past the end: the end
    assert lines == [*body[22:], "more: 22 above, 0 below", "keys"] and top == 22
    assert fit_panel(body[:3], ["keys"], 10, 5, more) == ([*body[:3], "", "keys"], 0)


def test_the_result_panel_scrolls_with_the_arrow_keys() -> None:
    session = _played("limit-tuppen")
    app = sized_app(FakeSession(session.snapshot()), 80, 12, rematch=True)  # a short screen
    app.ui.results_seen = 0
    first = draw(app)
    app.scroll_summary(3)
    later = draw(app)
    assert first != later and "Space: continue" in "\n".join(later)
    assert app.ui.summary_top == 3 and "3 lines above" in "\n".join(later)


def test_the_arrow_keys_reach_the_result_panel() -> None:
    """Down, Down, PgDn, Up pressed on a running screen: the panel is 10 lines further on."""
    fake = FakeSession(_played("limit-tuppen").snapshot())
    size = Size(rows=12, columns=80)
    with create_pipe_input() as inp:
        output = Vt100_Output(io.StringIO(), lambda: size, term="xterm")
        app = TableApp(fake, input=inp, output=output, clock=lambda: 0.0)
        app.ui.results_seen = 0
        inp.send_text("\x1b[B\x1b[B\x1b[6~\x1b[A")

        async def stop() -> None:  # once the keys are read (at most 10 s)
            for _ in range(1000):
                if getattr(app.ui, "summary_top", None) == 11:
                    break
                await asyncio.sleep(0.01)
            app.app.exit()

        app.app.pre_run_callables.append(lambda: app.app.create_background_task(stop()))
        app.run()
    assert app.ui.summary is not None and app.ui.summary_top == 11


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", game_names())
def test_help_history_questions_and_sitting_out_fit_80x24(game: str, lang: str) -> None:
    # in the middle of the game (the game-over panel would cover the others)
    snap = replace(_played(game).snapshot(), seat_changes=True, over=False, outcome=None)
    fake = FakeSession(snap)
    app = sized_app(fake, 80, 24, lang)
    app.ui.results_seen = len(snap.results)
    app.ui.help = True
    rows = draw(app)
    last = tr(lang, "help.text").splitlines()[-1]
    assert any(shown_as(last) in row for row in rows), "\n".join(rows)
    app.ui.help = False
    app.ui.history = True
    app.ui.history_top = 10_000  # the newest lines, as h opens it
    rows = draw(app)
    history = _text(app._history_text())
    assert history[0] == tr(lang, "history.keys")
    assert all(len(line) <= 76 for line in history), history
    assert len(history) <= 22 and any(shown_as(history[0]) in row for row in rows)
    newest = [line for line in P.hand_history(snap, app.look) if line.strip()][-1]
    assert newest.split()[-1] in words(rows)  # the end of the newest line is shown
    app.ui.history = False
    questions = [("quit", tr(lang, "quit.confirm"))]
    questions += [(c, tr(lang, f"seatchange.confirm.{c}")) for c in ("stand", "sit-out", "back")]
    for change, question in questions:
        app.ui.confirm_quit = change == "quit"
        app.ui.confirm_change = None if change == "quit" else change
        shown = words(draw(app))
        assert set(question.split()) <= shown, (change, question, shown)
    app.ui.confirm_quit, app.ui.confirm_change = False, None
    fake.snap = replace(snap, sitting_out=True, away_ledger=(("stack", 7),), legal=())
    shown = words(draw(app))
    assert set(tr(lang, "away.key").split()) <= shown and "o" in shown


# ------------------------------------------------------------------ 100 columns

NAMES = ("annabelle", "bartholomew", "cyrille", "dominique")


def _belote(**changes: object) -> FakeSession:
    snap = snapshot(game="belote", names=NAMES, teams=(0, 1, 0, 1), **changes)
    return FakeSession(snap)


@pytest.mark.parametrize("columns", [80, 100, 120])
def test_the_last_trick_shows_all_its_cards(columns: int) -> None:
    cards = [Card.from_index(i) for i in (0, 9, 18, 27)]
    plays = tuple(zip((1, 2, 3, 0), cards, strict=True))
    app = sized_app(_belote(trick=(), last_trick=(plays, 2)), columns, 30)
    rows = draw(app)
    shown = " ".join(rows)  # a play wrapped at the end of a row goes on on the next
    for seat, card in plays:
        assert f"{NAMES[seat]} {P.card_text(card, app.look)}" in shown, rows


def test_the_status_line_and_a_saved_path_are_whole_at_100_columns(tmp_path: Path) -> None:
    fake = _belote(deadline=30.0, arbiter=1)
    notice = "Nostr: no answer yet; trying wss://relay.example.org and wss://nos.lol again"
    fake.notice = lambda lang: notice  # type: ignore[attr-defined]
    app = sized_app(fake, 100, 30, save_dir=tmp_path / "a-folder-with-a-long-name" / "saves")
    rows = draw(app)
    assert set(notice.split()) | set(tr("en", "keys.hint").split()) <= words(rows), rows
    saved = app.save()
    assert saved is not None
    rows = draw(app)
    assert str(saved) in "".join(row.strip() for row in rows), rows


def test_paths_are_written_from_the_home_folder() -> None:
    home = Path("/home/ann")
    assert short_path(home / ".local/share/x.dlt", home) == "~/.local/share/x.dlt"
    assert short_path("/tmp/x.dlt", home) == "/tmp/x.dlt"
    assert short_path("/home/anna/x", home) == "/home/anna/x"  # not ann's folder


# ------------------------------------------------------------------ words stay whole

# long words, each narrower than the chat column (26): none may be cut
CHAT = "extraordinary incomprehensible characteristically responsibilities unquestionably"


def test_chat_and_log_lines_wrap_between_words() -> None:
    error = "refusal " + " ".join(f"word{i:02d}xyz" for i in range(20))
    session = FakeSession(snapshot(chat=((1, CHAT), (2, "a b c " + CHAT)), errors=(error,)))
    rows = draw(sized_app(session, 80, 24))
    shown = words(rows)
    assert set(CHAT.split()) <= shown, rows  # chat: each of these long words whole
    assert {f"word{i:02d}xyz" for i in range(20)} <= shown, rows  # the log: every word whole


def test_a_word_wider_than_the_line_is_cut_and_nothing_else() -> None:
    assert wrap_lines(["ab " + "x" * 12 + " cd"], 5) == ["ab", "xxxxx", "xxxxx", "xx cd"]
    assert wrap_lines(["  trick 1: ann Q♠  bob K♠ -> bob"], 16) == [
        "  trick 1: ann",
        "  Q♠  bob K♠ ->",
        "  bob",
    ]
    assert wrap_lines(["", "short"], 10) == ["", "short"]


# ------------------------------------------------------------------ a wide screen


def test_a_wide_screen_gives_the_chat_room_and_the_tricks_a_column() -> None:
    session = _played("tuppen")
    app = sized_app(FakeSession(session.snapshot()), 200, 50)
    app.ui.results_seen = len(session.snapshot().results)
    rows = draw(app)
    bars = [i for i, char in enumerate(rows[-1]) if char == "|"]
    assert len(bars) == 2, rows[-1]  # the log | the tricks | the chat
    assert 200 - bars[-1] - 1 >= 50  # the chat: a third of the width, not 30 columns
    assert any("trick 1:" in row[bars[0] :] for row in rows)  # the tricks beside the log
