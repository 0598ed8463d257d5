"""``dealerless audit FILE``: re-check a whole game from its transcript, with no secret key."""

from __future__ import annotations

import argparse
import json
import sys

from dealerless.client.commands.games import add_home, resolve_game_file
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.table.audit import AuditReport, audit_records
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.transcript import TranscriptError, TranscriptReader

HELP = "re-check a game transcript offline: signatures, chain, rules, every proof"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", help="a transcript file, or the number of a game in `dealerless games`"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_home(parser)


def read_transcript(path: str) -> tuple[TableConfig, list[bytes]]:
    """Raises TranscriptError or ConfigError with a message that says what is wrong."""
    with TranscriptReader(path) as reader:
        config = TableConfig.from_wire(reader.header.config)
        frames = [record.frame for record in reader.records()]
    return config, frames


def _text(report: AuditReport) -> str:
    names = [s.name for s in report.config.seats]
    lines = [
        f"{report.config.game.game}, {report.config.players} seats: {', '.join(names)};"
        f" {report.records} records"
    ]
    for hand in report.hands:
        flag = " (aborted)" if hand.aborted else ""
        lines.append(
            f"hand {hand.hand}{flag}: winners {list(hand.winners)}, change {list(hand.deltas)}"
            f" - {hand.reason}"
        )
    for caught in report.caught:
        lines.append(f"caught: seat {caught.culprit} - {caught.reason} (evidence checked)")
    if report.failure is not None:
        who = "unknown" if report.culprit is None else f"seat {report.culprit}"
        lines.append(f"FAILED at record {report.failure_record}: {report.failure} (culprit: {who})")
    else:
        state = "complete game" if report.complete else "game not finished"
        lines.append(f"verified: {state}; standing {list(report.standings)}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        args.file = str(resolve_game_file(args.file, getattr(args, "home", None)))
    except ValueError as exc:
        print(f"dealerless audit: {exc}", file=sys.stderr)
        return 2
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
