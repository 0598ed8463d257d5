from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest
from msg_helpers import make

from dealerless.protocol.messages import (
    GENESIS_PREV,
    IdentityKey,
    KindRegistry,
    SignedMessage,
    TooLarge,
    pack,
)
from dealerless.protocol.transcript import (
    MAGIC,
    BadMagic,
    CorruptTranscript,
    Record,
    TranscriptReader,
    TranscriptWriter,
    TruncatedTranscript,
    encode_header,
    encode_record,
    recover,
)

CONFIG = {"game": "tuppen", "players": 4, "options": {"stake": 1}}


def chain(key: IdentityKey, n: int) -> list[SignedMessage]:
    out: list[SignedMessage] = []
    prev = GENESIS_PREV
    for i in range(n):
        msg = make(key, seq=i, prev=prev, body={"text": f"message {i}"})
        out.append(msg)
        prev = msg.digest
    return out


def transcript_bytes(key: IdentityKey, n: int = 3) -> tuple[bytes, list[SignedMessage]]:
    buf = io.BytesIO()
    msgs = chain(key, n)
    with TranscriptWriter.create(buf, CONFIG) as writer:
        for m in msgs:
            writer.append(m)
    return buf.getvalue(), msgs


def read_all(data: bytes, **kw: bool) -> list[Record]:
    return list(TranscriptReader(io.BytesIO(data), **kw).records())


def test_layout(key: IdentityKey) -> None:
    data, msgs = transcript_bytes(key, 1)
    config = pack(CONFIG)
    assert data[:8] == MAGIC == bytes.fromhex("89444c530d0a1a0a")
    assert data[8:10] == b"\x00\x01"
    assert data[10:14] == struct.pack(">I", len(config))
    assert data[14 : 14 + len(config)] == config
    header_end = 14 + len(config) + 4
    assert data[header_end - 4 : header_end] == struct.pack(
        ">I", zlib.crc32(data[: header_end - 4])
    )
    frame = msgs[0].frame
    record = data[header_end:]
    assert record[:4] == struct.pack(">I", len(frame))
    assert record[4:8] == struct.pack(">I", zlib.crc32(record[:4]))
    assert record[8:-4] == frame
    assert record[-4:] == struct.pack(">I", zlib.crc32(frame))
    assert data == encode_header(CONFIG) + encode_record(frame)


def test_round_trip_file_object(key: IdentityKey, registry: KindRegistry) -> None:
    data, msgs = transcript_bytes(key, 5)
    reader = TranscriptReader(io.BytesIO(data))
    assert reader.header.config == CONFIG
    assert reader.header.format_version == 1
    assert list(reader.messages(registry)) == msgs
    assert reader.count == 5
    assert reader.good_end == len(data)
    assert reader.torn_tail is None


def test_round_trip_path_and_append_after_reopen(key: IdentityKey, tmp_path: Path) -> None:
    path = tmp_path / "t.dlt"
    msgs = chain(key, 4)
    with TranscriptWriter.create(path, CONFIG) as writer:
        writer.append(msgs[0])
        writer.append(msgs[1].frame)
    with TranscriptWriter.open_existing(path) as writer:
        assert writer.count == 2
        assert writer.header.config == CONFIG
        writer.append(msgs[2])
        writer.append(msgs[3])
    with TranscriptReader(path) as reader:
        assert [r.frame for r in reader] == [m.frame for m in msgs]
    with pytest.raises(FileExistsError):
        TranscriptWriter.create(path, CONFIG)


def test_every_truncation_is_reported_with_the_last_good_offset(key: IdentityKey) -> None:
    data, msgs = transcript_bytes(key, 2)
    header_size = TranscriptReader(io.BytesIO(data)).header.size
    first_end = header_size + 12 + len(msgs[0].frame)
    for cut in range(len(data)):
        if cut in (header_size, first_end):
            assert len(read_all(data[:cut])) == (0 if cut == header_size else 1)
            continue
        with pytest.raises(TruncatedTranscript) as info:
            read_all(data[:cut])
        expected = 0 if cut < header_size else header_size if cut < first_end else first_end
        assert info.value.good_end == expected, cut
        assert f"byte offset {info.value.offset}" in str(info.value)


def test_torn_tail_can_be_reported_and_recovered(key: IdentityKey, tmp_path: Path) -> None:
    data, msgs = transcript_bytes(key, 3)
    torn = data[:-7]
    reader = TranscriptReader(io.BytesIO(torn), allow_torn_tail=True)
    assert [r.frame for r in reader.records()] == [m.frame for m in msgs[:2]]
    assert reader.torn_tail is not None
    assert reader.torn_tail.offset == reader.good_end
    assert reader.torn_tail.length == len(torn) - reader.good_end

    path = tmp_path / "t.dlt"
    path.write_bytes(torn)
    with pytest.raises(TruncatedTranscript, match="recover=True"):
        TranscriptWriter.open_existing(path)
    assert path.read_bytes() == torn  # nothing changed without recover
    cut = recover(path)
    assert cut is not None and cut.offset == reader.good_end
    assert recover(path) is None
    with TranscriptWriter.open_existing(path) as writer:
        writer.append(msgs[2])
    assert path.read_bytes() == data


def test_zero_filled_tail_is_a_torn_tail(key: IdentityKey) -> None:
    data, _ = transcript_bytes(key, 2)
    with pytest.raises(TruncatedTranscript, match="ends with zero bytes"):
        read_all(data + bytes(4096))
    buf = io.BytesIO(data + bytes(100))
    writer = TranscriptWriter.open_existing(buf, recover=True)
    assert writer.recovered is not None and writer.recovered.length == 100
    assert buf.getvalue() == data


def test_bad_magic() -> None:
    with pytest.raises(
        BadMagic, match=r"byte offset 0: not a dealerless transcript .* 89 44 4c 53"
    ):
        read_all(b"PK\x03\x04" + bytes(60))
    with pytest.raises(BadMagic):
        read_all(b"\x89DLS\n\n\x1a\n" + bytes(60))  # text-mode mangled line ending


def test_bad_version_and_config(key: IdentityKey) -> None:
    data, _ = transcript_bytes(key, 1)
    with pytest.raises(CorruptTranscript, match="offset 8: unsupported format version 2"):
        read_all(data[:8] + b"\x00\x02" + data[10:])
    with pytest.raises(CorruptTranscript, match="offset 10: config length 0"):
        read_all(data[:10] + bytes(4) + data[14:])
    with pytest.raises(CorruptTranscript, match="offset 10: config length 4294967295"):
        read_all(data[:10] + b"\xff" * 4 + data[14:])
    flipped = bytearray(data)
    flipped[16] ^= 0x20
    with pytest.raises(CorruptTranscript, match="header CRC mismatch"):
        read_all(bytes(flipped))


def test_non_canonical_or_non_map_config_is_corrupt() -> None:
    for body, why in [(b"\x91\x01", "not a msgpack map"), (b"\xd0\x05", "canonical")]:
        head = MAGIC + struct.pack(">HI", 1, len(body)) + body
        data = head + struct.pack(">I", zlib.crc32(head))
        with pytest.raises(CorruptTranscript, match=why) as info:
            read_all(data)
        assert info.value.offset == 14


def test_record_damage_is_corruption_not_truncation(key: IdentityKey) -> None:
    data, _ = transcript_bytes(key, 3)
    header_size = TranscriptReader(io.BytesIO(data)).header.size
    flipped = bytearray(data)
    flipped[header_size + 30] ^= 0x01
    with pytest.raises(CorruptTranscript, match=f"offset {header_size}: record CRC mismatch"):
        read_all(bytes(flipped))
    with pytest.raises(CorruptTranscript, match="record header CRC mismatch"):
        read_all(data + b"\x00\x00\x00\x00garbage")
    with pytest.raises(CorruptTranscript, match="record header CRC mismatch"):
        read_all(data + b"\xff\xff\xff\xff\x00\x00\x00\x00")
    huge = struct.pack(">I", 70000)
    with pytest.raises(CorruptTranscript, match=r"record length 70000 is not in 1\.\.65536"):
        read_all(data + huge + struct.pack(">I", zlib.crc32(huge)))
    with pytest.raises(CorruptTranscript) as info:
        read_all(data[:-1] + bytes([data[-1] ^ 1]))  # last record's CRC
    assert info.value.offset < len(data)
    with pytest.raises(CorruptTranscript):
        TranscriptWriter.open_existing(io.BytesIO(bytes(flipped)), recover=True)


def test_intact_record_that_is_not_a_message(key: IdentityKey) -> None:
    data = encode_header(CONFIG) + encode_record(make(key).frame) + encode_record(b"junk" * 20)
    reader = TranscriptReader(io.BytesIO(data))
    with pytest.raises(CorruptTranscript, match="record is not a valid message") as info:
        list(reader.messages())
    assert info.value.offset == len(data) - 92


def test_writer_refuses_oversized_and_empty_records() -> None:
    writer = TranscriptWriter.create(io.BytesIO(), CONFIG)
    with pytest.raises(TooLarge):
        writer.append(b"")
    with pytest.raises(TooLarge):
        writer.append(b"x" * 70000)


def test_failed_write_disables_the_writer() -> None:
    class Failing(io.BytesIO):
        fail = False

        def write(self, data: object) -> int:
            if self.fail:
                raise OSError("disk full")
            return super().write(data)  # type: ignore[arg-type]

    buf = Failing()
    writer = TranscriptWriter.create(buf, CONFIG)
    buf.fail = True
    with pytest.raises(OSError, match="disk full"):
        writer.append(b"x" * 10)
    buf.fail = False
    with pytest.raises(OSError, match="recover=True"):
        writer.append(b"x" * 10)


def test_reader_iterates_once(key: IdentityKey) -> None:
    data, _ = transcript_bytes(key, 1)
    reader = TranscriptReader(io.BytesIO(data))
    list(reader)
    with pytest.raises(RuntimeError):
        list(reader)


@pytest.mark.parametrize("bit", [0, 3, 8, 12])
def test_damaged_length_in_the_middle_is_never_a_torn_tail(key: IdentityKey, bit: int) -> None:
    """A bigger length would run past EOF and look like a crash; its CRC tells them apart."""
    data, _ = transcript_bytes(key, 3)
    header_size = TranscriptReader(io.BytesIO(data)).header.size
    damaged = bytearray(data)
    damaged[header_size + 3 - bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(CorruptTranscript, match=f"offset {header_size}: record header CRC"):
        read_all(bytes(damaged), allow_torn_tail=True)
    with pytest.raises(CorruptTranscript):
        TranscriptWriter.open_existing(io.BytesIO(bytes(damaged)), recover=True)
