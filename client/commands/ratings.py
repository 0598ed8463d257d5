"""``dealerless ratings``: the players this node has played with, ranked from audited
transcripts only (client/leaderboard.py says how); ``--import FILES`` brings in others'
transcripts (a club's shared folder) and counts each game once, whoever brings it."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from dealerless.client.commands.games import add_home
from dealerless.client.leaderboard import (
    Board,
    NotCounted,
    audited_result,
    build_board,
    transcript_files,
)
from dealerless.client.tui.safe_text import printable
from dealerless.node.identity import resolve_home
from dealerless.node.store_db import DB_NAME, ResultRow, StoreDB
from dealerless.protocol.rules.registry import game_names

HELP = "rank the players met here from verified transcripts (--import: others' games)"
IMPORT_DIR = "imported"  # <home>/imported/<table id>.dlt: the evidence of imported games
MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024  # far above any game; a bigger file is refused unread
EPILOG = (
    "exit status: 0 done; 1 a file given to --import was refused (named on stderr; every other"
    " file is still imported)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game", choices=game_names(), metavar="GAME", help=f"one of: {', '.join(game_names())}"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--import",
        dest="import_files",
        nargs="+",
        metavar="FILE",
        default=[],
        help="transcripts, or folders searched for .dlt files, to add to the store first",
    )
    add_home(parser)
    parser.epilog = EPILOG


@dataclass
class Outcome:
    not_counted: list[tuple[str, str]] = field(default_factory=list)  # (file, why)
    imported: list[tuple[str, str, str]] = field(default_factory=list)  # (file, table, status)
    refused: int = 0


def _count_local_games(db: StoreDB, outcome: Outcome) -> None:
    """Audit the finished games played here that are not counted yet."""
    for game in db.games():
        if db.result(game.table_id) is not None:
            continue
        try:
            row = audited_result(Path(game.transcript), game.finished_at)
        except NotCounted as exc:
            outcome.not_counted.append((game.transcript, str(exc)))
            continue
        if row.table_id != game.table_id:
            outcome.not_counted.append(
                (game.transcript, f"holds table {row.table_id[:12]}, not {game.table_id[:12]}")
            )
            continue
        db.put_result(row)


def _import(db: StoreDB, home: Path, names: list[str], outcome: Outcome) -> None:
    """Copy each file into the store first, audit the copy (so what is counted is what is
    kept), then record it; files are recorded in table id order with one time stamp, so the
    rating order does not depend on the order of FILES."""
    folder = home / IMPORT_DIR
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    now = time.time()
    audited = []
    for path in transcript_files(names):
        try:
            copy = _copy_in(path, folder)
        except NotCounted as exc:
            outcome.refused += 1
            outcome.imported.append((str(path), "", f"refused: {exc}"))
            continue
        try:
            row = audited_result(copy, now)
        except NotCounted as exc:
            copy.unlink()
            outcome.refused += 1
            outcome.imported.append((str(path), "", f"refused: {exc}"))
            continue
        audited.append((row, copy, path))
    for row, copy, path in sorted(audited, key=lambda item: (item[0].table_id, str(item[2]))):
        with db.transaction():  # a second import running at the same time waits here
            _record(db, folder, row, copy, path, outcome)


def _record(
    db: StoreDB, folder: Path, row: ResultRow, copy: Path, path: Path, outcome: Outcome
) -> None:
    """Count one audited import, unless its table is counted already."""
    known = db.result(row.table_id)
    if known is not None:
        copy.unlink()
        if known.state_hash == row.state_hash:
            outcome.imported.append((str(path), row.table_id, "already counted"))
        else:
            outcome.refused += 1
            outcome.imported.append(
                (
                    str(path),
                    row.table_id,
                    "refused: a different result for a table already counted"
                    f" (from {known.source})",
                )
            )
        return
    kept = folder / f"{row.table_id}.dlt"
    os.replace(copy, kept)
    db.put_result(replace(row, source=str(kept)))  # the kept copy is the evidence
    outcome.imported.append((str(path), row.table_id, "counted"))


def _copy_in(path: Path, folder: Path) -> Path:
    try:
        with path.open("rb") as source:
            data = source.read(MAX_TRANSCRIPT_BYTES + 1)
    except FileNotFoundError as exc:
        raise NotCounted("no such file") from exc
    except OSError as exc:
        raise NotCounted(f"cannot read it: {exc}") from exc
    if len(data) > MAX_TRANSCRIPT_BYTES:
        raise NotCounted(f"larger than {MAX_TRANSCRIPT_BYTES} bytes")
    copy = folder / f".incoming-{secrets.token_hex(8)}.dlt"
    copy.write_bytes(data)
    return copy


def _text(board: Board, game: str | None) -> str:
    scope = f"{game}, " if game else ""
    lines = [f"{scope}{board.games} verified games, {len(board.players)} players"]
    if board.players:
        lines.append(
            f"{'rank':>4}  {'name':<16} {'fingerprint':<29} {'games':>5} {'wins':>4}"
            f" {'rating':>7} {'chips':>6}"
        )
    for rank, p in enumerate(board.players, 1):
        chips = "" if p.chips is None else f"{p.chips:+d}"
        lines.append(
            f"{rank:>4}  {printable(p.name, 16):<16} {p.fingerprint:<29} {p.games:>5}"
            f" {p.wins:>4} {p.rating:>7.2f} {chips:>6}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    home = resolve_home(args.home)
    outcome = Outcome()
    results = []
    if args.import_files or (home / DB_NAME).exists():
        with StoreDB(home) as db:
            _count_local_games(db, outcome)
            if args.import_files:
                _import(db, home, args.import_files, outcome)
            results = db.results()
    board = build_board(results, args.game)
    if args.json:
        doc = {
            "game": args.game,
            "games": board.games,
            "players": [p.to_json(rank) for rank, p in enumerate(board.players, 1)],
            "imported": [
                {"file": f, "table_id": t or None, "status": s} for f, t, s in outcome.imported
            ],
            "not_counted": [{"file": f, "reason": r} for f, r in outcome.not_counted],
        }
        print(json.dumps(doc, indent=1))
    else:
        for file, _table, status in outcome.imported:
            print(f"import {printable(file, 200)}: {printable(status, 300)}", file=sys.stderr)
        for file, reason in outcome.not_counted:
            print(
                f"not counted: {printable(file, 200)}: {printable(reason, 300)}", file=sys.stderr
            )
        print(_text(board, args.game))
    return 1 if outcome.refused else 0
