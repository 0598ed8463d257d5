"""What the terminal client needs from a table driver, and a local driver with bots.

:class:`TableSession` is the interface: the app reads :meth:`TableSession.snapshot` (never the
machine itself), sends this seat's moves with :meth:`TableSession.act`, and is told about changes
through :meth:`TableSession.subscribe` (a callback that may run on any thread) or waits for them
with :meth:`TableSession.wait_changed`. A networked driver implements the same methods around
its node and calls :func:`dealerless.client.tui.model.build_snapshot` on its own machine.

:class:`LocalSession` runs a whole table of in-memory :class:`TableMachine` peers (real keys,
signatures and mental-poker deck, like :mod:`dealerless.client.protocol_sim`), bots on every
seat but one, all machine work on one worker thread so the screen never freezes.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from dealerless.client.bots import bot_for
from dealerless.client.tui.model import TableSnapshot, build_snapshot, part_ended
from dealerless.protocol.messages import IdentityKey
from dealerless.protocol.rules.base import Action, GameConfig
from dealerless.protocol.table import SeatInfo, TableConfig, TableMachine
from dealerless.protocol.table.events import LocalProtocolError, SegmentStarted, TableEvent
from dealerless.protocol.table.segments import SegmentError
from dealerless.protocol.transcript import TranscriptWriter

Listener = Callable[[], None]
Clock = Callable[[], float]


@runtime_checkable
class TableSession(Protocol):
    """One seat at one table, as the terminal client drives it."""

    @property
    def seat(self) -> int | None: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def config(self) -> TableConfig: ...

    def start(self) -> None:
        """Begin (start worker threads, connect); called once by the app."""

    def snapshot(self) -> TableSnapshot:
        """The latest picture of the table; cheap, never blocks on proof work."""

    def act(self, action: Action) -> None:
        """Queue a move of this seat; a refusal shows up in ``snapshot().errors``."""

    def send_chat(self, text: str) -> None:
        """Send a chat line to the table."""

    def want_change(self, change: str) -> None:
        """Ask to ``stand`` up or ``sit-out`` after this hand (the hand-by-hand games); shown
        in ``snapshot().change_wanted``, a refusal in ``snapshot().errors``."""

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` (from any thread) after every change of the snapshot."""

    def wait_changed(self, version: int, timeout: float | None = None) -> int:
        """Block until the snapshot version differs from ``version``; returns the new one."""

    def save_transcript(self, path: Path) -> None:
        """Write this seat's transcript (protocol/transcript.py format) to ``path``."""

    def close(self) -> None:
        """Stop; the app calls it once when it quits."""


class LocalSession:
    """A table on this machine: the human at ``human_seat``, bots on every other seat."""

    def __init__(
        self,
        game: GameConfig,
        *,
        seed: int,
        human_seat: int = 0,
        human_name: str = "player",
        step_timeout_ms: int = 120_000,
        bot_delay: float = 0.0,
        clock: Clock = time.monotonic,
    ) -> None:
        self._rng = random.Random(seed)  # noqa: S311 - bot choices and table id, not crypto
        self._keys = [IdentityKey.generate() for _ in range(game.players)]
        names = [f"bot{i}" for i in range(game.players)]
        names[human_seat] = human_name
        seats = tuple(SeatInfo(n, k.peer_id.raw) for n, k in zip(names, self._keys, strict=True))
        self._config = TableConfig(self._rng.randbytes(16), game, seats, step_timeout_ms)
        self._seat = human_seat
        self._names = tuple(names)
        self._clock = clock
        self._t0 = clock()
        self._bot = bot_for(game.game)
        self._bot_delay = bot_delay
        self._lock = threading.Lock()  # guards machines, queues and the log
        self._wake = threading.Condition(self._lock)
        self._machines: list[TableMachine] = []
        self._queues: list[list[bytes]] = [[] for _ in range(game.players)]
        self._pending: list[Action] = []
        self._changes: list[str] = []  # seat changes the human asked for, not yet given
        self._earlier: list[TableSnapshot] = []  # the table before each seat change
        self._chat: list[tuple[int, str]] = []
        self._errors: list[str] = []
        self._log: list[TableEvent] = []
        self._listeners: list[Listener] = []
        self._version = 0
        self._snapshot: TableSnapshot | None = None
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stop = False
        self._next_bot = 0.0
        self.failure: BaseException | None = None

    # ---------------------------------------------------------------- TableSession
    @property
    def seat(self) -> int | None:
        return self._seat

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def config(self) -> TableConfig:
        return self._config

    @property
    def machine(self) -> TableMachine:
        """The human seat's machine (read it only while the worker is stopped)."""
        return self._machines[self._seat]

    def start(self, *, threaded: bool = True) -> None:
        with self._lock:
            if self._machines:
                return
            now = self._now()
            self._machines = [TableMachine(self._config, k, now=now) for k in self._keys]
            for seat in range(len(self._machines)):
                self._flush(seat)
            self._publish()
        if threaded:
            self._thread = threading.Thread(target=self._run, name="dealerless-table", daemon=True)
            self._thread.start()

    def snapshot(self) -> TableSnapshot:
        snap = self._snapshot
        if snap is None:
            with self._lock:
                self._publish()
            snap = self._snapshot
            assert snap is not None
        return snap

    def act(self, action: Action) -> None:
        with self._wake:
            self._pending.append(action)
            self._wake.notify_all()

    def send_chat(self, text: str) -> None:
        text = text.strip()[:200]
        if not text:
            return
        with self._wake:
            self._chat.append((self._seat, text))
            self._publish()
            self._wake.notify_all()

    def want_change(self, change: str) -> None:
        with self._wake:
            self._changes.append(change)
            self._wake.notify_all()

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def wait_changed(self, version: int, timeout: float | None = None) -> int:
        with self._changed:
            self._changed.wait_for(lambda: self._version != version, timeout)
            return self._version

    def save_transcript(self, path: Path) -> None:
        with self._lock:
            records = list(self.machine.records)
        with TranscriptWriter.create(path, self._config.to_wire()) as writer:
            for frame in records:
                writer.append(frame)

    def close(self) -> None:
        with self._wake:
            self._stop = True
            self._wake.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    # ---------------------------------------------------------------- the table
    def _now(self) -> float:
        return self._clock() - self._t0

    def _flush(self, seat: int) -> None:
        machine = self._machines[seat]
        machine.take_records()
        machine.take_secrets()
        for frame in machine.take_outgoing():
            for other in range(len(self._machines)):
                if other != seat:
                    self._queues[other].append(frame)

    def _record(self, seat: int, events: Sequence[TableEvent]) -> None:
        if seat != self._seat:
            return
        for event in events:
            self._log.append(event)
            if isinstance(event, SegmentStarted) and event.seated:
                # the seats are numbered anew: what came before keeps its own names
                if self._snapshot is not None:  # the part that ended, with its whole log
                    self._earlier.append(part_ended(self._snapshot, self._log, self._chat))
                self._log, self._chat = [], []
                self._names = tuple(s.name for s in event.config.seats)

    def _next_segments(self) -> bool:
        """A segment ended for a seat change: its next host (a seat that stays) starts the
        next one; every other seat checks it and follows when the frame reaches it."""
        for peer, machine in enumerate(self._machines):
            if machine.seat_change is None or not machine.over or machine.left_table:
                continue
            try:
                host = machine.seat_plan().host
            except SegmentError:
                continue
            if host == self._keys[peer].peer_id.raw:
                try:
                    machine.next_segment()
                except LocalProtocolError as exc:
                    self._errors.append(f"the table cannot go on: {exc}")
                    continue
                self._record(peer, machine.take_events())
                self._flush(peer)
                return True
        return False

    def step(self) -> bool:
        """One round of work: the human's queued moves, every delivery, one bot move and the
        clocks. Returns True if anything happened. (The worker thread calls it in a loop;
        tests may call it directly after ``start(threaded=False)``.)"""
        with self._lock:
            changed = self._step_locked()
            if changed:
                self._publish()
        return changed

    def _step_locked(self) -> bool:
        now = self._now()
        changed = False
        human = self._machines[self._seat]
        if human.left_table:
            return False  # the human stood up or sits out: the bots' table is none of ours
        while self._changes:
            try:
                human.want_change(self._changes.pop(0))
            except LocalProtocolError as exc:
                self._errors.append(str(exc))
            changed = True
        while self._pending:
            action = self._pending.pop(0)
            try:
                self._record(self._seat, human.act(action, now))
            except LocalProtocolError as exc:
                self._errors.append(str(exc))
            self._flush(self._seat)
            changed = True
        while any(self._queues):
            for seat, queue in enumerate(self._queues):
                while queue:
                    frame = queue.pop(0)
                    self._record(seat, self._machines[seat].receive(frame, now))
                    self._flush(seat)
                    changed = True
        for seat, machine in enumerate(self._machines):
            events = machine.tick(now)
            if events:
                self._record(seat, events)
                self._flush(seat)
                changed = True
        if changed or self._next_segments():
            return True
        for peer, machine in enumerate(self._machines):
            if peer == self._seat or not machine.my_turn_to_act() or machine.seat is None:
                continue
            if now < self._next_bot:
                return False
            seat = machine.seat  # seats are numbered anew at every seat change
            move = self._bot(machine.engine, seat, self._rng, True)
            if move is None:
                self._errors.append(f"bot for seat {seat} gave no action")
                return True
            try:
                self._record(peer, machine.act(move, now))
            except LocalProtocolError as exc:
                self._errors.append(f"bot {seat}: {exc}")
            self._flush(peer)
            self._next_bot = now + self._bot_delay
            return True
        return False

    def _publish(self) -> None:
        if not self._machines:
            return
        self._version += 1
        self._snapshot = build_snapshot(
            self._machines[self._seat],
            self._names,
            self._log,
            chat=self._chat,
            now=self._now(),
            errors=self._errors,
            version=self._version,
            wanted=self._changes[-1] if self._changes else None,
            earlier=self._earlier,
        )
        with self._changed:
            self._changed.notify_all()
        for listener in list(self._listeners):
            listener()

    def run_until_idle(self, max_steps: int = 100_000) -> None:
        """Step until nothing moves without the human (for tests without a thread)."""
        for _ in range(max_steps):
            if not self.step():
                return
        raise RuntimeError("the table did not settle")

    def _run(self) -> None:
        try:
            while True:
                with self._wake:
                    if self._stop:
                        return
                    changed = self._step_locked()
                    if changed:
                        self._publish()
                        continue
                    if self._machines[self._seat].over and all(m.over for m in self._machines):
                        self._wake.wait(0.5)
                        continue
                    # nothing to do: wait for the human, or for the clock (deadlines, bot pace)
                    self._wake.wait(0.05 if self._bot_delay else 0.25)
                    self._publish_clock()
        except BaseException as exc:  # surfaced on screen and re-raised by the app
            self.failure = exc
            self._errors.append(f"internal error: {exc!r}")
            self._publish()

    def _publish_clock(self) -> None:
        """Refresh the snapshot about once a second so countdowns move."""
        snap = self._snapshot
        if snap is not None and snap.deadline is not None and self._now() - snap.now >= 1.0:
            self._publish()
