"""A :class:`TableSession` for a seat driven by a Trio node (``dealerless play/host/join``).

:class:`DriverSession` is at once the node's ``Driver`` (``async choose(machine)`` and
``on_events(machine, events)``, see ``node/drivers.py``), the node's ``say``/``log``/
``on_ready`` callbacks, and the screen's session. It runs on the Trio side, which the app runs
in guest mode on its own loop (:func:`dealerless.client.tui.lobby.run_node_client`), so both
sides share one thread and no lock is needed:

* before every seat has joined there is no table machine: the session keeps a
  :class:`LobbyState` (invite code, who has joined, how many are missing, the node's messages)
  that the lobby screen shows; the table screen replaces it once the machine is known
  (:attr:`DriverSession.ready`);
* the node calls :meth:`on_events` after every machine call that produced events;
* when it is this seat's turn the node awaits :meth:`choose`: the screen shows the moves and
  the player's key press (:meth:`act`) answers it;
* a move the seat *may* make out of turn (an any-time knock, a Tupp claim: ``machine.may_act()``
  but not ``my_turn_to_act()``) is sent by :meth:`act` straight to the machine
  (``machine.act`` signs a request); the node's ticker (every ``NodeOptions.tick``, 0.1 s)
  persists the new records and sends the outgoing frames, in that order, like after any
  machine call.

Moves refused by the rules stay on the screen as errors and the node keeps waiting.

Club play: a person's node sits out and keeps following the table (``NodeOptions.follow_away``,
set by the commands that open this screen); the screen then shows the table as an observer and
``o`` asks to come back (:meth:`DriverSession.come_back`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from dealerless.client.tui.log_rebuild import rebuild_log
from dealerless.client.tui.model import NodeSaid, TableSnapshot, build_snapshot, part_ended
from dealerless.client.tui.node_text import PLAY_NOISE, TABLE_NEWS, node_notice
from dealerless.node.drivers import LobbyView
from dealerless.node.notices import Notice
from dealerless.node.options import NodeOptions
from dealerless.protocol.rules.base import Action, IllegalAction
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import (
    Accepted,
    ChatReceived,
    LocalProtocolError,
    SegmentStarted,
    TableEvent,
    WaitingFor,
)
from dealerless.protocol.transcript import TranscriptWriter

__all__ = ["DriverSession", "LobbyState"]

MESSAGES_KEPT = 200
# The node says these when it asks to be seated again (node/seat_changes.py).
COMES_BACK = ("coming_back", "back_from_silence")  # the node asks to come back by itself
NOTICE_SECONDS = 8.0


@dataclass
class LobbyState:
    """The waiting room of a networked table, before the table configuration is signed."""

    role: str = "join"  # "host" or "join"
    name: str = ""  # our name at the table
    game: str = ""
    seats: int = 0
    invite: str = ""
    table_id: str = ""
    fingerprint: str = ""  # ours
    names: list[str] = field(default_factory=list)  # who is at the table (host first)
    fingerprints: list[str] = field(default_factory=list)  # of the same seats, if known
    need: int | None = None  # players still missing (None: not known yet)
    messages: list[Notice] = field(default_factory=list)  # everything the node said
    ended: bool = False  # the node stopped before the table started (the lobby says why)
    rematch: bool = False  # the table is the rematch of the one we just played
    version: int = 0

    @property
    def joined(self) -> int:
        return len(self.names)


class DriverSession:
    def __init__(
        self,
        config: TableConfig | None = None,
        seat: int | None = None,
        *,
        clock: Callable[[], float] | None = None,
        lobby: LobbyState | None = None,
        options: NodeOptions | None = None,
    ) -> None:
        """``options``: the very options the node runs with (a person's node keeps following
        the table when it sits out, and comes back when asked on the screen)."""
        self._config = config
        self._seat = seat
        self._clock: Callable[[], float] = clock or time.monotonic
        self._own_clock = clock is None
        self._names = tuple(s.name for s in config.seats) if config is not None else ()
        self.machine: TableMachine | None = None
        self.lobby = lobby or LobbyState()
        if self.lobby.role == "host" and not self.lobby.names and self.lobby.name:
            self.lobby.names = [self.lobby.name]
            self.lobby.need = max(0, self.lobby.seats - 1) if self.lobby.seats else None
        self._log: list[TableEvent] = []
        self._chat: list[tuple[int, str]] = []
        self._errors: list[str] = []
        self._listeners: list[Callable[[], None]] = []
        self._version = 0
        self._snapshot: TableSnapshot | None = None
        self._last: TableSnapshot | None = None  # the latest snapshot of the table machine
        self._answer: Action | None = None
        self._answered = trio.Event()
        self._waiting = False  # the node awaits choose()
        self._token: trio.lowlevel.TrioToken | None = None
        self._said_at = 0.0
        self.chat_out: list[str] = []  # chat lines typed before the table machine existed
        self._wanted: str | None = None  # a seat change asked on the screen, until it is done
        self._earlier: list[TableSnapshot] = []  # the table before each seat change
        self.options = options
        self._coming_back = False  # sitting out, we asked to be seated again
        self._back_set = False  # options.back_after is ours (not the command line's)
        # The player quits while the game runs: the node reads it (a driver hook) and tells
        # the table, signed, on its next tick (node/seat.py ``_maybe_bye``).
        self.leaving = False
        self.rematch = False  # the player chose another game with the same settings (r)

    # -------------------------------------------------------------- the node's side
    def attach(self) -> None:
        """Call from the Trio side before the node starts: moves from the screen then reach
        it at any time (out-of-turn moves need it; :meth:`choose` also sets it)."""
        self._token = trio.lowlevel.current_trio_token()
        if self._own_clock:
            # the node's clock (Trio's), readable from the screen's side too
            offset = trio.current_time() - time.monotonic()
            self._clock = lambda: time.monotonic() + offset

    def observe(self, machine: TableMachine, events: Sequence[TableEvent] = ()) -> None:
        """After every machine call: remember the machine, log the events, refresh."""
        first, self.machine = self.machine is None, machine
        if first:
            self._config = machine.config
            self._seat = machine.seat
            self._names = tuple(s.name for s in machine.config.seats)
            self._snapshot = None
            self._send_pending_chat(machine)
            if machine.records and not self._log:
                # a resumed table: what happened before, from the engine's own history
                self._log.extend(rebuild_log(machine))
        for event in events:
            if isinstance(event, ChatReceived):
                self._chat.append((event.seat, event.text[:200]))
            elif not isinstance(event, Accepted | WaitingFor):
                self._log.append(event)
            if isinstance(event, SegmentStarted):
                self._next_part(machine, event)
        self._give_change(machine)
        self._publish()

    def _next_part(self, machine: TableMachine, event: SegmentStarted) -> None:
        """After a seat change: the seats are numbered anew, what came before keeps its names
        (the transcript's header stays the first configuration we had)."""
        if not event.seated:
            self._wanted = None  # done: we stood up or sit out
            if not machine.sitting_out:
                return  # we left: the screen keeps the part we played
        else:
            self._coming_back = False  # seated again (or seated on)
            if self.options is not None and self._back_set:
                self.options.back_after = None  # a later sit-out stays out until asked
                self._back_set = False
        if self._last is not None:  # the part that ended, as last drawn, with its whole log
            self._earlier.append(part_ended(self._last, self._log, self._chat))
        self._log, self._chat = [], []
        self._seat = machine.seat
        self._names = tuple(s.name for s in machine.config.seats)
        self._snapshot = None

    def _give_change(self, machine: TableMachine) -> None:
        """The player's seat change goes into our next signed result (a new segment starts
        without it: asked again there). While newcomers wait for their seats (the host asked
        to re-form the table) it waits a hand, as the node's own --stand-after-hand does."""
        wanted = self._wanted
        if wanted is None or machine.over or machine.change_wanted in (wanted, "reseat"):
            return
        try:
            machine.want_change(wanted)
        except LocalProtocolError as exc:
            self._wanted = None
            self._errors.append(str(exc))

    def on_events(self, machine: TableMachine, events: list[TableEvent]) -> None:
        """The node's driver hook (called after every change, events already persisted)."""
        self.observe(machine, events)

    def log(self, fields: dict[str, Any]) -> None:
        """Usable as the node's ``log=`` callback: refresh on every accepted element."""
        if fields.get("ev") == "acc" and self.machine is not None:
            self._publish()

    def say(self, said: Notice) -> None:
        """The node's ``say=`` callback: kept for the lobby and the status line (the screen
        owns the terminal, so nothing is printed)."""
        if said.code in COMES_BACK:
            self._coming_back = True  # the node asks by itself (after a sit-out for silence)
        if self.machine is not None and said.code in PLAY_NOISE:
            return  # the table runs: the log file has it (node.app.logged_say)
        if self.machine is not None and said.code in TABLE_NEWS:
            self._log.append(NodeSaid(said))
            self._publish()
        lobby = self.lobby
        self._said_at = time.monotonic()
        if lobby.messages and lobby.messages[-1] == said:
            return  # a repeat (a joiner's node retells who is at the table)
        lobby.messages.append(said)
        del lobby.messages[:-MESSAGES_KEPT]
        self._lobby_changed()

    def on_lobby(self, view: LobbyView) -> None:
        """The node's ``on_lobby`` driver hook: who is at the table before it starts."""
        if self.machine is not None:
            return
        self.lobby.names = list(view.names)
        self.lobby.fingerprints = list(view.fingerprints)
        self.lobby.need = view.need
        self._lobby_changed()

    def on_ready(self, meta: Any) -> None:
        """The node's ``on_ready(meta)`` (host): the invite code is known."""
        lobby = self.lobby
        lobby.invite = str(getattr(meta, "invite", ""))
        lobby.table_id = str(getattr(meta, "table_id", ""))
        lobby.seats = int(getattr(meta, "seats", 0)) or lobby.seats
        lobby.game = str(getattr(meta, "game", "")) or lobby.game
        if lobby.role == "host" and not lobby.names:
            lobby.names = [lobby.name or str(getattr(meta, "name", ""))]
            lobby.need = lobby.seats - 1
        self._lobby_changed()

    def _lobby_changed(self) -> None:
        self.lobby.version += 1
        self._version += 1
        self._notify()

    async def choose(self, machine: TableMachine) -> Action | None:
        """The node's Driver: wait for the player's move (cancelled with the node)."""
        self.observe(machine)
        self._token = trio.lowlevel.current_trio_token()
        self._waiting = True
        try:
            while True:
                self._answered = trio.Event()
                await self._answered.wait()
                action = self._take_answer()
                if action is None:
                    continue
                try:
                    machine.engine.verify(action)
                except IllegalAction as exc:
                    self._errors.append(str(exc))
                    self._publish()
                    continue
                return action
        finally:
            self._waiting = False

    def _take_answer(self) -> Action | None:
        action, self._answer = self._answer, None
        return action

    def _set_answer(self, action: Action) -> None:
        """On the Trio side: give the move to the waiting node, or send it out of turn."""
        machine = self.machine
        if self._waiting or machine is None:
            self._answer = action
            self._answered.set()
            return
        if not machine.may_act():
            self._errors.append("it is not your turn")
            self._publish()
            return
        try:
            events = machine.act(action, trio.current_time())
        except LocalProtocolError as exc:
            self._errors.append(str(exc))
            self._publish()
            return
        # the node's next tick persists the records and sends the frames (node/seat.py)
        self.observe(machine, events)

    # -------------------------------------------------------------- the screen's side
    @property
    def ready(self) -> bool:
        """True once the table machine exists (every seat joined): show the table."""
        return self.machine is not None

    @property
    def version(self) -> int:
        return self._version

    @property
    def seat(self) -> int | None:
        return self._seat

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def config(self) -> TableConfig:
        if self._config is None:
            raise RuntimeError("no table configuration yet (the lobby is still open)")
        return self._config

    def start(self) -> None:
        return None

    def snapshot(self) -> TableSnapshot:
        if self._snapshot is None:
            if self.machine is not None:
                self._publish()
            else:
                self._snapshot = build_snapshot(
                    TableMachine(self.config, None, now=self._clock()), self._names, ()
                )
        assert self._snapshot is not None
        return self._snapshot

    def notice(self, lang: str = "en") -> str:
        """The node's latest message if it is recent, in the screen's words (the table screen
        shows it on the status line for NOTICE_SECONDS)."""
        if not self.lobby.messages or time.monotonic() - self._said_at > NOTICE_SECONDS:
            return ""
        return node_notice(self.lobby.messages[-1], lang)

    def act(self, action: Action) -> None:
        """From the screen (outside Trio's context): hand the move to the node."""
        if self._token is None:
            self._errors.append("it is not your turn")
            self._publish()
            return
        with contextlib.suppress(trio.RunFinishedError):
            self._token.run_sync_soon(self._set_answer, action)

    def send_chat(self, text: str) -> None:
        text = text.strip()[:200]
        if not text or self._seat is None:
            return
        self._chat.append((self._seat, text))
        self._publish()
        if self._token is None:
            self.chat_out.append(text)  # before the table exists: sent once the node runs
            return
        with contextlib.suppress(trio.RunFinishedError):
            self._token.run_sync_soon(self._send_chat, text)

    def want_change(self, change: str) -> None:
        """From the screen: stand up or sit out after this hand (given to the machine on the
        node's side, like a move); sitting out, "back" comes back (:meth:`come_back`)."""
        if change == "back":
            self.come_back()
            return
        if self._token is None or self.machine is None:
            self._errors.append(f"no {change} now: the table has not started")
            self._publish()
            return
        with contextlib.suppress(trio.RunFinishedError):
            self._token.run_sync_soon(self._set_change, change)

    def leave(self) -> None:
        """From the screen: the player quits; the node says so to the table before it stops."""
        if self._token is None:
            return
        with contextlib.suppress(trio.RunFinishedError):
            self._token.run_sync_soon(setattr, self, "leaving", True)

    def come_back(self) -> None:
        """From the screen: sitting out, be seated again at the next hand boundary."""
        if self._token is None or self.machine is None:
            self._errors.append("we are not sitting out")
            self._publish()
            return
        with contextlib.suppress(trio.RunFinishedError):
            self._token.run_sync_soon(self._set_back)

    def _set_back(self) -> None:
        """On the Trio side: ask the node to seat us again. The node's driver hooks do not
        reach the node itself, so this goes through the options it runs with: its own
        --back-after-hand, from the hand running now (the node reads it on its next tick and
        asks at once, node/seat_changes.py ``_ask_back``)."""
        machine = self.machine
        if machine is None or not machine.sitting_out:
            self._errors.append("we are not sitting out")
        elif self.options is None:
            self._errors.append("this table cannot take us back from the screen")
        else:
            self.options.back_after = machine.hand
            self._coming_back = self._back_set = True
        self._publish()

    def _set_change(self, change: str) -> None:
        """On the Trio side: remember the wish and give it to the machine."""
        if self.machine is None:
            return
        self._wanted = change
        self._give_change(self.machine)
        self._publish()

    def _send_chat(self, text: str) -> None:
        """On the Trio side: sign the line; the node's next tick sends it (node/seat.py)."""
        self.chat_out.append(text)
        if self.machine is not None:
            self._send_pending_chat(self.machine)

    def _send_pending_chat(self, machine: TableMachine) -> None:
        """Sign the lines typed so far (those typed in the lobby go when the table exists)."""
        lines, self.chat_out = self.chat_out, []
        for line in lines:
            try:
                machine.chat(line, trio.current_time())
            except LocalProtocolError as exc:
                self._errors.append(str(exc))
                self._publish()

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def wait_changed(self, version: int, timeout: float | None = None) -> int:
        return self._version  # one thread: the app redraws on its listener instead

    def save_transcript(self, path: Path) -> None:
        if self.machine is None:
            raise OSError("nothing to save yet")
        with TranscriptWriter.create(path, self.config.to_wire()) as writer:
            for frame in self.machine.records:
                writer.append(frame)

    def close(self) -> None:
        return None

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener()

    def _publish(self) -> None:
        if self.machine is None:
            return
        self._version += 1
        self._snapshot = build_snapshot(
            self.machine,
            self._names,
            self._log,
            chat=self._chat,
            now=self._clock(),
            errors=self._errors,
            version=self._version,
            wanted=self._wanted,
            earlier=self._earlier,
            coming_back=self._coming_back,
        )
        self._last = self._snapshot
        self._notify()
