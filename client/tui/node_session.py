"""A :class:`TableSession` for a seat driven by a Trio node (``dealerless host`` / ``join``).

:class:`DriverSession` is at once the node's ``Driver`` (``async choose(machine)``, see
``node/seat.py``) and the screen's session. It runs on the Trio side, which the app runs in
guest mode on its own loop (``run_table_app(session, trio_main=...)``), so both sides share
one thread and no lock is needed:

* the node calls :meth:`observe` after every machine call (or passes :meth:`log` as its
  ``log=`` callback, which refreshes on every accepted element once the machine is known);
* when it is this seat's turn the node awaits :meth:`choose`: the screen shows the moves and
  the player's key press (:meth:`act`) answers it.

Moves refused by the rules stay on the screen as errors and the node keeps waiting.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import trio

from dealerless.client.tui.model import TableSnapshot, build_snapshot
from dealerless.protocol.rules.base import Action, IllegalAction
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import Accepted, TableEvent, WaitingFor
from dealerless.protocol.transcript import TranscriptWriter


class DriverSession:
    def __init__(self, config: TableConfig, seat: int, *, clock: Callable[[], float]) -> None:
        self._config = config
        self._seat = seat
        self._clock = clock
        self._names = tuple(s.name for s in config.seats)
        self.machine: TableMachine | None = None
        self._log: list[TableEvent] = []
        self._chat: list[tuple[int, str]] = []
        self._errors: list[str] = []
        self._listeners: list[Callable[[], None]] = []
        self._version = 0
        self._snapshot: TableSnapshot | None = None
        self._answer: Action | None = None
        self._answered = trio.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self.chat_out: list[str] = []  # chat lines for the node to send

    # -------------------------------------------------------------- the node's side
    def observe(self, machine: TableMachine, events: Sequence[TableEvent] = ()) -> None:
        """After every machine call: remember the machine, log the events, refresh."""
        self.machine = machine
        self._log.extend(e for e in events if not isinstance(e, Accepted | WaitingFor))
        self._publish()

    def log(self, fields: dict[str, Any]) -> None:
        """Usable as the node's ``log=`` callback: refresh on every accepted element."""
        if fields.get("ev") == "acc" and self.machine is not None:
            self._publish()

    async def choose(self, machine: TableMachine) -> Action | None:
        """The node's Driver: wait for the player's move (cancelled with the node)."""
        self.observe(machine)
        self._token = trio.lowlevel.current_trio_token()
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

    def _take_answer(self) -> Action | None:
        action, self._answer = self._answer, None
        return action

    def _set_answer(self, action: Action) -> None:
        self._answer = action
        self._answered.set()

    def receive_chat(self, seat: int, text: str) -> None:
        self._chat.append((seat, text[:200]))
        self._publish()

    # -------------------------------------------------------------- the screen's side
    @property
    def seat(self) -> int | None:
        return self._seat

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def config(self) -> TableConfig:
        return self._config

    def start(self) -> None:
        return None

    def snapshot(self) -> TableSnapshot:
        if self._snapshot is None:
            self._snapshot = build_snapshot(
                TableMachine(self._config, None, now=self._clock()), self._names, ()
            )
        return self._snapshot

    def act(self, action: Action) -> None:
        """From the screen (outside Trio's context): hand the move to the waiting node."""
        if self._token is None:
            self._errors.append("it is not your turn")
            self._publish()
            return
        with contextlib.suppress(trio.RunFinishedError):
            self._token.run_sync_soon(self._set_answer, action)

    def send_chat(self, text: str) -> None:
        text = text.strip()[:200]
        if text:
            self.chat_out.append(text)
            self._chat.append((self._seat, text))
            self._publish()

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def wait_changed(self, version: int, timeout: float | None = None) -> int:
        return self._version  # one thread: the app redraws on its listener instead

    def save_transcript(self, path: Path) -> None:
        if self.machine is None:
            raise OSError("nothing to save yet")
        with TranscriptWriter.create(path, self._config.to_wire()) as writer:
            for frame in self.machine.records:
                writer.append(frame)

    def close(self) -> None:
        return None

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
        )
        for listener in list(self._listeners):
            listener()
