"""A table's files on disk: where to connect, the signed configuration, the transcript and the
per-hand key shares.

``<home>/tables/<table id hex>/``:

* ``meta.json``: role, where to connect (or listen), the host key, name, bot flag, transcript
  path; written atomically (temporary file, fsync, rename);
* ``config.bin``: the table configuration as the host signed it (msgpack
  ``{config, sig}``), once all seats are filled;
* ``transcript.dls`` (or ``--transcript PATH``): protocol/transcript.py format, one record per
  accepted chain element, appended and fsynced before the node acts on it;
* ``secrets/hand-<n>.key``: this seat's key share of hand ``n`` (mode 0600), written before
  anything that depends on it is sent.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from dealerless.node.wire import decode_plain, encode
from dealerless.protocol.table import TableConfig
from dealerless.protocol.transcript import TranscriptReader, TranscriptWriter

__all__ = ["TableMeta", "TableStore", "find_tables"]


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


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    _fsync_dir(path.parent)


class TableStore:
    def __init__(self, home: Path, table_id: bytes) -> None:
        self.dir = home / "tables" / table_id.hex()
        self.table_id = table_id
        self._writer: TranscriptWriter | None = None
        self._file: BinaryIO | None = None

    # ---------------------------------------------------------------- meta
    @property
    def exists(self) -> bool:
        return (self.dir / "meta.json").exists()

    def save_meta(self, meta: TableMeta) -> None:
        # Every level 0700 (mkdir's mode applies to the last one only): tables/ lists the
        # tables this home plays, and each holds the invite's token and the key shares.
        self.dir.parent.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        for folder in (self.dir.parent, self.dir):
            folder.mkdir(mode=0o700, exist_ok=True)
        os.chmod(self.dir.parent, 0o700)  # a tables/ made world-readable by an old version
        (self.dir / "secrets").mkdir(mode=0o700, exist_ok=True)
        _write_atomic(self.dir / "meta.json", json.dumps(asdict(meta), indent=1).encode())

    def load_meta(self) -> TableMeta:
        data = json.loads((self.dir / "meta.json").read_text())
        return TableMeta(**data)

    @property
    def transcript_path(self) -> Path:
        meta = self.load_meta()
        return Path(meta.transcript) if meta.transcript else self.dir / "transcript.dls"

    # ---------------------------------------------------------------- config
    def save_config(self, config: TableConfig, signature: bytes) -> None:
        _write_atomic(
            self.dir / "config.bin", encode({"config": config.to_wire(), "sig": signature})
        )

    def load_config(self) -> tuple[TableConfig, bytes] | None:
        path = self.dir / "config.bin"
        if not path.exists():
            return None
        data = decode_plain(path.read_bytes())
        return TableConfig.from_wire(data["config"]), bytes(data["sig"])

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
            _fsync_dir(path.parent)
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

    # ---------------------------------------------------------------- key shares
    def save_secret(self, hand: int, data: bytes) -> None:
        _write_atomic(self.dir / "secrets" / f"hand-{hand}.key", data, 0o600)

    def load_secrets(self) -> dict[int, bytes]:
        out: dict[int, bytes] = {}
        folder = self.dir / "secrets"
        if not folder.is_dir():
            return out
        for path in folder.glob("hand-*.key"):
            with contextlib.suppress(ValueError):
                out[int(path.stem.split("-", 1)[1])] = path.read_bytes()
        return out


def find_tables(home: Path) -> list[tuple[TableStore, TableMeta]]:
    """Every table this home knows, most recently changed first."""
    root = home / "tables"
    found: list[tuple[float, TableStore, TableMeta]] = []
    if not root.is_dir():
        return []
    for entry in root.iterdir():
        meta_path = entry / "meta.json"
        try:
            tid = bytes.fromhex(entry.name)
            store = TableStore(home, tid)
            meta = store.load_meta()
            stamp = max(
                meta_path.stat().st_mtime,
                *(p.stat().st_mtime for p in entry.glob("transcript.dls")),
            )
        except (ValueError, OSError, TypeError):
            continue
        found.append((stamp, store, meta))
    found.sort(key=lambda item: -item[0])
    return [(store, meta) for _, store, meta in found]


def meta_dict(meta: TableMeta) -> dict[str, Any]:
    return asdict(meta)
