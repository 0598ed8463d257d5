"""``dealerless audit FILE``: re-check a whole game from its transcript, with no secret key."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence

from dealerless.client.commands.games import add_home, resolve_game_file
from dealerless.client.tui.safe_text import printable
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import game_spec
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
    """The report for a person: seats by name (counted from 1 where a number is shown), scores
    as "name +1", every name and reason escaped, no Python lists."""
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

    def reason(text: str) -> str:  # the rules' reasons count seats from 0
        return _SEAT.sub(lambda m: who(int(m.group(1))), printable(text, 300))

    spec = game_spec(report.config.game.game)
    lines = [
        f"{spec.title}, {report.config.players} seats: {', '.join(names)};"
        f" {report.records} records",
        f"table {report.config.table_id.hex()}, configuration {report.config.digest().hex()}",
    ]
    lines += [
        f"  seat {s['seat']}: {printable(str(s['name']), 24)}  {s['fingerprint']}"  # from 1
        for s in report.seats()
    ]
    for hand in report.hands:
        how = "voided" if hand.aborted else f"won by {seats(hand.winners)}"
        lines.append(
            f"hand {hand.hand}: {how} ({reason(hand.reason)});"
            f" {spec.score_kind}: {scores(hand.deltas, True)}"
        )
    for caught in report.caught:
        lines.append(
            f"caught: {who(caught.culprit)} in hand {caught.hand}: {reason(caught.reason)}"
            " (evidence checked)"
        )
    for silence in report.silences:
        lines.append(f"silent: {who(silence.seat)} in hand {silence.hand} ({silence.phase})")
    if report.failure is not None:
        signer = "nobody (damage of the file)" if report.culprit is None else who(report.culprit)
        lines.append(
            f"DAMAGED at record {report.failure_record}: {reason(report.failure)}"
            f" (signed by: {signer})"
        )
    else:
        state = {
            "clean": "complete game",
            "cheat": "a cheat was caught" + ("" if report.complete else "; game not finished"),
            "incomplete": "the table never started"
            if report.not_started
            else "incomplete: the transcript stops before the end",
        }[str(report.verdict)]
        winners = f"; winners {seats(report.winners)}" if report.complete else ""
        lines.append(f"verified: {state}; standings {scores(report.standings, False)}{winners}")
    return "\n".join(lines)


_SEAT = re.compile(r"\bseat (\d+)\b")


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
    except IsADirectoryError:
        print(
            f"dealerless audit: {args.file} is a folder; give a transcript file (.dlt) in it, "
            "or a number from `dealerless games`",
            file=sys.stderr,
        )
        return 2
    except (TranscriptError, ConfigError, OSError) as exc:
        print(f"dealerless audit: {args.file}: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a crafted header: say what, never a traceback
        print(
            f"dealerless audit: {args.file}: unreadable: {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return 1
    report = audit_records(config, frames)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(_text(report))
    return report.exit_status
