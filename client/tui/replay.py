"""Replaying a saved game: a transcript file stepped through record by record.

:func:`load_replay` reads a transcript (protocol/transcript.py), re-verifies the whole game with
``TableMachine.resume(config, None, records)`` (the auditor's check: every signature, proof and
rule), then feeds the records one by one to an auditor machine, taking a
:class:`~dealerless.client.tui.model.TableSnapshot` after each so the screen can step through
them. :class:`ReplaySession` serves those snapshots to the table screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from prompt_toolkit.formatted_text import StyleAndTextTuples

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.model import TableSnapshot, build_snapshot
from dealerless.protocol.rules.base import Action, ConfigError
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import Accepted, LocalProtocolError, TableEvent, WaitingFor
from dealerless.protocol.transcript import TranscriptError, TranscriptReader


class ReplayError(Exception):
    """The file is not a transcript this client can replay."""


@dataclass
class Replay:
    path: Path
    config: TableConfig
    records: list[bytes]
    snapshots: list[TableSnapshot]  # [0] before the first record, [i] after record i
    verified: bool
    problem: str  # why it did not verify ("" when it did)


def _visible(event: TableEvent) -> bool:
    return not isinstance(event, Accepted | WaitingFor)


def load_replay(path: Path) -> Replay:
    try:
        with TranscriptReader(path, allow_torn_tail=True) as reader:
            records = [record.frame for record in reader.records()]
            header = reader.header
    except (OSError, TranscriptError) as exc:
        raise ReplayError(str(exc)) from exc
    try:
        config = TableConfig.from_wire(header.config)
    except (ConfigError, KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"the transcript header is not a table configuration: {exc}") from exc
    names = tuple(s.name for s in config.seats)
    problem = ""
    try:
        final = TableMachine.resume(config, None, records)
        if final.violations:
            problem = "; ".join(f"seat {v.culprit}: {v.reason}" for v in final.violations)
    except LocalProtocolError as exc:
        problem = str(exc)
    machine = TableMachine(config, None, now=0.0)
    log: list[TableEvent] = []
    snapshots = [build_snapshot(machine, names, log, version=0)]
    for number, frame in enumerate(records, 1):
        log.extend(e for e in machine.receive(frame, 0.0) if _visible(e))
        snapshots.append(build_snapshot(machine, names, log, version=number))
    return Replay(path, config, records, snapshots, not problem, problem)


class ReplaySession:
    """A :class:`TableSession` that shows one step of a :class:`Replay` (no moves)."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.index = 0
        self._listeners: list[Callable[[], None]] = []

    @property
    def seat(self) -> int | None:
        return None

    @property
    def names(self) -> tuple[str, ...]:
        return self.replay.snapshots[0].names

    @property
    def config(self) -> TableConfig:
        return self.replay.config

    def start(self) -> None:
        return None

    def snapshot(self) -> TableSnapshot:
        return self.replay.snapshots[self.index]

    def act(self, action: Action) -> None:
        return None

    def send_chat(self, text: str) -> None:
        return None

    def status(self, lang: str) -> StyleAndTextTuples:
        """The status line of a replay: the step, whether the transcript verified, the keys."""
        rep = self.replay
        step = tr(lang, "replay.step", i=self.index, n=len(rep.records))
        check = (
            ("class:dim", tr(lang, "replay.ok_short"))
            if rep.verified
            else ("class:error", tr(lang, "replay.bad_short", problem=rep.problem))
        )
        return [("class:label", step + "  "), check, ("class:dim", "  " + tr(lang, "replay.keys"))]

    def want_change(self, change: str) -> None:
        return None  # a replay changes no seats (the app does not offer it)

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def wait_changed(self, version: int, timeout: float | None = None) -> int:
        return self.snapshot().version

    def save_transcript(self, path: Path) -> None:
        raise OSError("a replay is already saved")

    def close(self) -> None:
        return None

    def step(self, delta: int) -> None:
        """Move by ``delta`` records to the next one that changed what the screen shows."""
        last = len(self.replay.snapshots) - 1
        index = self.index
        while 0 <= index + delta <= last:
            index += delta
            if len(self.replay.snapshots[index].log) != len(self.replay.snapshots[self.index].log):
                break
        self.index = max(0, min(last, index))

    def go(self, index: int) -> None:
        self.index = max(0, min(len(self.replay.snapshots) - 1, index))
