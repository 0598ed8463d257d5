from __future__ import annotations

import pytest
import trio
import trio.testing

from dealerless.node.transport import FrameError, FrameReader, encode_frame


async def _reader_with(data: bytes, *, eof: bool = True, **kwargs: int) -> FrameReader:
    send, receive = trio.testing.memory_stream_one_way_pair()
    await send.send_all(data)
    if eof:
        await send.aclose()
    return FrameReader(receive, **kwargs)


def test_encode_frame_layout() -> None:
    assert encode_frame(b"abc") == b"\x00\x00\x00\x03abc"
    with pytest.raises(FrameError, match="empty"):
        encode_frame(b"")
    with pytest.raises(FrameError, match="5 bytes exceeds the maximum frame size of 4"):
        encode_frame(b"12345", max_frame_size=4)


async def test_round_trip_many_frames_in_any_chunking() -> None:
    bodies = [b"x", b"hello" * 100, bytes(range(256)), b"end"]
    wire = b"".join(encode_frame(b) for b in bodies)
    for chunk_size in (1, 3, 7, 1 << 16):
        reader = await _reader_with(wire, chunk_size=chunk_size)
        got = [await reader.read_frame(1.0) for _ in bodies]
        assert got == bodies
        assert await reader.read_frame(1.0) is None  # clean end between frames
        assert reader.buffered == 0


async def test_oversized_frame_is_rejected_from_the_header() -> None:
    reader = await _reader_with((1001).to_bytes(4, "big"), eof=False, max_frame_size=1000)
    with pytest.raises(FrameError, match="oversized frame: header announces 1001 bytes, the limit"):
        await reader.read_frame(1.0)


async def test_max_size_exactly_is_accepted() -> None:
    reader = await _reader_with(encode_frame(b"a" * 1000, 1000), max_frame_size=1000)
    assert await reader.read_frame(1.0) == b"a" * 1000


async def test_per_call_limit() -> None:
    reader = await _reader_with(encode_frame(b"a" * 100))
    with pytest.raises(FrameError, match="limit is 50"):
        await reader.read_frame(1.0, max_size=50)


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        (b"\x00\x00", "truncated frame: stream ended with 2 bytes"),
        (b"\x00\x00\x00\x05abc", "truncated frame: stream ended with 7 bytes"),
        (b"\x00\x00\x00\x00", "length 0"),
    ],
)
async def test_truncated_and_malformed_input(wire: bytes, message: str) -> None:
    reader = await _reader_with(wire)
    with pytest.raises(FrameError, match=message):
        await reader.read_frame(1.0)


async def test_timeout_keeps_partial_input() -> None:
    send, receive = trio.testing.memory_stream_one_way_pair()
    reader = FrameReader(receive)
    wire = encode_frame(b"0123456789")
    await send.send_all(wire[:7])
    start = trio.current_time()
    with pytest.raises(trio.TooSlowError):
        await reader.read_frame(2.5)
    assert trio.current_time() - start == pytest.approx(2.5)
    assert reader.buffered == 7
    await send.send_all(wire[7:])
    assert await reader.read_frame(2.5) == b"0123456789"


async def test_buffer_is_bounded() -> None:
    send, receive = trio.testing.memory_stream_one_way_pair()
    reader = FrameReader(receive, max_frame_size=1000, chunk_size=64)
    await send.send_all(encode_frame(b"z" * 1000, 1000) * 50)
    for _ in range(50):
        assert await reader.read_frame(1.0) == b"z" * 1000
        assert reader.buffered <= 4 + 1000 + 64
