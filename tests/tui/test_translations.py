"""Every text the client shows exists in English, German and Dutch: the tables have the same
keys and placeholders, every key the code names is in them, and drawing every screen of every
game in every language never falls back to another language (i18n.MISSING stays empty)."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from tui_helpers import FakeSession, play_by_bot, screen_output

from dealerless.client.tui import i18n
from dealerless.client.tui import presenter as P
from dealerless.client.tui.app import TableApp
from dealerless.client.tui.lobby import lobby_text
from dealerless.client.tui.model import STATUS_KEYS
from dealerless.client.tui.node_session import LobbyState
from dealerless.client.tui.rules_book import rules_lines
from dealerless.client.tui.session import LocalSession
from dealerless.client.tui.settings import Settings
from dealerless.client.tui.start import MENU, StartScreen
from dealerless.protocol.rules.base import ActionKind
from dealerless.protocol.rules.pottuppen_money import Mode
from dealerless.protocol.rules.reasons import GameEnd, HandEnd
from dealerless.protocol.rules.registry import game_names, game_spec, make_config

CLIENT = Path(__file__).resolve().parents[2] / "client"
LANGS = ("en", "de", "nl")


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_language_has_every_key_with_the_same_placeholders() -> None:
    english = i18n.CATALOGS["en"]
    for lang in LANGS:
        table = i18n.CATALOGS[lang]
        assert set(table) == set(english), (lang, set(english) ^ set(table))
        for key, text in table.items():
            assert fields(text) == fields(english[key]), (lang, key)


def expected_keys() -> set[str]:
    """The keys the code builds from names (moves, statuses, reasons, options)."""
    keys = {f"act.{k.value}" for k in ActionKind}
    keys |= {f"status.{s}" for s in STATUS_KEYS}
    keys |= {f"reason.{c.value}" for c in HandEnd} | {f"reason.{c.value}" for c in GameEnd}
    keys |= {f"mode.{m.value}" for m in Mode}
    keys |= {f"start.{item}" for item in MENU}
    keys |= {"node.way_direct", "node.way_relay", "node.resuming_host", "node.resuming_join"}
    for game in game_names():
        spec = game_spec(game)
        keys.add(f"score.{spec.score_kind}")
        for option in spec.options:
            keys.add(f"rule.{option.name}")
            keys |= {f"value.{choice}" for choice in option.choices}
    return keys


def test_every_key_the_code_names_is_in_the_tables() -> None:
    english = i18n.CATALOGS["en"]
    literal = re.compile(r"""\btr\(\s*[\w.]+,\s*["']([a-z_]+\.[a-z_.]+)["']""")
    fixed = re.compile(r"""\b_say\(\s*["']([a-z_]+\.[a-z_.]+)["']""")  # node_text's rules
    named: set[str] = set()
    for path in CLIENT.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        named |= set(literal.findall(source)) | set(fixed.findall(source))
    assert named, "the pattern found no tr() call"
    missing = sorted((named | expected_keys()) - set(english))
    assert not missing, missing


def _draw_table(session: object, lang: str) -> None:
    with create_pipe_input() as inp:
        app = TableApp(session, lang=lang, input=inp, output=screen_output()[0], clock=lambda: 0)  # type: ignore[arg-type]
        for _ in range(3):
            app._before_render()
            snap = app.snap
            look = app.look
            P.header(snap, look)
            P.seats(snap, look, 0.0)
            P.trick(snap, look)
            P.hand(snap, look, None)
            P.actions(snap, look)
            app._status_text()
            app._help_text()
            app._history_text()
            app._log_text()
            app._summary_text()
            for result in snap.results:
                P.summary(snap, look, result)
            app.close_summary()


@pytest.mark.parametrize("game", game_names())
def test_every_screen_of_every_game_is_in_every_language(game: str) -> None:
    players = 4 if game == "belote" else 3
    session = LocalSession(make_config(game, players), seed=11, human_name="ann")
    snaps = []
    play_by_bot(session, until_hands=2, on_decision=snaps.append)
    i18n.MISSING.clear()
    for lang in LANGS:
        _draw_table(session, lang)
        for snap in snaps[:: max(1, len(snaps) // 12)]:
            _draw_table(FakeSession(snap), lang)
        rules_lines(game, lang, 78)
    assert not i18n.MISSING, sorted(i18n.MISSING)


def test_the_start_screen_and_the_lobby_are_in_every_language() -> None:
    i18n.MISSING.clear()
    for lang in LANGS:
        settings = Settings(lang=lang)
        with create_pipe_input() as inp:
            screen = StartScreen(settings, input=inp, output=screen_output()[0])
            for mode in ("menu", "play", "rules", "settings", "join"):
                screen.mode = mode
                screen._body()
                screen._hint()
            for game in game_names():
                settings.game = game
                screen.setting_rows()
        lobby = LobbyState(role="host", name="ann", game="tuppen", seats=3, invite="dl1:x")
        lobby_text(lobby, lang)
        lobby.messages = ["the host refused us: the table is full"]
        lobby_text(lobby, lang)
    assert not i18n.MISSING, sorted(i18n.MISSING)
