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
    AuditedCopy,
    Board,
    NotCounted,
    audited_copy,
    audited_result,
    build_board,
    transcript_files,
)
from dealerless.client.table_copies import Relation, Span, compare, read_span
from dealerless.client.tui.safe_text import printable
from dealerless.node.identity import resolve_home
from dealerless.node.store_db import DB_NAME, ResultRow, StoreDB
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import game_names
from dealerless.protocol.transcript import TranscriptError

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
    rating order does not depend on the order of FILES. Of several files of one table the one
    that covers it best is offered first (client/table_copies.py), so it is the one counted."""
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
            result = audited_copy(copy, now)
        except NotCounted as exc:
            copy.unlink()
            outcome.refused += 1
            outcome.imported.append((str(path), "", f"refused: {exc}"))
            continue
        audited.append((result, copy, path))

    def order(item: tuple[AuditedCopy, Path, Path]) -> tuple[str, int, int, str]:
        result, _, path = item
        end, start = result.span.coverage
        return (result.row.table_id, -end, -start, str(path))

    for result, copy, path in sorted(audited, key=order):
        with db.transaction():  # a second import running at the same time waits here
            _record(db, folder, result, copy, path, outcome)


def _record(
    db: StoreDB, folder: Path, result: AuditedCopy, copy: Path, path: Path, outcome: Outcome
) -> None:
    """Count one audited import, unless its table is counted already from a file that covers
    it as well or better."""
    row = result.row
    known = db.result(row.table_id)
    if known is None:
        _keep(db, folder, row, copy)
        outcome.imported.append((str(path), row.table_id, "counted"))
        return
    status, counted = _compare(known, result)
    if counted is not None:  # this file covers the table better: it takes the other's place
        _keep(db, folder, replace(row, recorded_at=known.recorded_at), copy, again=True)
        outcome.imported.append(
            (
                str(path),
                row.table_id,
                f"counted: covers the table better ({result.span.describe()}) than the file"
                f" counted before ({counted.describe()}), which it replaces",
            )
        )
        return
    copy.unlink()
    if status.startswith("refused"):
        outcome.refused += 1
    outcome.imported.append((str(path), row.table_id, status))


def _compare(known: ResultRow, result: AuditedCopy) -> tuple[str, Span | None]:
    """The status of a file of a table counted before; with the counted file's span if the new
    file should replace it."""
    try:
        counted = read_span(Path(known.source))
    except (OSError, TranscriptError, ConfigError) as exc:
        if known.state_hash == result.row.state_hash:
            return "already counted", None
        return (
            "refused: a different result for a table already counted"
            f" (from {known.source}, which cannot be read to compare: {exc})"
        ), None
    relation = compare(result.span, counted)
    if relation is Relation.BETTER:
        return "", counted
    return _not_better(known, result, counted, relation), None


def _not_better(known: ResultRow, result: AuditedCopy, counted: Span, relation: Relation) -> str:
    if relation is Relation.SAME or (
        known.state_hash == result.row.state_hash and relation is not Relation.WORSE
    ):
        return "already counted"  # every seat's copy of a game ends in the same state
    if relation is Relation.CONFLICT:
        return f"refused: a different result for a table already counted (from {known.source})"
    if relation is Relation.DISJOINT:
        return (
            f"set aside: no record in common with the file counted for this table"
            f" ({known.source}, {counted.describe()}; this file {result.span.describe()}),"
            " so the two cannot be matched; the counted one stays"
        )
    return (
        f"already counted from a file that covers the table better ({known.source},"
        f" {counted.describe()}; this file {result.span.describe()})"
    )


def _keep(db: StoreDB, folder: Path, row: ResultRow, copy: Path, *, again: bool = False) -> None:
    """Record ``row`` with the kept copy as its evidence (inside the caller's transaction: the
    file is moved last, so a move that fails leaves the store as it was)."""
    kept = folder / f"{row.table_id}.dlt"
    counted = replace(row, source=str(kept))
    if again:
        db.replace_result(counted)
    else:
        db.put_result(counted)
    os.replace(copy, kept)


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
            print(f"not counted: {printable(file, 200)}: {printable(reason, 300)}", file=sys.stderr)
        print(_text(board, args.game))
    return 1 if outcome.refused else 0
