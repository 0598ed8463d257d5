"""``dealerless spec check DIR``: the conformance runner (spec/conformance.md).

Points at a folder of transcripts another implementation wrote: every ``*.dlt`` file is audited,
every frame validated against the JSON Schema of spec/schema/, and the audit compared with the
``NAME.audit.json`` beside it. One line per file: ``OK`` or the first problem, naming the record,
its kind and the field. The work is in client/spec_check.py (imported only when run).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HELP = "check a folder of transcripts against the spec: schema, audit, expected audit JSON"
EPILOG = (
    "exit status: 0 every file passes; 1 a file fails (its line says where and which field);"
    " 2 the folder or the schema cannot be read"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser(
        "check",
        help="check every transcript (*.dlt) in DIR",
        description="Check every transcript (*.dlt) in DIR: each frame against the message "
        "schema, the full audit, and NAME.audit.json beside a file when there is one.",
        epilog=EPILOG,
    )
    check.add_argument("dir", metavar="DIR", help="a folder of transcript files")
    check.add_argument(
        "--schema",
        metavar="FILE",
        default=None,
        help="validate frames against this JSON Schema (default: the one spec/schema/ holds, "
        "built in)",
    )
    parser.epilog = EPILOG


def run(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    if not folder.is_dir():
        what = "does not exist" if not folder.exists() else "is not a folder"
        print(
            f"dealerless spec check: {folder} {what}; give a folder of .dlt files", file=sys.stderr
        )
        return 2
    files = sorted(p for p in folder.iterdir() if p.suffix == ".dlt" and p.is_file())
    if not files:
        print(f"dealerless spec check: {folder} holds no transcript (*.dlt)", file=sys.stderr)
        return 2
    schema = None
    if args.schema is not None:
        try:
            schema = json.loads(Path(args.schema).read_text())
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            print(f"dealerless spec check: schema {args.schema}: {exc}", file=sys.stderr)
            return 2
    from dealerless.client.spec_check import Checker

    try:
        checker = Checker(schema)
    except Exception as exc:  # a foreign schema file that is no JSON Schema
        print(f"dealerless spec check: schema {args.schema}: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    failed = 0
    for path in files:
        result = checker.check_file(path)
        failed += result.problem is not None
        print(result.line(), flush=True)
    seconds = time.monotonic() - started
    print(
        f"{len(files) - failed} of {len(files)} files pass ({seconds:.1f} s)",
        file=sys.stderr,
    )
    return 1 if failed else 0
