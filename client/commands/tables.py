"""``dealerless tables``: this node's unfinished tables, from the store (what ``resume`` can
carry on). A record that cannot be read is named on stderr and the exit code is 1."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dealerless.node.identity import resolve_home
from dealerless.node.store import list_tables

HELP = "list this node's unfinished tables (what `resume` can carry on)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        default=None,
        help="data directory (default: $DEALERLESS_HOME, else the platform's user data dir)",
    )
    parser.add_argument("--all", action="store_true", help="finished tables too")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    found, problems = list_tables(resolve_home(args.home), unfinished_only=not args.all)
    rows: list[dict[str, Any]] = [
        {
            "table_id": meta.table_id,
            "game": meta.game,
            "seats": meta.seats,
            "role": meta.role,
            "name": meta.name,
            "finished": meta.finished,
        }
        for _, meta in found
    ]
    if args.json:
        print(json.dumps({"tables": rows, "errors": [str(p) for p in problems]}, indent=1))
    elif not rows and not problems:
        print("no unfinished tables" if not args.all else "no tables", file=sys.stderr)
    else:
        for row in rows:
            state = " (finished)" if row["finished"] else ""
            print(
                f"{row['table_id'][:12]}  {row['game']:<16} {row['seats']} seats  "
                f"{row['role']:<4}  {row['name']}{state}"
            )
    for problem in problems:
        print(f"dealerless tables: {problem}", file=sys.stderr)
    return 1 if problems else 0
