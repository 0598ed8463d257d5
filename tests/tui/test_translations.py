"""Every text the client shows exists in English, German, Dutch and French: the tables have the
same keys and placeholders, every key the code names is in them, drawing every screen of every
game in every language never falls back to another language (i18n.MISSING stays empty), and a
French text left in English is caught."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from tui_helpers import FakeSession, play_by_bot, screen_output

from dealerless.client import config
from dealerless.client.bots import LEVELS
from dealerless.client.tui import i18n
from dealerless.client.tui import presenter as P
from dealerless.client.tui.app import TableApp
from dealerless.client.tui.lobby import lobby_text
from dealerless.client.tui.model import STATUS_KEYS
from dealerless.client.tui.node_session import LobbyState
from dealerless.client.tui.rules_book import rules_lines
from dealerless.client.tui.session import LocalSession
from dealerless.client.tui.settings import Settings
from dealerless.client.tui.start import LANGUAGE_NAMES, MENU, StartScreen
from dealerless.client.tui.wording import DEFAULT_NAMES
from dealerless.node.notices import notice
from dealerless.protocol.rules.base import ActionKind
from dealerless.protocol.rules.pottuppen_money import Mode
from dealerless.protocol.rules.reasons import GameEnd, HandEnd
from dealerless.protocol.rules.registry import game_names, game_spec, make_config

CLIENT = Path(__file__).resolve().parents[2] / "client"
LANGS = ("en", "de", "nl", "fr")


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_the_tests_cover_every_language() -> None:
    assert set(LANGS) == set(i18n.LANGUAGES) == set(i18n.CATALOGS) == set(i18n.YES_KEYS)
    assert set(LANGUAGE_NAMES) == set(i18n.LANGUAGES) == set(config.LANGUAGES)


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
    keys |= {f"level.{level}" for level in LEVELS}
    keys |= set(DEFAULT_NAMES.values())
    for game in game_names():
        spec = game_spec(game)
        keys.add(f"game.{game}")
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
        lobby.messages = [notice("host_refused", reason="the table is full")]
        lobby_text(lobby, lang)
    assert not i18n.MISSING, sorted(i18n.MISSING)


# French texts that are rightly the same words as the English ones (the key, and why).
SAME_IN_FRENCH = {
    "app.title": "the program's name",
    "act.tupp": "the game's own word",
    "reason.tupp": "the game's own word",
    "panel.table": "la table",
    "info.pot": "le pot",
    "info.ante": "l'ante, as in poker",
    "rule.ante": "l'ante, as in poker",
    "info.mode": "le mode",
    "rule.mode": "le mode",
    "info.phase": "la phase",
    "rule.capot": "Belote's own word",
    "game.pottuppen": "the game's own name",
    "game.belote": "the game's own name",
}

# English words that have no business in a French text (a sentence left untranslated, or half).
ENGLISH_WORDS = re.compile(
    r"\b(the|you|your|and|with|is|are|not|of|to|from|for|this|that|has|was|left|wait|"
    r"waiting|trick|hand|seat|knock|fold|call|raise|bet|press|cards?)\b"
)


def _words(text: str) -> str:
    """The text without its placeholders, command lines (`...`) and command-line options, which
    stay the same in every language."""
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"dealerless \w+|--[\w-]+", " ", text)
    return text


def test_no_french_text_is_left_in_english() -> None:
    english, french = i18n.CATALOGS["en"], i18n.CATALOGS["fr"]
    same = {
        key
        for key, text in french.items()
        if text == english[key] and re.search(r"[A-Za-z]", _words(text))
    }
    assert same == set(SAME_IN_FRENCH), sorted(same ^ set(SAME_IN_FRENCH))
    leaked = {
        key: match.group(0)
        for key, text in french.items()
        if (match := ENGLISH_WORDS.search(_words(text).lower())) is not None
    }
    assert not leaked, leaked


def test_french_questions_answer_with_o_and_name_o() -> None:
    assert i18n.YES_KEYS["fr"] == "o"
    for key in ("quit.confirm", *(k for k in i18n.CATALOGS["fr"] if ".confirm." in k)):
        assert i18n.CATALOGS["fr"][key].endswith("(o/n)"), key


@pytest.mark.parametrize("game", game_names())
def test_the_french_rules_never_wrap_a_line_before_a_sign(game: str) -> None:
    """French puts a (no-break) space before : ; ? !, and inside « »: no width of the viewer
    may start a line with the sign."""
    for width in range(20, 79):
        for line in rules_lines(game, "fr", width):
            assert not re.match(r"\s*[:;?!»]", line), (width, line)
