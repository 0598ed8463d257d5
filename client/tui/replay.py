"""Replaying a saved game: a transcript file stepped through move by move.

:func:`load_replay` reads a transcript (protocol/transcript.py), re-verifies the whole game with
``TableMachine.resume(config, None, records)`` (the auditor's check: every signature, proof and
rule), then feeds the records one by one to an auditor machine. A player thinks in moves, not
in records (a game has hundreds: key commits, shuffles, shares, signatures), so the records are
grouped into steps: each player move (a play, knock, bet, bid...) with the deck's records that
follow it (a draw, the cards a check opens, the signatures of a hand's result), and each deal
(a hand starting, its shuffles and shares). A :class:`~dealerless.client.tui.model.TableSnapshot`
is kept at the end of each step; :class:`ReplaySession` serves them to the table screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from prompt_toolkit.filters import Filter
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.model import TableSnapshot, build_snapshot
from dealerless.protocol.rules.base import Action, ConfigError, HandResult
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import (
    Accepted,
    ActionApplied,
    HandEnded,
    HandSigned,
    HandStarted,
    LocalProtocolError,
    TableEvent,
    WaitingFor,
)
from dealerless.protocol.transcript import TranscriptError, TranscriptReader


class ReplayError(Exception):
    """The file is not a transcript this client can replay."""


@dataclass
class Replay:
    path: Path
    config: TableConfig
    records: list[bytes]
    snapshots: list[TableSnapshot]  # [0] before the first move or deal, [i] after step i
    verified: bool
    problem: str  # why it did not verify ("" when it did)
    ended: Sequence[HandResult | None] = ()  # per step: the hand that ended in it


def _visible(event: TableEvent) -> bool:
    return not isinstance(event, Accepted | WaitingFor)


def _starts_step(events: Sequence[TableEvent]) -> bool:
    """A record that starts a step: a player's move, or a new hand (its deal follows)."""
    return any(isinstance(e, ActionApplied | HandStarted) for e in events)


def _still(snap: TableSnapshot, step: int) -> TableSnapshot:
    # a replay has no clock: nobody is waited for, so no seat shows the time it has left
    return replace(snap, deadline=None, version=step)


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
    current = build_snapshot(machine, names, log)  # the end of the step being read
    steps: list[TableSnapshot] = []
    ended: list[HandResult | None] = []
    result: HandResult | None = None  # a hand that ended in the step being read
    for frame in records:
        events = [e for e in machine.receive(frame, 0.0) if _visible(e)]
        if _starts_step(events):
            # The last signature of a hand's result comes in the record that starts the next
            # hand: it belongs to the hand's end, whose panel would else say it is unsigned.
            signed = tuple(e for e in events if isinstance(e, HandSigned))
            steps.append(_still(replace(current, log=current.log + signed), len(steps)))
            ended.append(result)
            result = None
        log.extend(events)
        result = next((e.result for e in events if isinstance(e, HandEnded)), result)
        current = build_snapshot(machine, names, log)
    steps.append(_still(current, len(steps)))
    ended.append(result)
    return Replay(path, config, records, steps, not problem, problem, ended)


class ReplaySession:
    """A :class:`TableSession` that shows one step of a :class:`Replay` (no moves)."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.index = 0
        self.panel_step = -1  # the step whose result panel the screen last opened
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

    def ended_here(self) -> HandResult | None:
        """The result of the hand that ended in the step shown (None: no hand ended in it)."""
        ended = self.replay.ended
        return ended[self.index] if self.index < len(ended) else None

    def act(self, action: Action) -> None:
        return None

    def send_chat(self, text: str) -> None:
        return None

    def status(self, lang: str) -> StyleAndTextTuples:
        """The status line of a replay: the step, whether the transcript verified, the keys."""
        rep = self.replay
        step = tr(lang, "replay.step", i=self.index, n=len(rep.snapshots) - 1)
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
        """Move by ``delta`` steps (moves and deals)."""
        self.go(self.index + delta)

    def go(self, index: int) -> None:
        self.index = max(0, min(len(self.replay.snapshots) - 1, index))


class PanelState(Protocol):
    """What of the table screen's state a replay steers: its result panels."""

    summary: HandResult | None
    summary_part: int
    summary_top: int
    summary_game: bool
    chooser: list[Action] | None
    waiting_results: list[tuple[int, HandResult]]


class ReplayScreen(Protocol):
    """The table screen as a replay sees it (app.TableApp; no import, so no circle)."""

    @property
    def replay(self) -> ReplaySession | None: ...

    @property
    def ui(self) -> PanelState: ...

    def close_summary(self) -> None: ...


def replay_panels(app: ReplayScreen, snap: TableSnapshot) -> None:
    """The result panel of a replay follows the step shown: a hand's panel opens at the step
    where it ended (never a panel of an earlier hand, stepping back opens it again), the
    game's panel at the last step once the hand's panel is closed."""
    rep, ui = app.replay, app.ui
    assert rep is not None
    if rep.index != rep.panel_step:
        rep.panel_step = rep.index
        ui.summary, ui.summary_part = rep.ended_here(), snap.segment
        ui.summary_top = 0
        ui.summary_game = False
        ui.chooser = None
    ui.waiting_results.clear()
    if snap.over and ui.summary is None:
        ui.summary_game = True


def add_replay_keys(kb: KeyBindings, app: ReplayScreen, active: Filter) -> None:
    """Right/Space/n: close the open result panel, else the next step; Left/b: the step before;
    Home/End: the first and the last. Bound after the panel's keys, so they win over them."""
    rep = app.replay
    assert rep is not None

    @kb.add("right", filter=active)
    @kb.add(" ", filter=active)
    @kb.add("n", filter=active)
    def _next(event: KeyPressEvent) -> None:
        if app.ui.summary is not None:
            app.close_summary()
        else:
            rep.step(1)

    @kb.add("left", filter=active)
    @kb.add("b", filter=active)
    def _back(event: KeyPressEvent) -> None:
        rep.step(-1)

    @kb.add("home", filter=active)
    def _first(event: KeyPressEvent) -> None:
        rep.go(0)

    @kb.add("end", filter=active)
    def _last(event: KeyPressEvent) -> None:
        rep.go(len(rep.replay.snapshots) - 1)
