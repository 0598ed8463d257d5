"""The lobby screen and the full-screen client on a real node (``dealerless play/host/join``).

A networked seat has no table machine until every seat has joined and the host has signed the
table configuration, so the client starts on a lobby screen (:class:`LobbyApp`): the game, the
invite code ready to copy (``c`` puts it on the clipboard through the terminal, OSC 52), who is
at the table and how many players are still missing, and what the node says. As soon as the
machine exists the lobby closes and the table screen (:class:`TableApp`) opens on the same
session. :func:`run_node_client` runs both screens one after the other on one asyncio loop,
with the node's Trio code in guest mode on that loop for the whole time.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output

from dealerless.client.tui.app import TableApp
from dealerless.client.tui.i18n import tr
from dealerless.client.tui.node_session import DriverSession, LobbyState
from dealerless.client.tui.node_text import node_notice, table_full, verified_clean
from dealerless.client.tui.views import STYLE
from dealerless.client.tui.wording import game_title, person_name
from dealerless.node.notices import notice

__all__ = ["LobbyApp", "closing_lines", "lobby_text", "run_node_client"]

NodeMain = Callable[[], Awaitable[int]]
READY = -1000  # the lobby's result when the table is ready
MESSAGES_SHOWN = 6
BYE_GRACE = 1.0  # seconds a quitting node has to tell the table (its signed "bye") before it stops


def _can_exit(app: Application[int]) -> bool:
    future = app.future
    return app.is_running and future is not None and not future.done()


def _chunks(text: str, width: int) -> list[str]:
    return [text[i : i + width] for i in range(0, len(text), width)] or [""]


def invite_lines(invite: str, width: int) -> list[str]:
    """The invite as a join command that survives being pasted into a shell, however the
    terminal wraps it: the code sits in single quotes, so a line break inside it stays inside
    the argument (``dealerless join`` drops white space in a code) and never runs the rest of
    the code as a command. One line when it fits; else the command ends in a backslash (the
    shell joins the two lines) and the quoted code has a line of its own, so the code is never
    cut in an 80-column terminal."""
    command = f"dealerless join '{invite}'"
    if len(command) <= width:
        return [command]
    if len(invite) + 2 <= width:
        return ["dealerless join \\", f"'{invite}'"]
    return _chunks(command, max(20, width))


def node_lines(lobby: LobbyState, lang: str) -> list[str]:
    """The node's recent messages for the lobby, in the screen's words, each once (a joiner's
    node repeats who is at the table, which the lobby already lists: node_text drops it)."""
    shown: list[str] = []
    for message in lobby.messages:
        text = node_notice(message, lang)
        if text and (not shown or shown[-1] != text):
            shown.append(text)
    return shown[-MESSAGES_SHOWN:]


def lobby_text(lobby: LobbyState, lang: str, width: int = 80) -> StyleAndTextTuples:
    """What the lobby screen shows (a pure function of the lobby state, for tests)."""
    out: StyleAndTextTuples = []

    def line(style: str, text: str) -> None:
        out.append((style, text + "\n"))

    title = game_title(lang, lobby.game) if lobby.game else ""
    refused = any(table_full(m) for m in lobby.messages)
    if (lobby.ended or refused) and not lobby.names:
        # nothing is known about the table (resume found none, the host refused): say why
        reason = tr(lang, "node.refused_full") if refused else (node_lines(lobby, lang) or [""])[-1]
        line("class:title", " " + (title or tr(lang, "app.title")) + " ")
        line("", "")
        line("class:error", tr(lang, "lobby.ended", reason=reason))
        line("", "")
        out.append(("class:dim", tr(lang, "lobby.ended_keys")))
        return out
    line("class:title", " " + tr(lang, "lobby.title", game=title or "?", seats=lobby.seats or "?"))
    if lobby.rematch:
        key = "lobby.rematch_host" if lobby.role == "host" else "lobby.rematch_join"
        line("class:countdown", tr(lang, key))
    line("", "")
    if lobby.invite:
        line("class:label", tr(lang, "lobby.invite"))
        for part in invite_lines(lobby.invite, width - 1):
            line("class:key", part)
        line("class:dim", tr(lang, "lobby.copy"))
    elif lobby.role == "host":
        line("class:dim", tr(lang, "lobby.opening"))
    line("", "")
    line("class:label", tr(lang, "lobby.players", n=lobby.joined, seats=lobby.seats or "?"))
    for number, name in enumerate(lobby.names):
        you = "  (" + tr(lang, "seat.you") + ")" if name == lobby.name else ""
        host = "  " + tr(lang, "lobby.host") if number == 0 else ""
        prints = lobby.fingerprints
        key = f"  [{prints[number]}]" if number < len(prints) else ""  # who really sits there
        line("", f"  {number + 1}. {person_name(lang, name, 40)}{you}{host}{key}")
    if lobby.ended or refused:
        reason = tr(lang, "node.refused_full") if refused else (node_lines(lobby, lang) or [""])[-1]
        line("class:error", "  " + tr(lang, "lobby.ended", reason=reason))
        line("", "")
        out.append(("class:dim", tr(lang, "lobby.ended_keys")))
        return out
    if lobby.need is None:
        line("class:dim", "  " + tr(lang, "lobby.connecting"))
    elif lobby.need > 0:
        line("class:countdown", "  " + tr(lang, "lobby.waiting", n=lobby.need))
    else:
        line("class:countdown", "  " + tr(lang, "lobby.starting"))
    line("", "")
    for message in node_lines(lobby, lang):
        line("class:log", message)
    line("", "")
    out.append(("class:dim", tr(lang, "lobby.keys")))
    return out


class LobbyApp:
    """The waiting room: exits with :data:`READY` once ``session.ready``, 1 if the player
    leaves (``q``), or whatever :meth:`close` says (the node ended before the table)."""

    def __init__(
        self,
        session: DriverSession,
        *,
        lang: str = "en",
        mono: bool = False,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.session = session
        self.lang = lang
        self.copied = False
        control = FormattedTextControl(self._text, focusable=False)
        self.app: Application[int] = Application(
            layout=Layout(HSplit([Window(control, wrap_lines=False)])),
            key_bindings=self._bindings(),
            style=STYLE,
            full_screen=True,
            refresh_interval=0.5,
            color_depth=ColorDepth.MONOCHROME if mono else None,
            input=input,
            output=output,
        )
        session.subscribe(self._on_change)

    def _text(self) -> StyleAndTextTuples:
        width = self.app.output.get_size().columns
        text = lobby_text(self.session.lobby, self.lang, width)
        if self.copied:
            text.append(("class:dim", "   " + tr(self.lang, "lobby.copied")))
        return text

    def _on_change(self) -> None:
        if self.session.ready and _can_exit(self.app):
            self.app.exit(result=READY)
        else:
            self.app.invalidate()

    def copy(self) -> str:
        """The OSC 52 sequence that puts the invite on the terminal's clipboard (sent)."""
        invite = self.session.lobby.invite
        if not invite:
            return ""
        code = base64.b64encode(invite.encode()).decode()
        sequence = f"\x1b]52;c;{code}\x07"
        self.app.output.write_raw(sequence)
        self.app.output.flush()
        self.copied = True
        return sequence

    def close(self, result: int) -> None:
        if _can_exit(self.app):
            self.app.exit(result=result)

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("c")
        def _copy(event: KeyPressEvent) -> None:
            self.copy()

        @kb.add("q")
        @kb.add("c-c")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=1)

        return kb

    async def run_async(self) -> int:
        if self.session.ready:
            return READY
        return await self.app.run_async()


def run_node_client(
    session: DriverSession,
    node_main: NodeMain,
    *,
    lang: str = "en",
    unicode: bool = True,
    mono: bool = False,
    save_dir: Path | None = None,
    input: Input | None = None,
    output: Output | None = None,
    report: Callable[[str], None] | None = None,
    result_pause: float = 0.0,
    data_dir: Path | None = None,
    rematch: bool = False,
    menu: bool = False,
) -> int:
    """The lobby, then the table, of a seat played by ``node_main`` (an async function that
    runs the node with ``session`` as its driver, ``say``, ``on_ready``; returns the node's
    exit code). Returns the node's code if it finished (0: a complete game whose transcript
    verified), else 1 (the player left before the end; 130 after Ctrl-C twice).

    ``report`` gets the node's last messages once the screen is gone (default: stderr)."""
    table_options: dict[str, Any] = {
        "unicode": unicode,
        "mono": mono,
        "save_dir": save_dir,
        "result_pause": result_pause,
        "data_dir": data_dir,
        "rematch": rematch,  # the game-over panel offers r; session.rematch says if chosen
        "menu": menu,  # started from the start screen: Space on the game-over panel goes back
    }
    say = report or _stderr
    code = asyncio.run(_run(session, node_main, lang, table_options, input, output, say))
    for text in closing_lines(session.lobby, lang):
        say(text)
    return code


def closing_lines(lobby: LobbyState, lang: str) -> list[str]:
    """The node's last messages, told once the screen is gone, in the screen's words: those
    the screen showed from table events instead (node_text drops them) are left out, never
    printed as the node's English."""
    shown = [node_notice(message, lang) for message in lobby.messages[-4:]]
    return [text for text in shown if text]


def _stderr(text: str) -> None:
    import sys

    print(text, file=sys.stderr, flush=True)


async def _run(
    session: DriverSession,
    node_main: NodeMain,
    lang: str,
    table_options: dict[str, Any],
    input: Input | None,
    output: Output | None,
    say: Callable[[str], None] = _stderr,
) -> int:
    loop = asyncio.get_running_loop()
    finished = asyncio.Event()
    outcomes: list[Any] = []  # outcome.Outcome
    cancel = trio.CancelScope()
    tokens: list[trio.lowlevel.TrioToken] = []
    lobby = LobbyApp(
        session, lang=lang, mono=bool(table_options["mono"]), input=input, output=output
    )
    screens: list[Any] = [lobby]

    async def guest() -> int:
        tokens.append(trio.lowlevel.current_trio_token())
        session.attach()
        with cancel:
            return await node_main()
        return 1  # cancelled: the player left

    def done(outcome: Any) -> None:
        outcomes.append(outcome)
        finished.set()
        screen = screens[-1]
        if getattr(outcome, "error", None) is not None:
            if _can_exit(screen.app):
                screen.app.exit(result=1)  # the node crashed: leave the screen, then raise
        elif screen is lobby:
            # the node ended before the table (refused, cannot listen, ...): the lobby says
            # why and waits for the player to leave (q)
            session.lobby.ended = True
            session.lobby.version += 1
            lobby.app.invalidate()

    trio.lowlevel.start_guest_run(
        guest,
        run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        done_callback=done,
        host_uses_signal_set_wakeup_fd=True,
    )
    result: int | None = None
    try:
        result = await lobby.run_async()
        if result == READY and session.ready:
            table = TableApp(session, lang=lang, input=input, output=output, **table_options)
            screens.append(table)
            if not (finished.is_set() and outcomes and outcomes[0].error is not None):
                result = await table.app.run_async()
                session.rematch = table.ui.rematch
        machine = session.machine
        if not finished.is_set() and machine is not None and machine.left_table and result != 130:
            # We stood up or sit out and the table plays on: the node lets the others catch up
            # with our records, and a host's direct-link hub keeps passing their messages until
            # they finish (node/app.py). Cancelling it would stall their table.
            say(tr(lang, "lobby.leaving"))
            await finished.wait()
        elif not finished.is_set() and machine is not None and machine.over:
            # the game is over: give the node a moment to finish its check and linger
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(finished.wait(), 1.0)
        elif not finished.is_set() and machine is not None:
            # We quit during the game: the node tells the table (a signed "bye", on its next
            # tick) so the others see it at once; a moment for it to leave, then we stop.
            session.leave()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(finished.wait(), BYE_GRACE)
    finally:
        if not finished.is_set():
            if tokens:
                with contextlib.suppress(trio.RunFinishedError):
                    tokens[0].run_sync_soon(cancel.cancel)
            else:
                cancel.cancel()
            await finished.wait()
        session.close()
    node_code: int = outcomes[0].unwrap()  # a crash of the node is not swallowed
    if result == 130:
        return 130
    if cancel.cancelled_caught:
        code = _verified_code(session)
        if code:
            session.lobby.messages.append(notice("left_early"))
        return code
    return node_code


def _verified_code(session: DriverSession) -> int:
    """The node was stopped (the player left): 0 only if the game was over and the node had
    verified the transcript by replay."""
    machine = session.machine
    if machine is None or not machine.over:
        return 1
    for message in reversed(session.lobby.messages):
        if message.code == "transcript":
            return 0 if verified_clean(message) else 1
    return 1
