"""The transcript file: the complete signed record of one table's game, append-only.

Layout (all integers big-endian; CRC-32 is ``zlib.crc32``, the ISO-HDLC / IEEE 802.3 CRC)::

    offset 0        magic            8 bytes   89 44 4C 53 0D 0A 1A 0A   ("\\x89DLS\\r\\n\\x1a\\n")
    offset 8        format version   u16       1
    offset 10       config length    u32       N, 1..65536 (MAX_CONFIG_BYTES)
    offset 14       config           N bytes   canonical msgpack map (the table configuration)
    offset 14+N     header CRC       u32       CRC-32 of bytes 0 .. 14+N-1
    then records, each:
                    length           u32       L, 1..limits.max_message_bytes
                    length CRC       u32       CRC-32 of the 4 length bytes
                    frame            L bytes   one signed message exactly as received
                    frame CRC        u32       CRC-32 of the frame

The node appends each accepted message with one ``write`` followed by ``flush`` and ``fsync``, so
after a crash at most the last record is incomplete. The reader classifies what follows the last
complete, CRC-valid record:

* nothing: the file is clean;
* a *torn tail*: fewer bytes than a whole record (the record header cut short, or a record
  whose CRC-checked header promises more bytes than the file holds), or only zero bytes (a file
  system that extended the file but never wrote the data). This is what a crash leaves. The
  length field has its own CRC so that a damaged length in the middle of the file is never
  mistaken for a torn tail (which recovery would cut, losing good records).
  The reader raises :class:`TruncatedTranscript` naming the offset of the end of
  the last good record, or, with ``allow_torn_tail=True``, stops there and reports it in
  :attr:`TranscriptReader.torn_tail`. :meth:`TranscriptWriter.open_existing` with
  ``recover=True`` (or :func:`recover`) truncates the file to that offset and carries on;
  the lost message is still held, signed, by the other peers.
* anything else (a header or frame CRC mismatch, a bad length, garbage) is
  :class:`CorruptTranscript`, never repaired automatically.

Every error names the byte offset where the problem starts. A record that is intact but does not
decode as a valid message (see :meth:`TranscriptReader.messages`) is reported as
:class:`CorruptTranscript` too, with the :class:`MessageError` as its cause.
"""

from __future__ import annotations

import io
import os
import struct
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import IO, Any, BinaryIO, Self

from dealerless.protocol.wire.codec import DEFAULT_LIMITS, Limits, pack, unpack
from dealerless.protocol.wire.envelope import SignedMessage, decode_message
from dealerless.protocol.wire.errors import MessageError, TooLarge
from dealerless.protocol.wire.schema import DEFAULT_REGISTRY, KindRegistry

__all__ = [
    "FORMAT_VERSION",
    "MAGIC",
    "BadMagic",
    "CorruptTranscript",
    "Record",
    "TornTail",
    "TranscriptError",
    "TranscriptHeader",
    "TranscriptReader",
    "TranscriptWriter",
    "TruncatedTranscript",
    "recover",
]

MAGIC = b"\x89DLS\r\n\x1a\n"
FORMAT_VERSION = 1
MAX_CONFIG_BYTES = 64 * 1024
_PREFIX = struct.Struct(">8sHI")  # magic, format version, config length
_U32 = struct.Struct(">I")

Source = BinaryIO | IO[bytes] | str | os.PathLike[str]


class TranscriptError(Exception):
    """A transcript file that cannot be read as written. ``offset`` is where the problem is."""

    def __init__(self, offset: int, text: str) -> None:
        super().__init__(f"transcript at byte offset {offset}: {text}")
        self.offset = offset
        self.text = text


class BadMagic(TranscriptError):
    """The file does not start with the transcript magic bytes (not a transcript, or damaged)."""


class CorruptTranscript(TranscriptError):
    """Damage that a crash cannot explain: bad version, bad length, CRC mismatch, garbage, an
    undecodable message. Never repaired automatically."""


class TruncatedTranscript(TranscriptError):
    """The file ends inside a record (or the header): what a crash while appending leaves.
    ``good_end`` is the offset just after the last complete record."""

    def __init__(self, offset: int, text: str, *, good_end: int) -> None:
        super().__init__(offset, text)
        self.good_end = good_end


@dataclass(frozen=True, slots=True)
class TranscriptHeader:
    format_version: int
    config: dict[str, Any]
    config_bytes: bytes  # canonical msgpack, exactly as stored
    size: int  # bytes of the header; the first record starts here


@dataclass(frozen=True, slots=True)
class Record:
    offset: int  # where the record (its length field) starts
    frame: bytes  # the signed message exactly as received

    @property
    def end(self) -> int:
        return self.offset + 12 + len(self.frame)


@dataclass(frozen=True, slots=True)
class TornTail:
    offset: int  # end of the last good record: where the file should be cut
    length: int  # bytes after it
    reason: str


def encode_header(config: Mapping[str, Any], limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The header bytes for a table configuration (a map in the message data model)."""
    if not isinstance(config, Mapping):
        raise TypeError(f"the table configuration must be a map, got {type(config).__name__}")
    body = pack(dict(config), limits, path="config")
    if len(body) > MAX_CONFIG_BYTES:
        raise TooLarge(f"config: {len(body)} bytes exceeds the limit of {MAX_CONFIG_BYTES}")
    head = _PREFIX.pack(MAGIC, FORMAT_VERSION, len(body)) + body
    return head + _U32.pack(zlib.crc32(head))


def encode_record(frame: bytes) -> bytes:
    """One record: length, CRC of the length, frame, CRC of the frame."""
    length = _U32.pack(len(frame))
    return length + _U32.pack(zlib.crc32(length)) + frame + _U32.pack(zlib.crc32(frame))


def _read_exactly(file: IO[bytes], n: int) -> bytes:
    parts = []
    while n > 0:
        chunk = file.read(n)
        if not chunk:
            break
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def _rest_is_zero(file: IO[bytes]) -> bool:
    while chunk := file.read(64 * 1024):
        if chunk.count(0) != len(chunk):
            return False
    return True


class _FileHolder:
    """Closes the file on close() / leaving a ``with`` block, if this object opened it."""

    _file: IO[bytes]
    _owned: bool

    def close(self) -> None:
        if self._owned:
            self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class TranscriptReader(_FileHolder):
    """Streams a transcript back. Give an open binary file (read from its current position,
    which must be the start of the transcript) or a path (opened and closed by the reader).

    The header is read and checked on construction; :meth:`records` / :meth:`messages` then
    stream the records. After iteration ends, :attr:`good_end` is the offset after the last
    good record and :attr:`torn_tail` reports a torn tail when ``allow_torn_tail`` is set.
    """

    def __init__(
        self,
        source: Source,
        *,
        limits: Limits = DEFAULT_LIMITS,
        allow_torn_tail: bool = False,
    ) -> None:
        if isinstance(source, str | os.PathLike):
            self._file: IO[bytes] = open(source, "rb")  # noqa: SIM115 (closed by close())
            self._owned = True
        else:
            self._file = source
            self._owned = False
        self._base = self._file.tell()
        self.limits = limits
        self.allow_torn_tail = allow_torn_tail
        self.torn_tail: TornTail | None = None
        self.count = 0
        try:
            self.header = self._read_header()
        except BaseException:
            self.close()
            raise
        self.good_end = self.header.size
        self._started = False

    def _read_header(self) -> TranscriptHeader:
        prefix = _read_exactly(self._file, _PREFIX.size)
        magic = prefix[:8]
        if magic != MAGIC[: len(magic)]:
            raise BadMagic(
                0,
                "not a dealerless transcript (it does not start with the transcript's magic "
                f"bytes {MAGIC.hex(' ')}; it starts with {magic.hex(' ')})",
            )
        if len(prefix) < _PREFIX.size:
            raise TruncatedTranscript(
                len(prefix), "the file ends inside the header (empty or cut short)", good_end=0
            )
        _, version, config_len = _PREFIX.unpack(prefix)
        if version != FORMAT_VERSION:
            raise CorruptTranscript(
                8, f"unsupported format version {version} (this reader knows {FORMAT_VERSION})"
            )
        if not 0 < config_len <= MAX_CONFIG_BYTES:
            raise CorruptTranscript(
                10, f"config length {config_len} is not in 1..{MAX_CONFIG_BYTES}"
            )
        rest = _read_exactly(self._file, config_len + 4)
        if len(rest) < config_len + 4:
            raise TruncatedTranscript(
                _PREFIX.size + len(rest), "the file ends inside the header", good_end=0
            )
        config_bytes, crc = rest[:config_len], _U32.unpack(rest[config_len:])[0]
        if zlib.crc32(prefix + config_bytes) != crc:
            raise CorruptTranscript(
                _PREFIX.size + config_len, "header CRC mismatch (header damaged)"
            )
        try:
            config = unpack(config_bytes, self.limits, path="config", max_bytes=MAX_CONFIG_BYTES)
        except MessageError as exc:
            raise CorruptTranscript(_PREFIX.size, f"bad config: {exc}") from exc
        if not isinstance(config, dict):
            raise CorruptTranscript(_PREFIX.size, "the config is not a msgpack map")
        return TranscriptHeader(version, config, config_bytes, _PREFIX.size + config_len + 4)

    def records(self) -> Iterator[Record]:
        """Yield every record in order; raise on corruption (see the module docstring)."""
        if self._started:
            raise RuntimeError("a TranscriptReader can be iterated only once")
        self._started = True
        max_len = self.limits.max_message_bytes
        offset = self.header.size
        while True:
            head = _read_exactly(self._file, 8)
            if not head:
                return
            if head == bytes(len(head)) and _rest_is_zero(self._file):
                size = self._file.seek(0, io.SEEK_END) - self._base - offset
                self._torn(offset, size, "the file ends with zero bytes")
                return
            if len(head) < 8:
                self._torn(offset, len(head), "the file ends inside a record header")
                return
            length, head_crc = struct.unpack(">II", head)
            if zlib.crc32(head[:4]) != head_crc:
                raise CorruptTranscript(
                    offset, "record header CRC mismatch (damaged length field or garbage)"
                )
            if not 0 < length <= max_len:
                raise CorruptTranscript(offset, f"record length {length} is not in 1..{max_len}")
            body = _read_exactly(self._file, length + 4)
            if len(body) < length + 4:
                if len(body) < length:
                    why = f"the file ends inside a record of {length} bytes"
                else:
                    why = "the file ends inside a record's CRC"
                self._torn(offset, 8 + len(body), why)
                return
            frame = body[:length]
            (crc,) = _U32.unpack(body[length:])
            if zlib.crc32(frame) != crc:
                raise CorruptTranscript(offset, f"record CRC mismatch (record of {length} bytes)")
            record = Record(offset, frame)
            offset = record.end
            self.good_end = offset
            self.count += 1
            yield record

    def _torn(self, offset: int, length: int, reason: str) -> None:
        tail = TornTail(offset, length, reason)
        if not self.allow_torn_tail:
            raise TruncatedTranscript(
                offset,
                f"{reason} ({length} bytes after the last good record); "
                f"recover by truncating to offset {offset}",
                good_end=offset,
            )
        self.torn_tail = tail

    def messages(self, registry: KindRegistry = DEFAULT_REGISTRY) -> Iterator[SignedMessage]:
        """Yield every record decoded and verified as a :class:`SignedMessage`."""
        for record in self.records():
            try:
                yield decode_message(record.frame, registry=registry, limits=self.limits)
            except MessageError as exc:
                raise CorruptTranscript(
                    record.offset, f"record is not a valid message: {exc}"
                ) from exc

    def __iter__(self) -> Iterator[Record]:
        return self.records()


def _fsync_directory(path: str | os.PathLike[str]) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class TranscriptWriter(_FileHolder):
    """Appends records to a transcript, each with one write, then flush and fsync.

    Make one with :meth:`create` (a new transcript) or :meth:`open_existing` (carry on after a
    restart). If a write fails, the writer refuses further appends: reopen with
    :meth:`open_existing` (``recover=True``) to cut a partial record.
    """

    def __init__(
        self,
        file: IO[bytes],
        header: TranscriptHeader,
        *,
        owned: bool,
        fsync: bool,
        limits: Limits,
        count: int = 0,
        recovered: TornTail | None = None,
    ) -> None:
        self._file = file
        self._owned = owned
        self._fsync = fsync
        self._broken = False
        self.header = header
        self.limits = limits
        self.count = count
        self.recovered = recovered

    @classmethod
    def create(
        cls,
        target: Source,
        config: Mapping[str, Any],
        *,
        fsync: bool = True,
        limits: Limits = DEFAULT_LIMITS,
    ) -> TranscriptWriter:
        """Start a new transcript. A path must not exist yet (never overwrite a record); a file
        object gets the header written at its current position."""
        data = encode_header(config, limits)
        file: IO[bytes]
        if isinstance(target, str | os.PathLike):
            file, owned = open(target, "xb"), True  # noqa: SIM115 (closed by close())
        else:
            file, owned = target, False
        writer = cls(
            file,
            TranscriptHeader(FORMAT_VERSION, unpack(data[14:-4], limits), data[14:-4], len(data)),
            owned=owned,
            fsync=fsync,
            limits=limits,
        )
        try:
            writer._write(data)
            if fsync and isinstance(target, str | os.PathLike):
                _fsync_directory(target)
        except BaseException:
            writer.close()
            raise
        return writer

    @classmethod
    def open_existing(
        cls,
        target: Source,
        *,
        recover: bool = False,
        fsync: bool = True,
        limits: Limits = DEFAULT_LIMITS,
    ) -> TranscriptWriter:
        """Open a transcript to append to it. Every record is read and CRC-checked first.

        A torn tail raises :class:`TruncatedTranscript`, unless ``recover`` is set: then the file
        is truncated to the end of the last good record (reported in :attr:`recovered`).
        Corruption always raises :class:`CorruptTranscript`. A file object must be readable,
        writable and seekable, positioned at the start of the transcript.
        """
        file: IO[bytes]
        if isinstance(target, str | os.PathLike):
            file, owned = open(target, "r+b"), True  # noqa: SIM115 (closed by close())
        else:
            file, owned = target, False
        try:
            base = file.tell()
            reader = TranscriptReader(file, limits=limits, allow_torn_tail=True)
            for _ in reader.records():
                pass
            tail = reader.torn_tail
            if tail is not None:
                if not recover:
                    raise TruncatedTranscript(
                        tail.offset,
                        f"{tail.reason} ({tail.length} bytes after the last good record); "
                        "open with recover=True to truncate it",
                        good_end=tail.offset,
                    )
                file.truncate(base + tail.offset)
            file.seek(base + reader.good_end)
            writer = cls(
                file,
                reader.header,
                owned=owned,
                fsync=fsync,
                limits=limits,
                count=reader.count,
                recovered=tail,
            )
            if tail is not None:
                writer._sync()
        except BaseException:
            if owned:
                file.close()
            raise
        return writer

    def append(self, message: SignedMessage | bytes) -> None:
        """Append one signed message (its frame exactly as received) durably."""
        frame = message.frame if isinstance(message, SignedMessage) else bytes(message)
        if not 0 < len(frame) <= self.limits.max_message_bytes:
            raise TooLarge(
                f"a record holds 1..{self.limits.max_message_bytes} bytes, got {len(frame)}"
            )
        self._write(encode_record(frame))
        self.count += 1

    def _write(self, data: bytes) -> None:
        if self._broken:
            raise OSError("an earlier write failed; reopen the transcript with recover=True")
        try:
            written = self._file.write(data)
            if written is not None and written != len(data):
                raise OSError(f"short write: {written} of {len(data)} bytes")
            self._sync()
        except BaseException:
            self._broken = True
            raise

    def _sync(self) -> None:
        self._file.flush()
        if not self._fsync:
            return
        try:
            fd = self._file.fileno()
        except (OSError, AttributeError, io.UnsupportedOperation):
            return  # an in-memory file
        os.fsync(fd)


def recover(path: str | os.PathLike[str], *, limits: Limits = DEFAULT_LIMITS) -> TornTail | None:
    """Cut a torn tail off a transcript after a crash; returns what was cut (None if clean).
    Raises :class:`CorruptTranscript` for damage a crash cannot explain."""
    with TranscriptWriter.open_existing(path, recover=True, limits=limits) as writer:
        return writer.recovered
