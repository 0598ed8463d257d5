"""The start screen: play against bots, host, join, read the rules, settings.

:func:`run_start_screen` shows it and returns the player's :class:`StartChoice`;
:func:`run_client` loops start screen -> table -> start screen. ``dealerless`` alone (on a
terminal) runs it with launchers that run the real ``play``/``host``/``join`` commands
(:mod:`dealerless.client.start_launch`); without launchers for host/join the screen says so.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.output import Output

from dealerless.client.bots import LEVELS
from dealerless.client.tui.host_form import HostForm, rule_rows, step_rule
from dealerless.client.tui.i18n import LANGUAGES, tr
from dealerless.client.tui.invite_text import invite_text
from dealerless.client.tui.rules_book import rules_lines, value_text
from dealerless.client.tui.session import TableSession
from dealerless.client.tui.settings import Settings
from dealerless.client.tui.views import STYLE, text_window
from dealerless.client.tui.wording import game_title, person_name
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import game_names, game_spec, make_config

MENU = ("play", "host", "host-lan", "join", "rules", "settings", "quit")


@dataclass
class StartChoice:
    kind: str  # "play", "host", "join" or "quit"
    game: str = "tuppen"
    bots: int = 3  # play: the bots at the table; host: the seats bots fill
    code: str = ""
    lan_only: bool = False  # host: players on this network only (no internet relays)
    seats: int = 0  # host: the table's seats (ours, the bots', the people's)


def rules_text(game: str, lang: str = "en", width: int = 78) -> str:
    """The rules viewer's text (kept for callers that want it as one string)."""
    return "\n".join(rules_lines(game, lang, width))


LANGUAGE_NAMES = {  # each in itself
    "en": "English",
    "de": "Deutsch",
    "nl": "Nederlands",
    "fr": "Français",
}
RESULT_PAUSES = (0, 3, 5, 10, 20)  # seconds; 0: the result panel stays until closed


class StartScreen:
    def __init__(
        self,
        settings: Settings,
        *,
        can_host: bool = False,
        can_join: bool = False,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.settings = settings
        self.can_host = can_host
        self.can_join = can_join
        self.mode = "menu"  # menu, play, host, rules, settings, join, message
        self.host_form: HostForm | None = None  # the host form while it is open
        self.index = 0
        self.message = ""
        self.edit = Buffer(multiline=False, accept_handler=self._accepted)
        self.editing = ""  # "name" or "code" while the edit line is open
        self.rules_top = 0  # first line of the rules shown
        body = HSplit(
            [
                text_window(self._title, height=2, wrap=False),
                text_window(self._body, wrap=False),
                ConditionalContainer(
                    HSplit(
                        [
                            text_window(self._edit_label, height=1, wrap=False),
                            Window(BufferControl(self.edit), height=1, style="class:edit"),
                        ]
                    ),
                    filter=Condition(lambda: bool(self.editing)),
                ),
                text_window(self._hint, height=1, wrap=False),
            ]
        )
        self.app: Application[StartChoice] = Application(
            layout=Layout(body),
            key_bindings=self._bindings(),
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )

    @property
    def lang(self) -> str:
        return self.settings.lang

    # -------------------------------------------------------------- drawing
    def _title(self) -> StyleAndTextTuples:
        return [("class:title", " " + tr(self.lang, "start.title") + " "), ("", "\n")]

    def _edit_label(self) -> StyleAndTextTuples:
        key = "settings.edit_name" if self.editing == "name" else "settings.edit_code"
        return [("class:label", tr(self.lang, key))]

    def _hint(self) -> StyleAndTextTuples:
        if self.editing:
            return [("class:dim", "")]
        key = {
            "menu": "start.hint",
            "play": "start.go",
            "rules": "rules.hint",
            "settings": "settings.hint",
            "host": "host.hint",
        }.get(self.mode, "start.go")
        if self.mode == "settings" and self.setting_rows()[self.index][0] == "name":
            key = "settings.hint_name"
        return [("class:dim", tr(self.lang, key))]

    def setting_rows(self) -> list[tuple[str, str]]:
        """(key, text) of each settings line; a new setting adds a row here and a step in
        :meth:`change` (the start screen has no other list of them)."""
        s, lang = self.settings, self.lang
        pause = (
            tr(lang, "settings.after", n=s.result_pause_s)
            if s.result_pause_s
            else tr(lang, "settings.until_closed")
        )
        rows = [
            ("name", tr(lang, "settings.name", value=person_name(lang, s.name))),
            ("lang", tr(lang, "settings.lang", value=LANGUAGE_NAMES.get(s.lang, s.lang))),
            ("timeout", tr(lang, "settings.timeout", value=s.timeout_s)),
            ("level", tr(lang, "settings.level", value=tr(lang, f"level.{s.level}"))),
            ("ascii", tr(lang, "settings.ascii", value=value_text(lang, s.ascii))),
            ("result_pause", tr(lang, "settings.result_pause", value=pause)),
            ("game", tr(lang, "start.game", game=game_title(lang, s.game))),
        ]
        return rows + rule_rows(lang, s.game, s.rules)

    def _body(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        if self.mode == "menu":
            for i, item in enumerate(MENU):
                style = "class:menu.selected" if i == self.index else ""
                out.append((style, f" {i + 1}. {tr(self.lang, 'start.' + item)} "))
                out.append(("", "\n"))
        elif self.mode == "play":
            title = game_title(self.lang, self.settings.game)
            out.append(("", tr(self.lang, "start.game", game=title) + "\n"))
            out.append(("", tr(self.lang, "start.bots", n=self.settings.bots) + "\n\n"))
            lines = rules_lines(self.settings.game, self.lang, self._width())
            out.append(("class:dim", "\n".join(lines[:12])))
        elif self.mode == "rules":
            title = game_title(self.lang, self.settings.game)
            out.append(("class:label", tr(self.lang, "start.game", game=title) + "\n\n"))
            lines = rules_lines(self.settings.game, self.lang, self._width())
            out.append(("", "\n".join(lines[self.rules_top :])))
        elif self.mode == "host" and self.host_form is not None:
            out.append(("class:label", tr(self.lang, "host.title") + "\n\n"))
            for i, (_, text) in enumerate(self.host_form.rows(self.lang)):
                style = "class:menu.selected" if i == self.index else ""
                out.append((style, f" {text} "))
                out.append(("", "\n"))
            out.append(("class:dim", "\n" + self.host_form.summary(self.lang)))
        elif self.mode == "settings":
            for i, (_, text) in enumerate(self.setting_rows()):
                style = "class:menu.selected" if i == self.index else ""
                out.append((style, f" {text} "))
                out.append(("", "\n"))
        elif self.mode == "join":
            prompt = tr(self.lang, "label.colon", label=tr(self.lang, "start.join"))
            out.append(("", prompt + "\n"))
        if self.message:
            out.append(("class:error", "\n" + self.message))
        return out

    def _width(self) -> int:
        return max(40, self.app.output.get_size().columns - 2)

    def scroll_rules(self, step: int) -> None:
        last = len(rules_lines(self.settings.game, self.lang, self._width())) - 1
        self.rules_top = max(0, min(last, self.rules_top + step))

    # -------------------------------------------------------------- actions
    def choose(self, item: str) -> None:
        self.message = ""
        if item == "quit":
            self.app.exit(result=StartChoice("quit"))
        elif item in ("host", "host-lan") and not self.can_host:
            self.message = tr(self.lang, "start.unavailable")
        elif item in ("host", "host-lan"):
            self.host_form = HostForm(self.settings, lan_only=item == "host-lan")
            self.mode = "host"
            self.index = 0
        elif item == "join" and not self.can_join:
            self.message = tr(self.lang, "start.unavailable")
        elif item == "join":
            self.mode = "join"
            self._open_edit("code", "")
        else:
            self.mode = item
            self.index = 0

    def _open_edit(self, what: str, text: str) -> None:
        self.editing = what
        self.edit.text = text
        self.app.layout.focus(self.edit)

    def _accepted(self, buffer: Buffer) -> bool:
        what, self.editing = self.editing, ""
        if what == "name" and buffer.text.strip():
            self.settings.name = buffer.text.strip()[:24]
        elif what == "code" and buffer.text.strip():
            code = "".join(buffer.text.split())  # a code pasted over two lines
            problem = invite_problem(code)
            if problem is None:
                self.app.exit(result=StartChoice("join", self.settings.game, code=code))
            else:  # said here, on the screen, and the line stays open for another try
                reason = invite_text(problem, self.lang)
                self.message = tr(self.lang, "start.bad_code", reason=reason)
                self.editing = what
                return True
        elif what == "code":
            self.mode = "menu"
        self.app.layout.focus_last()
        return False

    def rows(self) -> list[tuple[str, str]]:
        """The lines Up/Down moves through in the open form (host) or the settings."""
        if self.mode == "host" and self.host_form is not None:
            return self.host_form.rows(self.lang)
        return self.setting_rows()

    def host_choice(self) -> StartChoice:
        form = self.host_form
        assert form is not None
        s = self.settings
        return StartChoice("host", form.game, form.bots, lan_only=s.host_lan_only, seats=form.seats)

    def change(self, step: int) -> None:
        s = self.settings
        names = game_names()
        if self.mode == "host" and self.host_form is not None:
            self.host_form.change(self.rows()[self.index][0], step)
            return
        if self.mode in ("play", "rules"):
            self.rules_top = 0
            s.game = (
                names[(names.index(s.game) + step) % len(names)] if s.game in names else "tuppen"
            )
            spec = game_spec(s.game)
            s.bots = max(spec.min_players - 1, min(spec.max_players - 1, s.bots))
            return
        if self.mode != "settings":
            return
        key = self.setting_rows()[self.index][0]
        if key == "lang":
            s.lang = LANGUAGES[(LANGUAGES.index(s.lang) + step) % len(LANGUAGES)]
        elif key == "timeout":
            s.timeout_s = max(10, min(3600, s.timeout_s + 10 * step))
        elif key == "level":
            s.level = LEVELS[(LEVELS.index(s.level) + step) % len(LEVELS)]
        elif key == "ascii":
            s.ascii = not s.ascii
        elif key == "result_pause":
            index = (
                RESULT_PAUSES.index(s.result_pause_s) if s.result_pause_s in RESULT_PAUSES else 0
            )
            s.result_pause_s = RESULT_PAUSES[(index + step) % len(RESULT_PAUSES)]
        elif key == "game":
            s.game = names[(names.index(s.game) + step) % len(names)]
        elif key.startswith("rule:"):
            step_rule(s.rules, s.game, key[5:], step)

    def bots(self, step: int) -> None:
        spec = game_spec(self.settings.game)
        self.settings.bots = max(
            spec.min_players - 1, min(spec.max_players - 1, self.settings.bots + step)
        )

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        editing = Condition(lambda: bool(self.editing))
        menu = Condition(lambda: self.mode == "menu") & ~editing
        other = Condition(lambda: self.mode != "menu") & ~editing

        reading = Condition(lambda: self.mode == "rules") & ~editing

        @kb.add("up", filter=~editing & ~reading)
        def _up(event: KeyPressEvent) -> None:
            self.index = max(0, self.index - 1)

        @kb.add("down", filter=~editing & ~reading)
        def _down(event: KeyPressEvent) -> None:
            limit = len(MENU) if self.mode == "menu" else len(self.rows())
            self.index = min(limit - 1, self.index + 1)

        for key, step in (("up", -1), ("down", 1), ("pageup", -10), ("pagedown", 10)):

            @kb.add(key, filter=reading)
            def _scroll(event: KeyPressEvent, step: int = step) -> None:
                self.scroll_rules(step)

        for n in range(1, len(MENU) + 1):

            @kb.add(str(n), filter=menu)
            def _number(event: KeyPressEvent, i: int = n - 1) -> None:
                self.index = i
                self.choose(MENU[i])

        @kb.add("enter", filter=menu)
        def _enter(event: KeyPressEvent) -> None:
            self.choose(MENU[self.index])

        @kb.add("q", filter=menu)
        @kb.add("c-c")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=StartChoice("quit"))

        @kb.add("left", filter=other)
        def _left(event: KeyPressEvent) -> None:
            self.change(-1)

        @kb.add("right", filter=other)
        def _right(event: KeyPressEvent) -> None:
            self.change(1)

        @kb.add("+", filter=other)
        def _plus(event: KeyPressEvent) -> None:
            self.bots(1)

        @kb.add("-", filter=other)
        def _minus(event: KeyPressEvent) -> None:
            self.bots(-1)

        @kb.add("enter", filter=other)
        def _go(event: KeyPressEvent) -> None:
            if self.mode == "play":
                s = self.settings
                event.app.exit(result=StartChoice("play", s.game, s.bots))
            elif self.mode == "host":
                event.app.exit(result=self.host_choice())
            elif self.mode == "settings" and self.setting_rows()[self.index][0] == "name":
                self._open_edit("name", person_name(self.lang, self.settings.name))

        @kb.add("escape", filter=other, eager=True)
        def _back(event: KeyPressEvent) -> None:
            self.mode = "menu"
            self.index = 0
            self.message = ""

        @kb.add("escape", filter=editing, eager=True)
        def _cancel(event: KeyPressEvent) -> None:
            if self.editing == "code":
                self.mode = "menu"
            self.editing = ""
            self.message = ""
            event.app.layout.focus_last()

        return kb

    def run(self) -> StartChoice:
        return self.app.run() or StartChoice("quit")


def invite_problem(code: str) -> str | None:
    """Why ``code`` is not an invite code (None if it is one)."""
    from dealerless.node.invite import Invite, InviteError

    try:
        Invite.decode(code)
    except InviteError as exc:
        return str(exc)
    return None


def run_start_screen(
    settings: Settings, *, can_host: bool = False, can_join: bool = False
) -> StartChoice:
    return StartScreen(settings, can_host=can_host, can_join=can_join).run()


Launcher = Callable[[Settings, StartChoice], int]  # runs the chosen table, returns its exit code


def run_client(
    settings: Settings | None = None,
    *,
    play: Launcher | None = None,
    host: Launcher | None = None,
    join: Launcher | None = None,
    save_settings: bool = True,
    save_dir: Path | None = None,
) -> int:
    """Start screen, then the chosen table, then back to the start screen until quit.

    The launchers run a table to its end (the ``dealerless`` command passes ones that run the
    real ``play``/``host``/``join`` commands on nodes). Without a ``play`` launcher a game
    against bots runs on an in-process :class:`LocalSession`; without ``host``/``join`` those
    entries say they are not available.
    """
    from dealerless.client.tui.app import run_table_app
    from dealerless.client.tui.session import LocalSession

    settings = settings or Settings.load()
    while True:
        choice = run_start_screen(settings, can_host=host is not None, can_join=join is not None)
        if save_settings:
            with contextlib.suppress(OSError):
                settings.save()
        if choice.kind == "quit":
            return 0
        if choice.kind == "play" and play is not None:
            play(settings, choice)
        elif choice.kind == "play":
            try:
                config = make_config(
                    choice.game, choice.bots + 1, settings.rules.get(choice.game, {})
                )
            except ConfigError:
                config = make_config(choice.game, choice.bots + 1)
            session: TableSession = LocalSession(
                config,
                seed=secrets.randbits(32),
                human_name=settings.name,
                step_timeout_ms=settings.timeout_s * 1000,
                bot_delay=0.4,
            )
            run_table_app(
                session,
                lang=settings.lang,
                unicode=not settings.ascii,
                save_dir=save_dir,
                result_pause=float(settings.result_pause_s),
            )
        elif choice.kind == "host" and host is not None:
            host(settings, choice)
        elif choice.kind == "join" and join is not None:
            join(settings, choice)
