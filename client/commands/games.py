"""``dealerless games``: the finished games saved in the data directory (every game a node
plays is saved there automatically). ``dealerless replay N`` and ``dealerless audit N`` take
a game by its number in this list."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dealerless.node.identity import resolve_home
from dealerless.node.store import GameRow, list_games

HELP = "list the finished games saved here (replay N / audit N take a number from it)"


def add_home(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        default=None,
        help="data directory (default: $DEALERLESS_HOME, else the platform's user data dir)",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_home(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def resolve_game_file(text: str, home: str | None) -> Path:
    """A transcript file named on the command line: a path, or the number of a game in
    ``dealerless games`` (a number that is also an existing file name is the file).
    ValueError with what was wrong."""
    path = Path(text)
    if not text.isdigit() or path.exists():
        return path
    games = list_games(resolve_home(home))
    number = int(text)
    if not 1 <= number <= len(games):
        have = f"1..{len(games)}" if games else "none saved yet"
        raise ValueError(f"no game number {number} in `dealerless games` ({have})")
    return Path(games[number - 1].transcript)


def _line(number: int, row: GameRow) -> str:
    doc = row.to_json()
    flag = "" if row.verified else "  (NOT verified)"
    return (
        f"{number:>3}  {doc['date']}  {row.game:<16} {', '.join(row.players)}  "
        f"{row.result}  {row.transcript}{flag}"
    )


def run(args: argparse.Namespace) -> int:
    games = list_games(resolve_home(args.home))
    if args.json:
        docs = [{"number": n, **row.to_json()} for n, row in enumerate(games, 1)]
        print(json.dumps({"games": docs}, indent=1))
        return 0
    if not games:
        print("no finished games saved yet", file=sys.stderr)
        return 0
    for number, row in enumerate(games, 1):
        print(_line(number, row))
    return 0
