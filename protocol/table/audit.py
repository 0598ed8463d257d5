"""Offline audit of a whole game from its transcript, with no secret key: a judge, not a replay.

Every record is replayed through an observer :class:`TableMachine`: signatures, the hash chain,
the order of writers, every rule of the game and every zero-knowledge proof are checked again,
and a certificate counts only where its evidence is proven here. On top of the replay the audit
holds the file to the one canonical transcript: every record is a chain element or a vote of a
certificate that completes, in chain order, once; nothing else.

The verdict (:class:`Verdict`, and the exit status of ``dealerless audit``):

* ``clean``: the game is complete and every record checks; no cheat was caught.
* ``cheat``: every record checks and the table caught (and settled) a cheat.
* ``incomplete``: every record checks but the transcript stops before the end (truncated,
  the last result signatures missing) or the table never started.
* ``damaged``: a record does not check or is not where the chain puts it. A seat is named only
  for a record it signed that is wrong at the head it names itself; a reordered, missing,
  duplicated or stray record is damage of the file, which blames nobody.

No input makes it raise: whatever it cannot read is reported as damage.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from dealerless.protocol.messages import MessageError, decode_message
from dealerless.protocol.rules.base import ConfigError, IllegalAction
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.events import (
    GameOver,
    HandEnded,
    SeatSilent,
    SegmentStarted,
    TableEvent,
    TableNotStarted,
    Violation,
)
from dealerless.protocol.table.kinds import SIDE_KINDS, TABLE_REGISTRY
from dealerless.protocol.table.machine import TableMachine
from dealerless.protocol.wire.identity import fingerprint_of


class Verdict(StrEnum):
    CLEAN = "clean"
    CHEAT = "cheat"
    INCOMPLETE = "incomplete"
    DAMAGED = "damaged"


EXIT_STATUS = {Verdict.CLEAN: 0, Verdict.DAMAGED: 1, Verdict.INCOMPLETE: 3, Verdict.CHEAT: 4}


@dataclass
class HandReport:
    hand: int
    winners: tuple[int, ...]
    deltas: tuple[int, ...]
    reason: str
    aborted: bool
    culprit: int | None = None  # a proven violation ended it
    silent: int | None = None  # silence ended it


@dataclass(frozen=True)
class Caught:
    """A cheat the table settled: an abort certificate whose evidence was proven here."""

    culprit: int
    reason: str
    hand: int


@dataclass
class AuditReport:
    config: TableConfig
    records: int
    hands: list[HandReport] = field(default_factory=list)
    caught: list[Caught] = field(default_factory=list)
    silences: list[SeatSilent] = field(default_factory=list)
    failure: str | None = None  # the first record that does not check
    failure_record: int | None = None
    culprit: int | None = None  # only for a record that seat signed, wrong where it says
    complete: bool = False  # the game reached its end
    not_started: bool = False  # the configuration round ended without every signature
    standings: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    state_hash: bytes = b""
    segments: list[TableConfig] = field(default_factory=list)  # after each seat change
    ended_at_change: bool = False  # the file stops at a seat change (see audit_records)
    # An exception the checks did not expect (a bug, reported as damage; kept for the fuzzer)
    internal_error: str | None = None

    @property
    def ok(self) -> bool:
        """Every record checks and the file is canonical (the game may be unfinished)."""
        return self.failure is None

    @property
    def verdict(self) -> Verdict:
        if self.failure is not None:
            return Verdict.DAMAGED
        if self.caught:
            return Verdict.CHEAT
        if not self.complete:
            return Verdict.INCOMPLETE
        return Verdict.CLEAN

    @property
    def exit_status(self) -> int:
        return EXIT_STATUS[self.verdict]

    def seats(self) -> list[dict[str, Any]]:
        return [
            {"seat": i + 1, "name": s.name, "fingerprint": fingerprint_of(s.key)}
            for i, s in enumerate(self.config.seats)
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": str(self.verdict),
            "ok": self.ok,
            "complete": self.complete,
            "not_started": self.not_started,
            "table_id": self.config.table_id.hex(),
            "config_digest": self.config.digest().hex(),
            "game": self.config.game.game,
            "options": dict(self.config.game.options),
            "players": self.config.players,
            "step_timeout_ms": self.config.step_timeout_ms,
            "seats": self.seats(),
            "records": self.records,
            "hands": [
                {
                    "hand": h.hand,
                    "winners": list(h.winners),
                    "deltas": list(h.deltas),
                    "reason": h.reason,
                    "aborted": h.aborted,
                    "culprit": h.culprit,
                    "silent": h.silent,
                }
                for h in self.hands
            ],
            "caught": [
                {"culprit": c.culprit, "reason": c.reason, "hand": c.hand} for c in self.caught
            ],
            "silences": [{"seat": s.seat, "phase": s.phase, "hand": s.hand} for s in self.silences],
            "standings": list(self.standings),
            "winners": list(self.winners),
            "failure": self.failure,
            "failure_record": self.failure_record,
            "culprit": self.culprit,
            "state_hash": self.state_hash.hex(),
            "seat_changes": [
                {
                    "after_hand": c.carry.hands if c.carry else 0,
                    "seats": [
                        {"name": s.name, "fingerprint": fingerprint_of(s.key)} for s in c.seats
                    ],
                    "left": [
                        {"name": d.name, "fingerprint": fingerprint_of(d.key), **dict(d.ledger)}
                        for d in (c.carry.left if c.carry else ())
                    ],
                }
                for c in self.segments
            ],
            "ended_at_change": self.ended_at_change,
        }


class _Damage(Exception):
    def __init__(self, reason: str, culprit: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.culprit = culprit


def audit_records(config: TableConfig, records: Sequence[bytes]) -> AuditReport:
    """Judge a transcript: one segment, or several joined by seat changes (``next-config``
    records, each checked against the segment before it: spec/protocol.md §9)."""
    report = AuditReport(config, len(records))
    try:
        machine = TableMachine(config, None, replay=True)
    except (ConfigError, IllegalAction, ValueError) as exc:
        report.failure = f"the configuration cannot be played: {exc}"
        return report
    except Exception as exc:  # never a traceback for the reader
        report.failure = f"the configuration cannot be played: {exc}"
        report.internal_error = traceback.format_exc()
        return report
    try:
        _replay(machine, config, records, report)
    except _Damage as damage:
        report.failure = damage.reason
        report.culprit = damage.culprit
    except Exception as exc:  # the judge reports what it cannot read, never a traceback
        report.failure = f"the record cannot be checked: {type(exc).__name__}: {exc}"
        report.internal_error = traceback.format_exc()
    try:
        report.standings = machine.engine.scores()
        report.state_hash = machine.state_hash()
        if report.complete and machine.engine.outcome is not None:
            report.standings = machine.engine.outcome.standings
    except Exception as exc:
        report.failure = report.failure or f"the final state cannot be read: {exc}"
        report.internal_error = traceback.format_exc()
    return report


def _replay(
    machine: TableMachine, config: TableConfig, records: Sequence[bytes], report: AuditReport
) -> None:
    seen: set[bytes] = set()
    for number, frame in enumerate(records):
        report.failure_record = number
        if frame in seen:
            raise _Damage("a record that stands in the transcript twice")
        seen.add(frame)
        machine._receive(frame)
        machine.votes.check_certificates()
        events = machine.take_events()
        if machine.votes.is_pending(frame) or machine.in_open_round(frame):
            # A vote waiting for the rest of its certificate, or a frame of a parallel round
            # waiting for the others of the round (the round is held to the chain, in seat
            # order, once it is complete). Examining a vote's evidence may have put a valid
            # frame on the chain for now; the certificate's rollback takes it off, and the
            # next record that is not a vote is held to the chain again.
            _take(events, report)
            continue
        taken = len(machine.records)
        if taken > number + 1 or machine.records != list(records[:taken]):
            raise _Damage("the record is not where the chain puts it")
        if taken < number + 1:
            raise _Damage(*_why_not(machine, frame, events))
        _take(events, report)
    report.failure_record = None
    if len(machine.records) != len(records) or machine.records != list(records):
        # Votes at the end that never formed their certificate: the file stops mid-way.
        report.complete = False
    elif machine.seat_change is not None:
        # The file stops where its seats changed: every hand in it is signed; the table went
        # on without the writer (it stood up or sat out) or everyone left.
        report.complete = report.ended_at_change = True


def _why_not(
    machine: TableMachine, frame: bytes, events: Sequence[TableEvent]
) -> tuple[str, int | None]:
    """Why a record was not taken, and its author only if it signed a record that is wrong at
    the head it names itself (anything else is damage of the file)."""
    config = machine.config  # the running segment's: its seat numbers name the author
    try:
        message = decode_message(frame, registry=TABLE_REGISTRY)
    except MessageError as exc:
        signer = None if exc.signed_by is None else config.seat_of(exc.signed_by)
        return f"the record does not decode: {exc}", signer
    violations = [e for e in events if isinstance(e, Violation) and e.culprit is not None]
    author = config.seat_of(message.author.raw)
    if message.kind in SIDE_KINDS:
        if violations:
            return violations[0].reason, violations[0].culprit
        return f"a {message.kind} that belongs to no certificate", None
    if message.prev == machine.head and violations:
        return violations[0].reason, author
    if violations and violations[0].culprit == author and message.prev in machine.history:
        return violations[0].reason, author  # e.g. provably out of turn where it says
    return "the record does not follow the chain (reordered, missing or foreign)", None


def _take(events: Sequence[TableEvent], report: AuditReport) -> None:
    for event in events:
        if isinstance(event, HandEnded):
            r = event.result
            report.hands.append(
                HandReport(
                    r.hand_number,
                    r.winners,
                    r.deltas,
                    r.reason,
                    event.aborted,
                    event.culprit,
                    event.silent,
                )
            )
            if event.culprit is not None:
                report.caught.append(Caught(event.culprit, r.note or r.reason, r.hand_number))
        elif isinstance(event, TableNotStarted):
            report.not_started = True
            if event.culprit is not None:
                report.caught.append(Caught(event.culprit, event.reason, 0))
        elif isinstance(event, SeatSilent):
            report.silences.append(event)
        elif isinstance(event, SegmentStarted):
            report.segments.append(event.config)
        elif isinstance(event, GameOver):
            report.complete = True
            report.winners = event.outcome.winners
