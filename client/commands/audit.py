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
EPILOG = (
    "exit status: 0 a complete, clean game; 1 a damaged or forged file (a record that does not"
    " check); 2 no such file; 3 an incomplete game (truncated, result signatures missing, or the"
    " table never started); 4 the table caught a cheat"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", help="a transcript file, or the number of a game in `dealerless games`"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_home(parser)
    parser.epilog = EPILOG


def read_transcript(path: str) -> tuple[TableConfig, list[bytes]]:
    """Raises TranscriptError or ConfigError with a message that says what is wrong."""
    with TranscriptReader(path) as reader:
        config = TableConfig.from_wire(reader.header.config)
        frames = [record.frame for record in reader.records()]
    return config, frames


def _text(report: AuditReport) -> str:
    names = [s.name for s in report.config.seats]
    lines = [
        f"{report.config.game.game}, {report.config.players} seats; {report.records} records",
        f"table {report.config.table_id.hex()}, configuration {report.config.digest().hex()}",
    ]
    lines += [f"  seat {s['seat']}: {s['name']}  {s['fingerprint']}" for s in report.seats()]
    for hand in report.hands:
        flag = " (aborted)" if hand.aborted else ""
        lines.append(
            f"hand {hand.hand}{flag}: winners {list(hand.winners)}, change {list(hand.deltas)}"
            f" - {hand.reason}"
        )
    for caught in report.caught:
        lines.append(
            f"caught: {names[caught.culprit]} in hand {caught.hand} - {caught.reason}"
            " (evidence checked)"
        )
    for silence in report.silences:
        lines.append(f"silent: {names[silence.seat]} in hand {silence.hand} ({silence.phase})")
    if report.failure is not None:
        who = "nobody (damage of the file)" if report.culprit is None else names[report.culprit]
        lines.append(
            f"DAMAGED at record {report.failure_record}: {report.failure} (signed by: {who})"
        )
    else:
        state = {
            "clean": "complete game",
            "cheat": "a cheat was caught" + ("" if report.complete else "; game not finished"),
            "incomplete": "the table never started"
            if report.not_started
            else "incomplete: the transcript stops before the end",
        }[str(report.verdict)]
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
    except Exception as exc:  # a crafted header: say what, never a traceback
        print(f"dealerless audit: {args.file}: unreadable: {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return 1
    report = audit_records(config, frames)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(_text(report))
    return report.exit_status
