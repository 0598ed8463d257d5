"""Length-prefixed frames over a byte stream.

A frame is a 4-byte big-endian unsigned length ``L`` followed by ``L`` bytes of body, with
``1 <= L <= max_frame_size`` (default 1 MiB). An empty frame, a length above the limit or a
stream that ends inside a frame raises :class:`FrameError`. A stream that ends exactly between
two frames is a clean end: :meth:`FrameReader.read_frame` returns ``None``.

The reader keeps its partial input in its own buffer, so a read cancelled by a timeout loses
nothing: the next call continues where the previous one stopped. The buffer is bounded by
``4 + max_frame_size + chunk_size`` bytes.
"""

from __future__ import annotations

import math

import trio

from .errors import FrameError

__all__ = [
    "DEFAULT_MAX_FRAME_SIZE",
    "HEADER_SIZE",
    "FrameReader",
    "encode_frame",
]

HEADER_SIZE = 4
DEFAULT_MAX_FRAME_SIZE = 1 << 20
ABSOLUTE_MAX_FRAME_SIZE = (1 << 32) - 1
DEFAULT_CHUNK_SIZE = 64 * 1024


def _check_limit(max_frame_size: int) -> None:
    if not 1 <= max_frame_size <= ABSOLUTE_MAX_FRAME_SIZE:
        raise ValueError(f"max_frame_size must be in 1..{ABSOLUTE_MAX_FRAME_SIZE}")


def encode_frame(body: bytes, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> bytes:
    """The bytes of one frame carrying ``body``; FrameError if the body is empty or too big."""
    _check_limit(max_frame_size)
    if not body:
        raise FrameError("cannot send an empty frame")
    if len(body) > max_frame_size:
        raise FrameError(
            f"frame of {len(body)} bytes exceeds the maximum frame size of {max_frame_size} bytes"
        )
    return len(body).to_bytes(HEADER_SIZE, "big") + body


class FrameReader:
    """Reads frames from a :class:`trio.abc.ReceiveStream`. Not safe for concurrent readers."""

    def __init__(
        self,
        stream: trio.abc.ReceiveStream,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ) -> None:
        _check_limit(max_frame_size)
        if chunk_size < 1:
            raise ValueError("chunk_size must be positive")
        self.stream = stream
        self.max_frame_size = max_frame_size
        self.chunk_size = chunk_size
        self._buf = bytearray()
        self._eof = False

    @property
    def buffered(self) -> int:
        """Bytes received but not yet returned as a frame."""
        return len(self._buf)

    def _parse(self, limit: int) -> bytes | None:
        if len(self._buf) < HEADER_SIZE:
            return None
        length = int.from_bytes(self._buf[:HEADER_SIZE], "big")
        if length == 0:
            raise FrameError("malformed frame: length 0 (empty frames are not allowed)")
        if length > limit:
            raise FrameError(
                f"oversized frame: header announces {length} bytes, the limit is {limit} bytes"
            )
        end = HEADER_SIZE + length
        if len(self._buf) < end:
            return None
        body = bytes(self._buf[HEADER_SIZE:end])
        del self._buf[:end]
        return body

    async def read_frame(
        self, timeout: float | None = None, *, max_size: int | None = None
    ) -> bytes | None:
        """The next frame's body, or None at a clean end of stream.

        ``timeout`` (seconds, None = no limit) bounds the whole call with :func:`trio.fail_after`,
        so it raises :class:`trio.TooSlowError` when it expires; the partial input is kept.
        ``max_size`` lowers the size limit for this frame (e.g. during the handshake).
        """
        limit = self.max_frame_size if max_size is None else min(max_size, self.max_frame_size)
        deadline = math.inf if timeout is None else trio.current_time() + timeout
        with trio.fail_at(deadline):
            while True:
                body = self._parse(limit)
                if body is not None:
                    return body
                if self._eof:
                    if self._buf:
                        raise FrameError(
                            f"truncated frame: stream ended with {len(self._buf)} bytes of an "
                            "incomplete frame"
                        )
                    return None
                data = await self.stream.receive_some(self.chunk_size)
                if not data:
                    self._eof = True
                else:
                    self._buf += data
