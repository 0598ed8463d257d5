"""Every text the client draws, screen by screen, as plain strings (for the language tests).

:func:`screen_texts` walks the start screen (every mode, every game, every bot level), the host
form, the lobby (and the node's messages in it), the rules viewer, and the table screen of
every game: the table parts, the help, the hand history, the move log, the result panels, the
questions, the seat-change states and a replay's status line. Each text comes with where it
was drawn, so a failing test can say which screen it is on.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from node_message_samples import SAMPLES
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import create_pipe_input
from tui_helpers import FakeSession, play_by_bot, screen_output

from dealerless.client.bots import LEVELS
from dealerless.client.tui import presenter as P
from dealerless.client.tui.app import TableApp, UiState
from dealerless.client.tui.i18n import tr
from dealerless.client.tui.lobby import lobby_text
from dealerless.client.tui.model import TableSnapshot
from dealerless.client.tui.node_session import LobbyState
from dealerless.client.tui.node_text import node_notice
from dealerless.client.tui.replay import Replay, ReplaySession, load_replay
from dealerless.client.tui.rules_book import rules_lines
from dealerless.client.tui.session import LocalSession
from dealerless.client.tui.settings import Settings
from dealerless.client.tui.start import MENU, StartScreen
from dealerless.node.notices import Notice, english, notice
from dealerless.protocol.rules.base import OptionValue, Outcome
from dealerless.protocol.rules.reasons import GameEnd
from dealerless.protocol.rules.registry import game_names, game_spec, make_config

Drawn = tuple[str, str]  # (where, text)

# Invite codes the join line refuses, one of each kind (node/invite.py InviteError): old and
# newer formats, no prefix, cut short, bad characters, too long.
BAD_CODES = ("dl1:abc", "dl2:abc", "dl9:abc", "hello", "dl3:AAAAA", "dl3:!!!!", "dl3:" + "A" * 3000)

# The names the tests give the players: they are nobody's English.
PLAYER = "ann"
# Why a replay does not verify is the table machine's own text (English, as the log file has
# it): the test puts a word of no language there.
PROBLEM = "xyzzy"


def plain(fragments: StyleAndTextTuples) -> str:
    return "".join(fragment[1] for fragment in fragments)


def _table_app(session: object, lang: str, **kw: Any) -> TableApp:
    with create_pipe_input() as inp:
        return TableApp(
            session,  # type: ignore[arg-type]
            lang=lang,
            input=inp,
            output=screen_output()[0],
            clock=lambda: 0,
            **kw,
        )


def _show(app: TableApp, fake: FakeSession, snap: TableSnapshot) -> TableApp:
    """``app`` as if made anew on ``snap`` (making one per snapshot is slow)."""
    fake.snap = snap
    app.ui = UiState(results_seen=len(snap.results))
    app._segment = snap.segment
    return app


def _frame(app: TableApp, where: str) -> Iterator[Drawn]:
    """One frame of the table screen with everything that can be open over it."""
    app._before_render()
    snap, look = app.snap, app.look
    yield f"{where} header", plain(P.header(snap, look))
    yield f"{where} seats", plain(P.seats(snap, look, 0.0))
    yield f"{where} trick", plain(P.trick(snap, look))
    yield f"{where} hand", plain(P.hand(snap, look, 0))
    yield f"{where} actions", plain(P.actions(snap, look))
    for kind, group in P.grouped_actions(snap):
        if len(group) > 1:
            yield f"{where} chooser {kind.value}", plain(P.actions(snap, look, group, 0))
    yield f"{where} status", plain(app._status_text())
    yield f"{where} help", plain(app._help_text())
    yield f"{where} history", plain(app._history_text())
    yield f"{where} log", plain(app._log_text())
    yield f"{where} chat", "\n".join(P.chat_lines(snap, look))
    yield f"{where} summary title", tr(look.lang, app._summary_title())
    yield f"{where} summary", plain(app._summary_text())
    for change in P.CHANGE_KEYS.values():
        asked, why = P.seat_key(snap, look, change)
        yield f"{where} key {change}", why or ""
        if asked is not None:
            app.ui.confirm_change = asked
            yield f"{where} question {asked}", plain(app._change_question())
            app.ui.confirm_change = None
    for result in snap.results:
        yield f"{where} result {result.hand_number}", "\n".join(P.summary(snap, look, result))


def _overlays(app: TableApp) -> Iterator[Drawn]:
    """The frame titles and the questions (built once, when the screen is made)."""
    lang = app.look.lang
    for key in ("help.title", "history.title", "end.title", "end.game", "end.left"):
        yield "overlay title", tr(lang, key)
    yield "quit question", tr(lang, "quit.confirm")
    for change in ("stand", "sit-out", "back"):
        app.ui.confirm_change = change
        yield f"question {change}", plain(app._change_question())
    app.ui.confirm_change = None


def _states(snap: TableSnapshot) -> Iterator[tuple[str, TableSnapshot]]:
    """The snapshot as it is, and in the states a seat change or a clock brings."""
    yield "", snap
    yield "clock", replace(snap, deadline=30.0, arbiter=snap.arbiter or 0)
    yield "asked stand", replace(snap, change_wanted="stand", seat_changes=True)
    yield "asked sit-out", replace(snap, change_wanted="sit-out", seat_changes=True)
    yield "changing", replace(snap, changing=True, legal=())
    yield "fixed seats", replace(snap, seat_changes=False)
    ledger = (("stack", 7),)
    yield "away", replace(snap, sitting_out=True, away_ledger=ledger, away_score=2, legal=())
    yield "coming back", replace(snap, sitting_out=True, coming_back=True, legal=())
    for how in ("stand", "sit-out", "silent"):
        left = replace(snap, left=how, left_hand=2, left_ledger=ledger, left_score=-3, over=True)
        yield f"left {how}", left


@dataclass(frozen=True)
class Played:
    session: LocalSession
    decisions: tuple[TableSnapshot, ...]  # where the local seat had moves
    replay: Replay


# House rules that end a game after about two hands, so its game-over panel is drawn too.
SHORT_GAME: dict[str, dict[str, OptionValue]] = {
    "limit-tuppen": {"hands": 2},
    "no-limit-tuppen": {"hands": 2},
    "pot-limit-tuppen": {"hands": 2},
    "pottuppen": {"hands": 2},
    "belote": {"target": 300},
}


@cache
def played(game: str) -> Played:
    """``game`` played by bots for two hands (once for every language), and its replay."""
    players = 4 if game == "belote" else 3
    config = make_config(game, players, SHORT_GAME.get(game))
    # the name the client gives a player who chose none (it must not stay English)
    session = LocalSession(config, seed=11)
    snaps: list[TableSnapshot] = []
    play_by_bot(session, until_hands=2, on_decision=snaps.append)
    session.send_chat("hallo")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.dlt"
        session.save_transcript(path)
        replay = load_replay(path)
    return Played(session, tuple(snaps[:: max(1, len(snaps) // 12)]), replay)


def table_texts(game: str, lang: str) -> Iterator[Drawn]:
    """The table screen of ``game``: drawn live, at a dozen of its decisions, in the states
    above, at its end, and replayed from its transcript."""
    game_played = played(game)
    live = _table_app(game_played.session, lang)
    yield from _overlays(live)
    for _ in range(3):  # the result panels, one after the other
        yield from _frame(live, f"{game} live")
        live.close_summary()
    fake = FakeSession(game_played.decisions[0])
    app = _table_app(fake, lang)
    for snap in game_played.decisions:
        for state, changed in _states(snap):
            yield from _frame(_show(app, fake, changed), f"{game} {state}")
    over = game_played.session.snapshot()
    for code in GameEnd if not over.over else ():  # a game that goes on longer: its end made up
        outcome = Outcome(winners=(1,), standings=over.scores, reason=PROBLEM, code=code)
        ended = replace(over, over=True, outcome=outcome, legal=())
        yield from _frame(_show(app, fake, ended), f"{game} game over {code}")
    yield from _frame(_show(app, fake, over), f"{game} last")
    replay = ReplaySession(game_played.replay)
    viewer = _table_app(replay, lang, replay=replay)
    last = len(replay.replay.snapshots) - 1
    for index in (0, last // 2, last):
        replay.go(index)
        yield from _frame(viewer, f"{game} replay {index}")
    bad = ReplaySession(replace(game_played.replay, verified=False, problem=PROBLEM))
    yield f"{game} replay bad", plain(bad.status(lang))


def start_texts(lang: str) -> Iterator[Drawn]:
    """The start screen in every mode, with every game and every bot level; the host form."""
    settings = Settings(lang=lang)  # with the default name
    with create_pipe_input() as inp:
        screen = StartScreen(settings, can_host=True, input=inp, output=screen_output()[0])
        yield "start title", plain(screen._title())
        for game in game_names():
            settings.game = settings.host_game = game
            for level in LEVELS:
                settings.level = level
                screen.mode = "settings"
                for index, (key, text) in enumerate(screen.setting_rows()):
                    screen.index = index
                    yield f"settings {game} {key}", text
                    yield f"settings hint {key}", plain(screen._hint())
            for mode in ("menu", "play", "rules", "join"):
                screen.mode, screen.index = mode, 0
                yield f"start {mode} {game}", plain(screen._body())
                yield f"start {mode} hint", plain(screen._hint())
            for item in ("host", "host-lan"):
                screen.mode = "menu"
                screen.choose(item)
                yield f"host form {game} {item}", plain(screen._body())
                yield f"host form hint {item}", plain(screen._hint())
                assert screen.host_form is not None
                for bots in range(game_spec(game).max_players):
                    settings.host_bots = bots
                    yield f"host summary {game}", screen.host_form.summary(lang)
        for what in ("name", "code"):
            screen.editing = what
            yield f"edit {what}", plain(screen._edit_label())
        for code in BAD_CODES:  # typed on the join line: the screen says why it is refused
            screen.mode, screen.editing, screen.edit.text = "join", "code", code
            screen._accepted(screen.edit)
            yield f"join {code[:12]!r}", screen.message
        screen.editing = screen.message = ""
        screen.mode = "menu"
        screen.can_host = screen.can_join = False
        for item in MENU:
            if item != "quit":  # quitting exits the application
                screen.choose(item)
                yield f"menu {item} message", screen.message
                screen.mode = "menu"


def rules_texts(lang: str) -> Iterator[Drawn]:
    for game in game_names():
        yield f"rules {game}", "\n".join(rules_lines(game, lang, 78))


def _messages() -> Iterable[Notice]:
    for samples in SAMPLES.values():
        yield from samples


def lobby_texts(lang: str) -> Iterator[Drawn]:
    """The lobby of a host and of a joiner, waiting, full, ended; and every node message."""
    for game in game_names():
        host = LobbyState(role="host", name=PLAYER, game=game, seats=3, invite="dl1:x")
        yield f"lobby {game} opening", plain(lobby_text(host, lang))
        host.names, host.need = [PLAYER, "player"], 1  # a peer with the default name
        yield f"lobby {game} waiting", plain(lobby_text(host, lang))
        host.names, host.need = [PLAYER, "bob", "cy"], 0
        yield f"lobby {game} starting", plain(lobby_text(host, lang))
    join = LobbyState(role="join", name=PLAYER, game="tuppen", seats=3)
    yield "lobby connecting", plain(lobby_text(join, lang))
    for role in ("host", "join"):
        again = LobbyState(role=role, name=PLAYER, game="belote", seats=4, rematch=True)
        yield f"lobby rematch {role}", plain(lobby_text(again, lang))
    join.messages = [notice("host_refused", reason="the table is full")]
    yield "lobby refused", plain(lobby_text(join, lang))
    join.messages, join.ended = [notice("no_resume", table="")], True
    yield "lobby ended", plain(lobby_text(join, lang))
    for message in _messages():
        yield f"node message {english(message)[:40]!r}", node_notice(message, lang)


def screen_texts(lang: str) -> Iterator[Drawn]:
    """Everything above, in ``lang``."""
    yield from start_texts(lang)
    yield from rules_texts(lang)
    yield from lobby_texts(lang)
    for game in game_names():
        yield from table_texts(game, lang)
