"""The node's SQLite store: ``<home>/store.sqlite`` (stdlib ``sqlite3``, WAL, mode 0600).

Tables:

* ``tables``: one row per table this home knows: its meta (JSON, see
  :class:`~dealerless.node.store.TableMeta`), the signed configuration (msgpack), whether it
  is finished, when it was created and last changed (wall-clock seconds);
* ``shares``: this seat's key share per table and hand, written (and synced) before anything
  that depends on it is sent, deleted once the hand's result is signed or the store prunes it;
* ``games``: the history of finished games (date, game, players, result, transcript file);
* ``results`` (schema 2): the audited outcome of every game ``dealerless ratings`` counts, one
  row per table id (the seats' fingerprints and names, standings, winners, the audited final
  state hash), whether the game was played here or imported from someone else's transcript.

The transcripts stay files (protocol/transcript.py format, ``.dlt``): they are the exchange
and audit format. The schema version is ``PRAGMA user_version``; :data:`MIGRATIONS` brings an
older store up to date inside one transaction, and a store written by a newer dealerless is
refused with a message that says so. Every row a reader cannot use raises :class:`StoreError`
naming the table: nothing is skipped silently.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["DB_NAME", "SCHEMA_VERSION", "GameRow", "ResultRow", "StoreDB", "StoreError"]

DB_NAME = "store.sqlite"
BUSY_TIMEOUT_MS = 10_000

MIGRATIONS: tuple[str, ...] = (
    # 1: tables, key shares, finished games
    """
    CREATE TABLE tables (
        table_id TEXT PRIMARY KEY,
        meta TEXT NOT NULL,
        config BLOB,
        finished INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL,
        updated REAL NOT NULL
    );
    CREATE INDEX tables_by_update ON tables (finished, updated);
    CREATE TABLE shares (
        table_id TEXT NOT NULL,
        hand INTEGER NOT NULL,
        share BLOB NOT NULL,
        PRIMARY KEY (table_id, hand)
    );
    CREATE TABLE games (
        table_id TEXT PRIMARY KEY,
        finished_at REAL NOT NULL,
        game TEXT NOT NULL,
        players TEXT NOT NULL,
        result TEXT NOT NULL,
        transcript TEXT NOT NULL,
        verified INTEGER NOT NULL
    );
    """,
    # 2: audited results for the leaderboard (client/leaderboard.py)
    """
    CREATE TABLE results (
        table_id TEXT PRIMARY KEY,
        state_hash TEXT NOT NULL,
        recorded_at REAL NOT NULL,
        game TEXT NOT NULL,
        options TEXT NOT NULL,
        seats TEXT NOT NULL,
        standings TEXT NOT NULL,
        winners TEXT NOT NULL,
        source TEXT NOT NULL
    );
    CREATE INDEX results_in_order ON results (recorded_at, table_id);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(Exception):
    """The store cannot be used as it is; the message names the file or the table."""


@dataclass(frozen=True)
class GameRow:
    table_id: str
    finished_at: float
    game: str
    players: tuple[str, ...]
    result: str
    transcript: str
    verified: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(self.finished_at)),
            "finished_at": self.finished_at,
            "game": self.game,
            "players": list(self.players),
            "result": self.result,
            "file": self.transcript,
            "verified": self.verified,
        }


@dataclass(frozen=True)
class ResultRow:
    """One audited game as the leaderboard counts it (``seats``: (fingerprint, name) each)."""

    table_id: str
    state_hash: str
    recorded_at: float
    game: str
    options: dict[str, Any]
    seats: tuple[tuple[str, str], ...]
    standings: tuple[int, ...]
    winners: tuple[int, ...]
    source: str


def _create_private(path: Path) -> None:
    """Create the database file 0600 before SQLite opens it (it holds key shares)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


class StoreDB:
    """One connection to a home's store (open, use, :meth:`close`)."""

    def __init__(self, home: Path) -> None:
        self.path = home / DB_NAME
        try:
            _create_private(self.path)
            self.db = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
            )
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the store {self.path}: {exc}") from exc
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")  # a key share is durable before it is used
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise StoreError(f"the store {self.path} is damaged ({exc}); move it away") from exc

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> StoreDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- schema
    def _migrate(self) -> None:
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the store {self.path} has schema version {version}, newer than this "
                f"dealerless understands ({SCHEMA_VERSION}): upgrade dealerless"
            )
        if version == SCHEMA_VERSION:
            return
        imported: list[Path] = []
        with self.transaction():
            # Re-read inside the write lock: another process may have migrated meanwhile.
            version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
            for number in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        self.db.execute(statement)
            if version == 0:
                imported = self._import_directories()
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        for folder in imported:  # committed: the old files (key shares!) can go
            _retire_directory_files(folder)

    def _import_directories(self) -> list[Path]:
        """The store before SQLite: ``tables/<id>/meta.json``, ``config.bin``,
        ``secrets/hand-<n>.key`` and ``transcript.dls``. Rows are copied as they are (a bad
        one is reported, naming its table, when it is read); the transcript is renamed to the
        one extension, ``.dlt``."""
        root = self.path.parent / "tables"
        done: list[Path] = []
        if not root.is_dir():
            return done
        for folder in sorted(root.iterdir()):
            meta_file = folder / "meta.json"
            if not meta_file.is_file():
                continue
            try:
                meta = meta_file.read_text(encoding="utf-8")
                config_file = folder / "config.bin"
                config = config_file.read_bytes() if config_file.is_file() else None
                shares: dict[int, bytes] = {}
                for share_file in (folder / "secrets").glob("hand-*.key"):
                    number = share_file.stem.split("-", 1)[1]
                    if number.isdigit():
                        shares[int(number)] = share_file.read_bytes()
            except (OSError, UnicodeDecodeError) as exc:
                raise StoreError(
                    f"table {folder.name[:12]}: cannot import {folder}: {exc}"
                ) from exc
            stamp = meta_file.stat().st_mtime
            try:
                finished = json.loads(meta).get("finished") is True
            except (ValueError, AttributeError):
                finished = False  # damaged: said, naming the table, when the row is read
            self.db.execute(
                "INSERT OR IGNORE INTO tables (table_id, meta, config, finished, created, updated)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (folder.name, meta, config, int(finished), stamp, stamp),
            )
            for hand, share in shares.items():
                self.put_share(folder.name, hand, share)
            old, new = folder / "transcript.dls", folder / "transcript.dlt"
            if old.exists() and not new.exists():
                old.rename(new)
            done.append(folder)
        return done

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ---------------------------------------------------------------- tables
    def has_table(self, table_id: str) -> bool:
        row = self.db.execute("SELECT 1 FROM tables WHERE table_id = ?", (table_id,)).fetchone()
        return row is not None

    def put_meta(self, table_id: str, meta: dict[str, Any], finished: bool) -> None:
        now = time.time()
        self.db.execute(
            "INSERT INTO tables (table_id, meta, finished, created, updated)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET"
            " meta = excluded.meta, finished = excluded.finished, updated = excluded.updated",
            (table_id, json.dumps(meta, sort_keys=True), int(finished), now, now),
        )

    def get_meta(self, table_id: str) -> dict[str, Any]:
        row = self.db.execute("SELECT meta FROM tables WHERE table_id = ?", (table_id,)).fetchone()
        if row is None:
            raise StoreError(f"table {table_id[:12]} is not in the store {self.path}")
        return parse_meta(table_id, row[0])

    def touch(self, table_id: str) -> None:
        self.db.execute("UPDATE tables SET updated = ? WHERE table_id = ?", (time.time(), table_id))

    def put_config(self, table_id: str, blob: bytes) -> None:
        self.db.execute("UPDATE tables SET config = ? WHERE table_id = ?", (blob, table_id))

    def get_config(self, table_id: str) -> bytes | None:
        row = self.db.execute(
            "SELECT config FROM tables WHERE table_id = ?", (table_id,)
        ).fetchone()
        if row is None or row[0] is None:
            return None
        if not isinstance(row[0], bytes):
            raise StoreError(f"table {table_id[:12]}: the stored configuration is damaged")
        return row[0]

    def table_rows(self, *, unfinished_only: bool = False) -> list[tuple[str, str]]:
        """(table id, meta JSON) of every table, most recently changed first: one query."""
        where = " WHERE finished = 0" if unfinished_only else ""
        rows = self.db.execute(
            f"SELECT table_id, meta FROM tables{where} ORDER BY updated DESC"  # noqa: S608
        ).fetchall()
        return [(str(a), b) for a, b in rows]

    # ---------------------------------------------------------------- key shares
    def put_share(self, table_id: str, hand: int, share: bytes) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO shares (table_id, hand, share) VALUES (?, ?, ?)",
            (table_id, hand, share),
        )

    def shares(self, table_id: str) -> dict[int, bytes]:
        rows = self.db.execute(
            "SELECT hand, share FROM shares WHERE table_id = ?", (table_id,)
        ).fetchall()
        out: dict[int, bytes] = {}
        for hand, share in rows:
            if not isinstance(hand, int) or not isinstance(share, bytes):
                raise StoreError(f"table {table_id[:12]}: a stored key share is damaged")
            out[hand] = share
        return out

    def delete_shares(self, table_id: str, hand: int | None = None) -> int:
        """Delete one hand's share, or (``hand`` None) all of a table's; how many went."""
        if hand is None:
            cursor = self.db.execute("DELETE FROM shares WHERE table_id = ?", (table_id,))
        else:
            cursor = self.db.execute(
                "DELETE FROM shares WHERE table_id = ? AND hand = ?", (table_id, hand)
            )
        return cursor.rowcount

    def prune(self, *, older_than: float) -> int:
        """Delete the shares of finished tables and of tables unchanged since ``older_than``
        (wall-clock seconds): a game nobody resumed for that long will not be resumed."""
        cursor = self.db.execute(
            "DELETE FROM shares WHERE table_id IN"
            " (SELECT table_id FROM tables WHERE finished = 1 OR updated < ?)",
            (older_than,),
        )
        return cursor.rowcount

    # ---------------------------------------------------------------- finished games
    def put_game(self, row: GameRow) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO games"
            " (table_id, finished_at, game, players, result, transcript, verified)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                row.table_id,
                row.finished_at,
                row.game,
                json.dumps(list(row.players)),
                row.result,
                row.transcript,
                int(row.verified),
            ),
        )

    def games(self) -> list[GameRow]:
        """Finished games, oldest first (so numbers stay put as games are added)."""
        rows = self.db.execute(
            "SELECT table_id, finished_at, game, players, result, transcript, verified"
            " FROM games ORDER BY finished_at, table_id"
        ).fetchall()
        out = []
        for table_id, finished_at, game, players, result, transcript, verified in rows:
            try:
                names = json.loads(players)
                if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                    raise ValueError("players is not a list of names")
                out.append(
                    GameRow(
                        str(table_id),
                        float(finished_at),
                        str(game),
                        tuple(names),
                        str(result),
                        str(transcript),
                        bool(verified),
                    )
                )
            except (ValueError, TypeError) as exc:
                raise StoreError(
                    f"game of table {str(table_id)[:12]}: the stored record is damaged ({exc})"
                ) from exc
        return out

    # ---------------------------------------------------------------- audited results
    def put_result(self, row: ResultRow) -> None:
        """Insert an audited result; a table already counted is left as it is (the caller
        compares :meth:`result` first to tell a duplicate from a conflict)."""
        self._insert_result("INSERT OR IGNORE", row)

    def _insert_result(self, verb: str, row: ResultRow) -> None:
        self.db.execute(
            f"{verb} INTO results (table_id, state_hash, recorded_at, game, options,"
            " seats, standings, winners, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                row.table_id,
                row.state_hash,
                row.recorded_at,
                row.game,
                json.dumps(row.options, sort_keys=True),
                json.dumps([list(p) for p in row.seats]),
                json.dumps(list(row.standings)),
                json.dumps(list(row.winners)),
                row.source,
            ),
        )

    def replace_result(self, row: ResultRow) -> None:
        """Put ``row`` in place of the result counted for its table (a file that covers a club
        table better than the one counted before: client/table_copies.py)."""
        self._insert_result("INSERT OR REPLACE", row)

    _RESULT_COLUMNS = (
        "table_id, state_hash, recorded_at, game, options, seats, standings, winners, source"
    )

    def result(self, table_id: str) -> ResultRow | None:
        row = self.db.execute(
            f"SELECT {self._RESULT_COLUMNS} FROM results WHERE table_id = ?",  # noqa: S608
            (table_id,),
        ).fetchone()
        return None if row is None else _result_row(row)

    def results(self) -> list[ResultRow]:
        """Every counted game in the order ratings are computed: when it finished (or was
        imported), ties by table id."""
        rows = self.db.execute(
            f"SELECT {self._RESULT_COLUMNS} FROM results"  # noqa: S608
            " ORDER BY recorded_at, table_id"
        ).fetchall()
        return [_result_row(row) for row in rows]


def _retire_directory_files(folder: Path) -> None:
    for share_file in (folder / "secrets").glob("hand-*.key"):
        share_file.unlink()
    with contextlib.suppress(OSError):
        (folder / "secrets").rmdir()
    for name in ("meta.json", "config.bin"):
        with contextlib.suppress(FileNotFoundError):
            (folder / name).rename(folder / f"{name}.imported")


def parse_meta(table_id: str, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (ValueError, TypeError) as exc:
        raise StoreError(f"table {table_id[:12]}: the stored record is damaged ({exc})") from exc
    if not isinstance(data, dict):
        raise StoreError(f"table {table_id[:12]}: the stored record is damaged (not an object)")
    return data


def _result_row(row: tuple[Any, ...]) -> ResultRow:
    table_id, state_hash, recorded_at, game, options, seats, standings, winners, source = row
    try:
        opts = json.loads(options)
        pairs = json.loads(seats)
        scores = json.loads(standings)
        won = json.loads(winners)
        if not isinstance(opts, dict):
            raise ValueError("options is not an object")
        if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
            for p in pairs
        ):
            raise ValueError("seats is not a list of (fingerprint, name)")
        for name, numbers in (("standings", scores), ("winners", won)):
            if not isinstance(numbers, list) or not all(
                isinstance(n, int) and not isinstance(n, bool) for n in numbers
            ):
                raise ValueError(f"{name} is not a list of whole numbers")
        if len(scores) != len(pairs) or not all(0 <= w < len(pairs) for w in won):
            raise ValueError("standings or winners do not match the seats")
        return ResultRow(
            str(table_id),
            str(state_hash),
            float(recorded_at),
            str(game),
            opts,
            tuple((p[0], p[1]) for p in pairs),
            tuple(scores),
            tuple(won),
            str(source),
        )
    except (ValueError, TypeError) as exc:
        raise StoreError(
            f"result of table {str(table_id)[:12]}: the stored record is damaged ({exc})"
        ) from exc
