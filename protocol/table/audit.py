"""Offline audit of a whole game from its transcript, with no secret key.

Every record is replayed through an observer :class:`TableMachine`: signatures, the hash chain,
the order of writers, every rule of the game and every zero-knowledge proof are checked again.
The report gives each hand's result and the final standing, every cheat that the table caught
(with its evidence re-checked here), or the first record that does not check and its author.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dealerless.protocol.messages import MessageError, decode_message
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.events import GameOver, HandEnded, Violation
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.machine import TableMachine


@dataclass
class HandReport:
    hand: int
    winners: tuple[int, ...]
    deltas: tuple[int, ...]
    reason: str
    aborted: bool


@dataclass
class AuditReport:
    config: TableConfig
    records: int
    hands: list[HandReport] = field(default_factory=list)
    caught: list[Violation] = field(default_factory=list)  # cheats the table settled
    failure: str | None = None  # the first record that does not check
    failure_record: int | None = None
    culprit: int | None = None
    complete: bool = False  # the game reached its end
    standings: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    state_hash: bytes = b""

    @property
    def ok(self) -> bool:
        return self.failure is None

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "complete": self.complete,
            "game": self.config.game.game,
            "players": self.config.players,
            "seats": [s.name for s in self.config.seats],
            "records": self.records,
            "hands": [
                {
                    "hand": h.hand,
                    "winners": list(h.winners),
                    "deltas": list(h.deltas),
                    "reason": h.reason,
                    "aborted": h.aborted,
                }
                for h in self.hands
            ],
            "caught": [{"culprit": v.culprit, "reason": v.reason} for v in self.caught],
            "standings": list(self.standings),
            "winners": list(self.winners),
            "failure": self.failure,
            "failure_record": self.failure_record,
            "culprit": self.culprit,
            "state_hash": self.state_hash.hex(),
        }


def audit_records(config: TableConfig, records: Sequence[bytes]) -> AuditReport:
    report = AuditReport(config, len(records))
    machine = TableMachine(config, None, replay=True)
    for number, frame in enumerate(records):
        before = len(machine.records)
        machine._receive(frame)
        machine.votes.check_certificates()
        events = machine.take_events()
        violations = [e for e in events if isinstance(e, Violation)]
        accepted = len(machine.records) > before or frame in machine.records
        if not accepted and not machine._is_pending_vote(frame):
            report.failure_record = number
            if violations:
                report.failure = violations[0].reason
                report.culprit = violations[0].culprit
            else:
                report.failure = "the record does not follow the chain"
                report.culprit = _author(config, frame)
            break
        report.caught.extend(v for v in violations if v.culprit is not None)
        for event in events:
            if isinstance(event, HandEnded):
                r = event.result
                report.hands.append(
                    HandReport(r.hand_number, r.winners, r.deltas, r.reason, event.aborted)
                )
            elif isinstance(event, GameOver):
                report.complete = True
                report.winners = event.outcome.winners
    report.standings = machine.engine.scores()
    report.state_hash = machine.state_hash()
    if report.complete and machine.engine.outcome is not None:
        report.standings = machine.engine.outcome.standings
    return report


def _author(config: TableConfig, frame: bytes) -> int | None:
    try:
        message = decode_message(frame, registry=TABLE_REGISTRY)
    except MessageError:
        return None
    return config.seat_of(message.author.raw)
