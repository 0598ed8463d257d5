"""Property tests: arbitrary input only ever yields frames, a clean end, or a clear error."""

from __future__ import annotations

import itertools

import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from transport_helpers import both

from dealerless.node.identity import Identity
from dealerless.node.transport import (
    ChannelError,
    FrameError,
    FrameReader,
    HandshakeError,
    TransportConfig,
    accept,
    encode_frame,
)

FAST = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@FAST
@given(
    bodies=st.lists(st.binary(min_size=1, max_size=300), max_size=8),
    cuts=st.lists(st.integers(min_value=0, max_value=3000), max_size=10),
)
def test_frames_survive_any_chunking(bodies: list[bytes], cuts: list[int]) -> None:
    wire = b"".join(encode_frame(b) for b in bodies)
    points = sorted({c % (len(wire) + 1) for c in cuts} | {0, len(wire)})

    async def main() -> list[bytes]:
        send, receive = trio.testing.memory_stream_one_way_pair()
        reader = FrameReader(receive, max_frame_size=300, chunk_size=17)
        got: list[bytes] = []
        for start, end in itertools.pairwise(points):
            await send.send_all(wire[start:end])
        await send.aclose()
        while (frame := await reader.read_frame(1.0)) is not None:
            got.append(frame)
        return got

    assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)) == bodies


@FAST
@given(data=st.binary(max_size=600))
def test_garbage_bytes_give_frames_or_frame_error(data: bytes) -> None:
    async def main() -> None:
        send, receive = trio.testing.memory_stream_one_way_pair()
        await send.send_all(data)
        await send.aclose()
        reader = FrameReader(receive, max_frame_size=256)
        try:
            while (frame := await reader.read_frame(1.0)) is not None:
                assert 1 <= len(frame) <= 256
        except FrameError:
            pass

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@FAST
@given(data=st.binary(min_size=1, max_size=400))
def test_garbage_handshake_is_refused_with_handshake_error(data: bytes) -> None:
    async def main() -> None:
        a, b = trio.testing.memory_stream_pair()
        await a.send_all(data)
        try:
            await accept(b, Identity.generate(), config=TransportConfig(handshake_timeout=5))
        except HandshakeError:
            return
        raise AssertionError("garbage accepted")

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@FAST
@given(frames=st.lists(st.binary(min_size=1, max_size=100), min_size=1, max_size=4))
def test_garbage_records_break_the_channel_cleanly(frames: list[bytes]) -> None:
    async def main() -> None:
        a, b = trio.testing.memory_stream_pair()
        oi, orr = await both(a, b, Identity.generate(), Identity.generate())
        oi.unwrap()
        cr = orr.unwrap()
        for body in frames:  # injected straight into the responder's stream
            await a.send_all(encode_frame(body))
        try:
            await cr.receive()
        except ChannelError:
            assert cr.closed
            return
        raise AssertionError("forged record accepted")

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
