"""The key shares of a seat's hands: those stored before (a machine rebuilt after a crash reads
them) and those made since the node last took them to store (0600, before anything is sent)."""

from __future__ import annotations

from collections.abc import Mapping


class KeyShares:
    def __init__(self, stored: Mapping[int, bytes] | None = None) -> None:
        self._stored = dict(stored or {})
        self._new: list[tuple[int, bytes]] = []

    def stored(self, hand: int) -> bytes | None:
        return self._stored.get(hand)

    def keep(self, hand: int, blob: bytes) -> None:
        """A share (or a share with our round frame) to store before anything leaves."""
        self._new.append((hand, blob))

    def take(self) -> list[tuple[int, bytes]]:
        out, self._new = self._new, []
        return out
