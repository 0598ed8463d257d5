"""The table screen: a full-screen prompt_toolkit application over a :class:`TableSession`.

prompt_toolkit runs its asyncio loop on the main thread; the session does all protocol work
(proofs, signatures, bots) on its own worker thread and tells the app about changes with a
thread-safe ``invalidate``; the app only reads immutable snapshots, so the screen never waits.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.output import ColorDepth, Output

from dealerless.client.tui import presenter as P
from dealerless.client.tui.guest_run import TrioMain, run_with_trio
from dealerless.client.tui.i18n import YES_KEYS, tr
from dealerless.client.tui.model import TableSnapshot
from dealerless.client.tui.panels import PanelRoom, UiState, history_panel, result_panel, saved_text
from dealerless.client.tui.replay import ReplaySession, add_replay_keys, replay_panels
from dealerless.client.tui.session import TableSession
from dealerless.client.tui.views import STYLE, overlay, table_layout, text_window
from dealerless.client.tui.wrap import wrap_lines
from dealerless.protocol.rules.base import Action

TYPED_AHEAD_S = 0.6


class TableApp:
    def __init__(
        self,
        session: TableSession,
        *,
        lang: str = "en",
        unicode: bool = True,
        mono: bool = False,
        save_dir: Path | None = None,
        input: Input | None = None,
        output: Output | None = None,
        clock: Callable[[], float] | None = None,
        replay: ReplaySession | None = None,
        result_pause: float = 0.0,
        data_dir: Path | None = None,
        rematch: bool = False,
        menu: bool = False,
    ) -> None:
        self.session = session
        # Started from the start screen: leaving the game-over panel goes back to its menu.
        self.menu = menu
        # The game-over panel offers r (another game, same settings): only where the caller
        # can start one (``dealerless play``); it reads ``ui.rematch`` after the screen closes.
        self.offers_rematch = rematch
        self.replay = replay
        self.look = P.Look(lang, unicode)
        self.ui = UiState()
        self.save_dir = save_dir
        # 0: the result panel stays until closed; else it closes this long after the game
        # went on underneath it (the next hand started)
        self.result_pause = result_pause
        self.data_dir = data_dir  # where the node keeps every table's transcript (if known)
        self._clock = clock
        self._t0 = time.monotonic()
        self.chat_buffer = Buffer(multiline=False, accept_handler=self._send_chat)
        self.chat_active = False
        session.start()
        snap = session.snapshot()
        self.ui.results_seen = len(snap.results)
        self._segment = snap.segment
        lang_ = lang
        floats = [
            overlay(
                text_window(self._help_text),
                tr(lang_, "help.title"),
                lambda: self.ui.help,
            ),
            overlay(
                text_window(self._history_text, wrap=False),
                tr(lang_, "history.title"),
                lambda: self.ui.history,
            ),
            overlay(
                text_window(self._summary_text, wrap=False),
                lambda: tr(lang_, self._summary_title()),
                lambda: self.ui.summary is not None or self.ui.summary_game,
            ),
            # the questions above a result panel that opens meanwhile: they take the keys
            overlay(
                text_window(lambda: [("class:error", tr(lang_, "quit.confirm"))], width=40),
                "dealerless",
                lambda: self.ui.confirm_quit,
            ),
            overlay(
                text_window(self._change_question, width=44),
                "dealerless",
                lambda: self.ui.confirm_change is not None,
            ),
        ]
        self.chat_control = BufferControl(self.chat_buffer)
        root = table_layout(
            header=lambda: P.header(self.snap, self.look),
            seats=lambda: P.seats(self.snap, self.look, self._now()),
            seats_height=lambda: self.snap.players,  # seats change between hands
            trick=lambda: P.trick(self.snap, self.look),
            hand=lambda: P.hand(self.snap, self.look, self.ui.selected),
            actions=lambda: P.actions(self.snap, self.look, self.ui.chooser, self.ui.chosen),
            status=self._status_text,
            log=self._log_text,
            chat=lambda: [("class:chat", "\n".join(P.chat_lines(self.snap, self.look)))],
            chat_input=self.chat_control,
            chat_active=lambda: self.chat_active,
            floats=floats,
            too_small=self._too_small_text,
            history=lambda: [("", "\n".join(P.hand_history(self.snap, self.look, False)))],
        )
        self.layout = Layout(root)
        self.app: Application[int] = Application(
            layout=self.layout,
            key_bindings=self._bindings(),
            style=STYLE,
            full_screen=True,
            refresh_interval=0.5,
            color_depth=ColorDepth.MONOCHROME if mono else None,
            before_render=lambda _app: self._before_render(),
            input=input,
            output=output,
        )
        session.subscribe(self._on_change)

    # ------------------------------------------------------------------ state
    _pinned: TableSnapshot | None = None

    @property
    def snap(self) -> TableSnapshot:
        """The snapshot of the frame being drawn (taken before each render, so all parts of
        one frame and the keys pressed on it see the same state)."""
        return self._pinned or self.session.snapshot()

    def _now(self) -> float:
        if self._clock is not None:
            return self._clock()
        snap = self.snap
        # the session's clock: its snapshot time plus the wall time since it was taken
        return snap.now + (time.monotonic() - self._published_at(snap))

    _segment = 1
    _seen_version = -1
    _seen_at = 0.0

    def _published_at(self, snap: TableSnapshot) -> float:
        if snap.version != self._seen_version:
            self._seen_version = snap.version
            self._seen_at = time.monotonic()
        return self._seen_at

    def _summary_title(self) -> str:
        if self.ui.summary is not None:
            return "end.title"
        return "end.left" if self.snap.left is not None else "end.game"

    def _change_question(self) -> StyleAndTextTuples:
        text = tr(self.look.lang, f"seatchange.confirm.{self.ui.confirm_change}")
        return [("class:error", text)]

    def _on_change(self) -> None:
        self.app.invalidate()  # thread-safe

    def _before_render(self) -> None:
        self._pinned = snap = self.session.snapshot()
        ui = self.ui
        if self.replay is not None:  # the panels follow the step shown, not what came in
            replay_panels(self, snap)
            return
        # every result is shown, one after the other: none is replaced by the next
        new, self._segment, ui.results_seen = P.new_results(snap, self._segment, ui.results_seen)
        ui.waiting_results.extend(new)
        if ui.summary is not None and self.result_pause > 0:
            went_on = snap.over or snap.hand_number > ui.summary.hand_number
            if went_on and ui.went_on_at is None:
                ui.went_on_at = time.monotonic()
            if ui.went_on_at is not None and time.monotonic() - ui.went_on_at >= self.result_pause:
                self.close_summary()
        if ui.summary is None and ui.waiting_results:
            ui.summary_part, ui.summary = ui.waiting_results.pop(0)
            ui.went_on_at = None
            ui.chooser = None
        if snap.over and not ui.summary_game and ui.summary is None:
            ui.summary_game = True
        if self.ui.selected is not None and self.ui.selected >= len(snap.hand):
            self.ui.selected = None
        if self.ui.chooser and not all(a in snap.legal for a in self.ui.chooser):
            self.ui.chooser = None

    def _status_text(self) -> StyleAndTextTuples:
        snap = self.snap
        if self.replay is not None:
            return self.replay.status(self.look.lang)
        if self.ui.message:  # alone on the line, so a saved file's path is not cut
            return [("class:dim", self.ui.message)]
        out = P.change_note(snap, self.look) + list(P.countdown(snap, self.look, self._now()))
        notice = getattr(self.session, "notice", None)  # a node's latest message
        text = notice(self.look.lang) if callable(notice) else ""
        if text:
            out.append(("class:dim", "  " + str(text)))
        return out

    def _log_text(self) -> StyleAndTextTuples:
        """The move log up to the line it is scrolled back to (the newest at the bottom)."""
        lines = P.log_lines(self.snap, self.look)
        if self.ui.log_back:
            lines = lines[: max(1, len(lines) - self.ui.log_back)]
        return [("class:log", "\n".join(lines))]

    def _help_text(self) -> StyleAndTextTuples:
        # the move clock does not stop for the help: it is shown on top of it
        clock = P.countdown(self.snap, self.look, self._now())[:1]
        return [*clock, ("", "\n\n" + tr(self.look.lang, "help.text"))]

    def room(self) -> PanelRoom:
        size = self.app.output.get_size()
        return PanelRoom(size.columns, size.rows)

    def history_lines(self) -> list[str]:
        """The hand history wrapped to the panel's width (scrolled by these lines)."""
        return wrap_lines(P.hand_history(self.snap, self.look), self.room().width)

    def _history_text(self) -> StyleAndTextTuples:
        keys, *lines = history_panel(self.history_lines(), self.ui, self.room(), self.look.lang)
        return [("class:dim", keys + "\n"), ("", "\n".join(lines))]

    def scroll_history(self, step: int) -> None:
        self.ui.history_top = max(0, self.ui.history_top + step)  # the panel keeps it in range

    def scroll_log(self, step: int) -> None:
        """Scroll the move log back (step > 0) or forward; 0 goes back to the newest line."""
        lines = len(P.log_lines(self.snap, self.look))
        self.ui.log_back = 0 if step == 0 else max(0, min(lines - 1, self.ui.log_back + step))

    def _too_small_text(self) -> StyleAndTextTuples | None:
        size = self.app.output.get_size()
        if size.columns >= 80 and size.rows >= 24:
            return None
        text = tr(self.look.lang, "screen.too_small", cols=size.columns, rows=size.rows)
        return [("class:error", text)]

    def _summary_text(self) -> StyleAndTextTuples:
        lines = result_panel(
            self.snap,
            self.look,
            self.ui,
            self.room(),
            data_dir=self.data_dir,
            result_pause=self.result_pause,
            offers_rematch=self.offers_rematch,
            menu=self.menu,
            replay=self.replay is not None,
        )
        return [("", "\n".join(lines))]

    def scroll_summary(self, step: int) -> None:
        self.ui.summary_top = max(0, self.ui.summary_top + step)  # the panel keeps it in range

    def typed_ahead(self) -> bool:
        """A Space that closed the last hand's panel may have been pressed twice: the second,
        within TYPED_AHEAD_S, must not close the game-over panel unseen (and end the game's
        screen); a person who means it presses again."""
        closed = self.ui.result_closed_at
        return closed is not None and time.monotonic() - closed < TYPED_AHEAD_S

    def close_summary(self) -> None:
        """Space on the result panel: the next waiting result, or back to the table."""
        if self.ui.summary is not None:
            self.ui.result_closed_at = time.monotonic()
        self.ui.summary = None
        self.ui.summary_top = 0
        self.ui.went_on_at = None
        self.ui.message = ""

    # ------------------------------------------------------------------ moves
    _sent: tuple[int, Action] | None = None

    def send(self, action: Action) -> None:
        # The same move again before the table changed is the same key pressed twice on a
        # frame drawn before the first arrived: it must not be sent twice.
        version = self.session.snapshot().version
        if self._sent == (version, action):
            return
        self._sent = (version, action)
        self.ui.chooser = None
        self.ui.selected = None
        self.ui.message = ""
        self.ui.sent.append(action)
        self.session.act(action)

    def press_kind(self, key: str) -> None:
        kind = P.KIND_OF_KEY.get(key)
        group = [a for a in self.snap.others() if a.kind is kind]
        if not group:
            return
        if len(group) == 1:
            self.send(group[0])
        else:
            self.ui.chooser = group
            self.ui.chosen = 0

    def press_number(self, n: int) -> None:
        if self.ui.chooser:
            if 1 <= n <= len(self.ui.chooser):
                self.send(self.ui.chooser[n - 1])
            return
        snap = self.snap
        if 1 <= n <= len(snap.hand):
            card = snap.hand[n - 1]
            action = snap.playable().get(card) if card is not None else None
            if action is not None:
                self.send(action)

    def move(self, step: int) -> None:
        if self.ui.chooser:
            self.ui.chosen = (self.ui.chosen + step) % len(self.ui.chooser)
            return
        snap = self.snap
        playable = snap.playable()
        # move among the playable cards when there are any, else over the whole hand
        spots = [i for i, c in enumerate(snap.hand) if c is not None and c in playable]
        spots = spots or list(range(len(snap.hand)))
        if not spots:
            return
        if self.ui.selected is None or self.ui.selected not in spots:
            self.ui.selected = spots[0] if step > 0 else spots[-1]
        else:
            self.ui.selected = spots[(spots.index(self.ui.selected) + step) % len(spots)]

    def enter(self) -> None:
        if self.ui.chooser:
            self.send(self.ui.chooser[self.ui.chosen])
        elif self.ui.selected is not None:
            self.press_number(self.ui.selected + 1)

    def _send_chat(self, buffer: Buffer) -> bool:
        self.session.send_chat(buffer.text)
        self.chat_active = False
        self.layout.focus_last()
        return False

    def save(self) -> Path | None:
        base = self.save_dir
        if base is None:  # the data directory ($DEALERLESS_HOME honoured)
            from dealerless.node.portable import data_dir

            base = data_dir() / "saves"
        stamp = time.strftime("%Y%m%d-%H%M%S")
        config = self.session.config
        path = base / f"{config.game.game}-{stamp}-{config.table_id.hex()[:8]}.dlt"
        try:
            base.mkdir(parents=True, exist_ok=True)
            self.session.save_transcript(path)
        except OSError as exc:
            self.ui.message = tr(self.look.lang, "save.failed", reason=exc)
            return None
        self.ui.message = saved_text(self.look.lang, path)
        return path

    def ask_change(self, change: str) -> None:
        """``w``/``o``: stand up or sit out after this hand; sitting out, ``o``: come back."""
        asked, why = P.seat_key(self.snap, self.look, change)
        if why is not None:
            self.ui.message = why
        else:
            self.ui.confirm_change = asked

    def answer_change(self, yes: bool) -> None:
        change, self.ui.confirm_change = self.ui.confirm_change, None
        if yes and change is not None:
            self.ui.message = ""
            self.session.want_change(change)  # "back": a node's session only (sitting out)

    def quit(self) -> None:
        if self.snap.over or self.replay is not None:
            self.app.exit(result=0)
        else:
            self.ui.confirm_quit = True

    # ------------------------------------------------------------------ keys
    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        chatting = Condition(lambda: self.chat_active)
        helping = Condition(lambda: self.ui.help)
        quitting = Condition(lambda: self.ui.confirm_quit)
        asking = Condition(lambda: self.ui.confirm_change is not None)
        confirming = quitting | asking
        summary = Condition(lambda: self.ui.summary is not None or self.ui.summary_game)
        history = Condition(lambda: self.ui.history)
        table = ~chatting & ~helping & ~confirming & ~summary & ~history

        @kb.add("<any>", filter=helping)
        def _close_help(event: KeyPressEvent) -> None:
            self.ui.help = False

        yes = YES_KEYS.get(self.look.lang, "y")

        @kb.add(yes, filter=quitting)
        @kb.add("y", filter=quitting)
        def _quit_yes(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        @kb.add(yes, filter=asking)
        @kb.add("y", filter=asking)
        def _change_yes(event: KeyPressEvent) -> None:
            self.answer_change(True)

        @kb.add("n", filter=confirming)
        @kb.add("escape", filter=confirming, eager=True)
        def _quit_no(event: KeyPressEvent) -> None:
            self.ui.confirm_quit = False
            self.answer_change(False)

        @kb.add("c-c", filter=~quitting)
        def _ctrl_c(event: KeyPressEvent) -> None:
            self.chat_active = False
            self.ui.confirm_change = None
            self.quit()

        @kb.add("c-c", filter=quitting)
        def _ctrl_c_twice(event: KeyPressEvent) -> None:
            event.app.exit(result=130)

        @kb.add(" ", filter=summary & ~chatting & ~helping & ~confirming)
        @kb.add("enter", filter=summary & ~chatting & ~helping & ~confirming)
        def _close_summary(event: KeyPressEvent) -> None:
            if self.ui.summary is not None:
                self.close_summary()
            elif self.ui.summary_game and not self.typed_ahead():
                event.app.exit(result=0)

        @kb.add("r", filter=summary & ~chatting & ~helping & ~confirming)
        def _rematch(event: KeyPressEvent) -> None:
            if self.ui.summary is None and self.ui.summary_game and self.offers_rematch:
                self.ui.rematch = True
                event.app.exit(result=0)

        @kb.add("s", filter=summary & ~chatting & ~helping & ~confirming & ~history)
        def _save_on_panel(event: KeyPressEvent) -> None:
            if self.replay is None:
                self.save()

        @kb.add("h", filter=~chatting & ~helping & ~confirming & ~summary)
        def _history(event: KeyPressEvent) -> None:
            self.ui.history = not self.ui.history
            self.ui.history_top = len(self.history_lines())  # the newest (kept in range)

        @kb.add("escape", filter=history & ~chatting, eager=True)
        def _history_close(event: KeyPressEvent) -> None:
            self.ui.history = False

        for key, step in (("up", -1), ("down", 1), ("pageup", -10), ("pagedown", 10)):

            @kb.add(key, filter=history & ~summary & ~chatting & ~helping)
            def _history_scroll(event: KeyPressEvent, step: int = step) -> None:
                self.scroll_history(step)

            # a result panel taller than the screen (it opens over the history too)
            @kb.add(key, filter=summary & ~chatting & ~helping & ~confirming)
            def _summary_scroll(event: KeyPressEvent, step: int = step) -> None:
                self.scroll_summary(step)

        for key, step in (("pageup", 5), ("pagedown", -5), ("end", 0)):

            @kb.add(key, filter=table & ~Condition(lambda: self.replay is not None))
            def _log_scroll(event: KeyPressEvent, step: int = step) -> None:
                self.scroll_log(step)

        @kb.add("q", filter=~chatting & ~helping & ~confirming)
        def _q(event: KeyPressEvent) -> None:
            self.quit()

        @kb.add("?", filter=~chatting & ~confirming)
        def _help(event: KeyPressEvent) -> None:
            self.ui.help = True

        for digit in range(1, 10):

            @kb.add(str(digit), filter=table)
            def _digit(event: KeyPressEvent, n: int = digit) -> None:
                self.press_number(n)

        for key in P.KIND_OF_KEY:

            @kb.add(key, filter=table)
            def _kind(event: KeyPressEvent, k: str = key) -> None:
                self.press_kind(k)

        for key, change in P.CHANGE_KEYS.items():

            @kb.add(key, filter=table & ~Condition(lambda: self.replay is not None))
            def _change(event: KeyPressEvent, c: str = change) -> None:
                self.ask_change(c)

        replaying = Condition(lambda: self.replay is not None)
        if self.replay is not None:  # stepping works on a result panel too
            add_replay_keys(kb, self, ~chatting & ~helping & ~confirming & ~history)
        table = table & ~replaying

        @kb.add("left", filter=table)
        @kb.add("up", filter=table)
        def _left(event: KeyPressEvent) -> None:
            self.move(-1)

        @kb.add("right", filter=table)
        @kb.add("down", filter=table)
        def _right(event: KeyPressEvent) -> None:
            self.move(1)

        @kb.add("enter", filter=table)
        def _enter(event: KeyPressEvent) -> None:
            self.enter()

        @kb.add("escape", filter=table, eager=True)
        def _escape(event: KeyPressEvent) -> None:
            self.ui.chooser = None
            self.ui.selected = None

        @kb.add("m", filter=table)
        def _chat(event: KeyPressEvent) -> None:
            self.chat_active = True
            self.chat_buffer.reset()
            event.app.layout.focus(self.chat_control)

        @kb.add("escape", filter=chatting, eager=True)
        def _chat_cancel(event: KeyPressEvent) -> None:
            self.chat_active = False
            self.chat_buffer.reset()

        @kb.add("s", filter=table)
        def _save(event: KeyPressEvent) -> None:
            self.save()

        return kb

    def run(self, trio_main: TrioMain | None = None) -> int:
        """Run until the player quits. With ``trio_main`` (an async function for Trio, e.g.
        a networked node), Trio runs in guest mode inside prompt_toolkit's asyncio loop for
        as long as the screen shows; quitting cancels it."""
        result: int | None
        try:
            if trio_main is None:
                result = self.app.run()
            else:
                result = asyncio.run(run_with_trio(self.app, trio_main))
        finally:
            self.session.close()
        return 0 if result is None else result


def run_table_app(
    session: TableSession,
    *,
    lang: str = "en",
    unicode: bool = True,
    mono: bool = False,
    save_dir: Path | None = None,
    trio_main: TrioMain | None = None,
    result_pause: float = 0.0,
) -> int:
    """Show the table of ``session`` full screen until the player quits; the exit code.

    A networked driver passes its Trio node as ``trio_main``: it runs in Trio guest mode on the
    screen's asyncio loop (see :meth:`TableApp.run`)."""
    app = TableApp(
        session, lang=lang, unicode=unicode, mono=mono, save_dir=save_dir, result_pause=result_pause
    )
    return app.run(trio_main)
