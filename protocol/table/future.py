"""Frames that arrived before their predecessor: kept, by the head they build on, until it is
reached, at most ``limit`` in all. When full, the least useful frame gives way: one for a step
the table has already passed, else the one farthest ahead. So a flood of frames for made-up,
far-off steps cannot crowd out the next real ones (a frame dropped here may come again: the
catch-up sends it)."""

from __future__ import annotations

from collections.abc import Iterator

from dealerless.protocol.messages import SignedMessage

Position = tuple[int, int]  # (hand, seq)


class FutureFrames:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._by_prev: dict[bytes, list[bytes]] = {}
        self._kept: dict[bytes, tuple[Position, bytes]] = {}  # frame -> (position, prev)

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, prev: object) -> bool:
        """Whether a frame waits for the head ``prev``."""
        return prev in self._by_prev

    def frames(self) -> Iterator[bytes]:
        return iter(self._kept)

    def add(self, message: SignedMessage, here: Position) -> bytes | None:
        """Keep ``message``; returns the frame that had to go for it (or itself), if any."""

        def worth(position: Position) -> tuple[bool, Position]:
            return (position < here, position)  # larger: the first to go

        if message.frame in self._kept:
            return None  # a copy of a frame kept already (a duplicate, or a catch-up's resend)
        position = (message.hand, message.seq)
        dropped = None
        if len(self._kept) >= self.limit:
            worst = max(self._kept, key=lambda f: worth(self._kept[f][0]))
            if worth(self._kept[worst][0]) <= worth(position):
                return message.frame
            self._remove(worst)
            dropped = worst
        self._by_prev.setdefault(message.prev, []).append(message.frame)
        self._kept[message.frame] = (position, message.prev)
        return dropped

    def take(self, prev: bytes) -> list[bytes]:
        """The frames that wait for ``prev`` (no longer kept)."""
        frames = self._by_prev.pop(prev, [])
        for frame in frames:
            del self._kept[frame]
        return frames

    def _remove(self, frame: bytes) -> None:
        prev = self._kept.pop(frame)[1]
        waiting = self._by_prev[prev]
        waiting.remove(frame)
        if not waiting:
            del self._by_prev[prev]
