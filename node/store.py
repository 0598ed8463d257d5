"""A table's state on disk: its row in the SQLite store (node/store_db.py) and its transcript
file.

* the store (``<home>/store.sqlite``) holds the meta (role, where to connect or listen, the
  host key, name, bot flag, transcript path, ...), the signed configuration once all seats are
  filled, this seat's key share per hand (written before anything that depends on it is sent,
  deleted once the hand's result is signed by every seat; shares of finished or long-abandoned
  tables are pruned), and the history of finished games;
* ``<home>/tables/<table id hex>/transcript.dlt`` (or ``--transcript PATH``): the
  protocol/transcript.py format, one record per accepted chain element, appended and fsynced
  before the node acts on it. Transcripts stay files: they are what players exchange and audit.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from dealerless.node.portable import fsync_directory
from dealerless.node.store_db import GameRow, StoreDB, StoreError, parse_meta
from dealerless.node.wire import decode_plain, encode
from dealerless.protocol.table import TableConfig
from dealerless.protocol.transcript import TranscriptReader, TranscriptWriter

__all__ = [
    "TRANSCRIPT_SUFFIX",
    "GameRow",
    "StoreError",
    "TableMeta",
    "TableStore",
    "find_tables",
    "list_games",
    "list_tables",
]

TRANSCRIPT_SUFFIX = ".dlt"  # the one extension of a transcript file
PRUNE_AFTER_S = 30 * 24 * 3600  # shares of a table untouched this long are deleted


@dataclass
class TableMeta:
    table_id: str  # hex
    role: str  # "host" or "join"
    address: str  # where to connect (join, or host via relay) / listen (host)
    port: int
    host_key: str  # hex
    relay: bool = False
    relay_fingerprint: str = ""
    name: str = ""
    bot: bool = False
    transcript: str = ""
    game: str = ""
    seats: int = 0
    invite: str = ""
    step_timeout_ms: int = 60_000
    finished: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    listen_host: str = ""
    nostr: list[str] = field(default_factory=list)  # the table's Nostr relays
    direct: bool = True  # host: listen for direct links; join: connect to address:port

    @classmethod
    def from_record(cls, table_id: str, data: dict[str, Any]) -> TableMeta:
        """A meta from its stored form; StoreError naming the table and the field otherwise."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(fields))
        if unknown:
            raise StoreError(
                f"table {table_id[:12]}: the stored record has unknown field(s) "
                f"{', '.join(unknown)} (written by a newer dealerless?)"
            )
        defaults = cls(table_id, "", "", 0, "")
        for name, value in data.items():
            expected = type(getattr(defaults, name))
            if type(value) is not expected:
                raise StoreError(
                    f"table {table_id[:12]}: the stored record is damaged "
                    f"(field {name} is {type(value).__name__}, not {expected.__name__})"
                )
        missing = sorted(
            n for n in ("table_id", "role", "address", "port", "host_key") if n not in data
        )
        if missing:
            raise StoreError(
                f"table {table_id[:12]}: the stored record is damaged "
                f"(missing {', '.join(missing)})"
            )
        meta = cls(**data)
        if meta.table_id != table_id or meta.role not in ("host", "join"):
            raise StoreError(f"table {table_id[:12]}: the stored record is damaged")
        return meta


class TableStore:
    def __init__(self, home: Path, table_id: bytes) -> None:
        self.home = home
        self.dir = home / "tables" / table_id.hex()
        self.table_id = table_id
        self.key = table_id.hex()
        self._writer: TranscriptWriter | None = None
        self._file: BinaryIO | None = None
        self._db: StoreDB | None = None
        self._transcript: Path | None = None

    @property
    def db(self) -> StoreDB:
        if self._db is None:
            self._db = StoreDB(self.home)
        return self._db

    # ---------------------------------------------------------------- meta
    @property
    def exists(self) -> bool:
        return self.db.has_table(self.key)

    def save_meta(self, meta: TableMeta) -> None:
        # Every level 0700 (mkdir's mode applies to the last one only): tables/ lists the
        # tables this home plays, and each folder holds the table's transcript.
        self.dir.parent.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        for folder in (self.dir.parent, self.dir):
            folder.mkdir(mode=0o700, exist_ok=True)
        os.chmod(self.dir.parent, 0o700)  # a tables/ made world-readable by an old version
        self.db.put_meta(self.key, asdict(meta), meta.finished)
        self._transcript = None

    def load_meta(self) -> TableMeta:
        return TableMeta.from_record(self.key, self.db.get_meta(self.key))

    @property
    def transcript_path(self) -> Path:
        if self._transcript is None:
            meta = self.load_meta()
            default = self.dir / f"transcript{TRANSCRIPT_SUFFIX}"
            self._transcript = Path(meta.transcript) if meta.transcript else default
        return self._transcript

    # ---------------------------------------------------------------- config
    def save_config(self, config: TableConfig, signature: bytes) -> None:
        self.db.put_config(self.key, encode({"config": config.to_wire(), "sig": signature}))

    def load_config(self) -> tuple[TableConfig, bytes] | None:
        blob = self.db.get_config(self.key)
        if blob is None:
            return None
        try:
            data = decode_plain(blob)
            return TableConfig.from_wire(data["config"]), bytes(data["sig"])
        except Exception as exc:  # msgpack and the config parser raise many kinds
            raise StoreError(
                f"table {self.key[:12]}: the stored configuration is damaged ({exc})"
            ) from exc

    # ---------------------------------------------------------------- transcript
    def open_transcript(self, config: TableConfig) -> list[bytes]:
        """Open (or create) the transcript for appending; returns the records already in it.

        The writer is given our own file object with fsync off: :meth:`append` writes a batch of
        records and then fsyncs once (one receive often accepts a peer's element and writes
        our own next one).
        """
        path = self.transcript_path
        if not path.exists():
            # 0600: the transcript shows every card this seat saw (its own hands included).
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            self._file = open(fd, "wb")  # noqa: SIM115 - closed by close()
            self._writer = TranscriptWriter.create(self._file, config.to_wire(), fsync=False)
            self._sync()
            fsync_directory(path.parent)
            return []
        self._open_existing()
        return self.stored_records()

    def stored_records(self) -> list[bytes]:
        """The records of the transcript file (read only; it must exist)."""
        with TranscriptReader(self.transcript_path) as reader:
            return [record.frame for record in reader.records()]

    def _open_existing(self) -> None:
        self._file = open(self.transcript_path, "r+b")  # noqa: SIM115 - closed by close()
        self._writer = TranscriptWriter.open_existing(self._file, recover=True, fsync=False)
        self._sync()

    def truncate(self, keep: int) -> None:
        """Cut the transcript to its first ``keep`` records: the machine rolled a hand back to a
        fork point (an equivocation), and the records after it belong to the void branch."""
        path = self.transcript_path
        self.close()
        with TranscriptReader(path) as reader:
            end = reader.header.size
            for number, record in enumerate(reader.records()):
                if number >= keep:
                    break
                end = record.end
        with open(path, "r+b") as file:
            file.truncate(end)
            file.flush()
            os.fsync(file.fileno())
        self._open_existing()

    def _sync(self) -> None:
        assert self._file is not None
        self._file.flush()
        os.fsync(self._file.fileno())

    def stored_count(self) -> int:
        """How many complete records the transcript holds (0 if there is none)."""
        path = self.transcript_path
        if not path.exists():
            return 0
        with TranscriptReader(path, allow_torn_tail=True) as reader:
            return sum(1 for _ in reader.records())

    def append(self, frames: list[bytes]) -> None:
        """Append records durably (one fsync for the batch) before anything acts on them."""
        if not frames:
            return
        assert self._writer is not None
        for frame in frames:
            self._writer.append(frame)
        self._sync()

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._db is not None:
            self._db.close()
            self._db = None

    # ---------------------------------------------------------------- key shares
    def save_secret(self, hand: int, data: bytes) -> None:
        self.db.put_share(self.key, hand, data)

    def load_secrets(self) -> dict[int, bytes]:
        return self.db.shares(self.key)

    def delete_secrets(self, hand: int | None = None) -> int:
        """Delete one hand's key share, or all of this table's (the game is over)."""
        return self.db.delete_shares(self.key, hand)

    # ---------------------------------------------------------------- history
    def record_game(self, players: tuple[str, ...], result: str, verified: bool) -> None:
        """The game is over: into the history of finished games."""
        meta = self.load_meta()
        row = GameRow(
            self.key, time.time(), meta.game, players, result, str(self.transcript_path), verified
        )
        self.db.put_game(row)


def list_tables(
    home: Path, *, unfinished_only: bool = False
) -> tuple[list[tuple[TableStore, TableMeta]], list[StoreError]]:
    """Every table this home knows (most recently changed first, one query), and a
    :class:`StoreError` naming each table whose record cannot be read."""
    if not (home / "store.sqlite").exists() and not (home / "tables").is_dir():
        return [], []  # nothing stored (an older home with tables/ is imported on open)
    with StoreDB(home) as db:
        rows = db.table_rows(unfinished_only=unfinished_only)
    found: list[tuple[TableStore, TableMeta]] = []
    problems: list[StoreError] = []
    for table_id, text in rows:
        try:
            meta = TableMeta.from_record(table_id, parse_meta(table_id, text))
            store = TableStore(home, bytes.fromhex(table_id))
        except StoreError as exc:
            problems.append(exc)
            continue
        except ValueError:
            problems.append(StoreError(f"table {table_id[:12]}: the table id is damaged"))
            continue
        found.append((store, meta))
    return found, problems


def find_tables(home: Path) -> list[tuple[TableStore, TableMeta]]:
    """Every table this home knows, most recently changed first; StoreError if a record is
    damaged (never a silent skip)."""
    found, problems = list_tables(home)
    if problems:
        raise problems[0]
    return found


def list_games(home: Path) -> list[GameRow]:
    """The finished games saved in this home, oldest first (numbered from 1 by the CLI)."""
    if not (home / "store.sqlite").exists():
        return []
    with StoreDB(home) as db:
        return db.games()


def prune(home: Path, *, now: float | None = None) -> int:
    """Delete key shares that no resume can need: those of finished tables and of tables
    untouched for :data:`PRUNE_AFTER_S`. How many were deleted."""
    if not (home / "store.sqlite").exists():
        return 0
    cutoff = (time.time() if now is None else now) - PRUNE_AFTER_S
    with StoreDB(home) as db:
        return db.prune(older_than=cutoff)
