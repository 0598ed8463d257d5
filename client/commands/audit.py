"""``dealerless audit FILE``: re-check a whole game from its transcript, with no secret key."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence

from dealerless.client.tui.safe_text import printable
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import game_spec
from dealerless.protocol.table.audit import AuditReport, audit_records
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.transcript import TranscriptError, TranscriptReader

HELP = "re-check a game transcript offline: signatures, chain, rules, every proof"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a transcript written by a node or by simulate")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def read_transcript(path: str) -> tuple[TableConfig, list[bytes]]:
    """Raises TranscriptError or ConfigError with a message that says what is wrong."""
    with TranscriptReader(path) as reader:
        config = TableConfig.from_wire(reader.header.config)
        frames = [record.frame for record in reader.records()]
    return config, frames


def _text(report: AuditReport) -> str:
    """The report for a person: seats by name, scores as "name +1", no Python lists."""
    names = [printable(s.name, 24) for s in report.config.seats]

    def who(seat: int | None) -> str:
        if seat is None or not 0 <= seat < len(names):
            return "nobody" if seat is None else f"seat {seat + 1}"
        return names[seat]

    def seats(numbers: Sequence[int]) -> str:
        return ", ".join(who(s) for s in numbers) or "nobody"

    def scores(values: Sequence[int], signed: bool) -> str:
        if signed:
            return ", ".join(f"{who(s)} {v:+d}" for s, v in enumerate(values) if v) or "no change"
        return ", ".join(f"{who(s)} {v}" for s, v in enumerate(values))

    spec = game_spec(report.config.game.game)
    lines = [
        f"{spec.title}, {report.config.players} seats: {', '.join(names)}; {report.records} records"
    ]
    for hand in report.hands:
        how = "voided" if hand.aborted else f"won by {seats(hand.winners)}"
        reason = _SEAT.sub(lambda m: who(int(m.group(1))), printable(hand.reason, 200))
        lines.append(
            f"hand {hand.hand}: {how} ({reason}); {spec.score_kind}: {scores(hand.deltas, True)}"
        )
    for caught in report.caught:
        reason = _SEAT.sub(lambda m: who(int(m.group(1))), printable(caught.reason, 200))
        lines.append(f"caught: {who(caught.culprit)}: {reason} (evidence checked)")
    if report.failure is not None:
        culprit = "unknown" if report.culprit is None else who(report.culprit)
        failure = printable(report.failure, 300)
        lines.append(f"FAILED at record {report.failure_record}: {failure} (culprit: {culprit})")
    else:
        state = "complete game" if report.complete else "game not finished"
        standing = scores(report.standings, False)
        winners = f"; winners {seats(report.winners)}" if report.complete else ""
        lines.append(f"verified: {state}; standings {standing}{winners}")
    return "\n".join(lines)


_SEAT = re.compile(r"\bseat (\d+)\b")  # the rules' reasons count seats from 0


def run(args: argparse.Namespace) -> int:
    try:
        config, frames = read_transcript(args.file)
    except FileNotFoundError:
        print(f"dealerless audit: no such file: {args.file}", file=sys.stderr)
        return 2
    except (TranscriptError, ConfigError, OSError) as exc:
        print(f"dealerless audit: {args.file}: {exc}", file=sys.stderr)
        return 1
    report = audit_records(config, frames)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(_text(report))
    return 0 if report.ok else 1
