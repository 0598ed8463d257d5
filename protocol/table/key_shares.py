"""The key shares of a seat's hands: those stored before (a machine rebuilt after a crash reads
them) and those made since the node last took them to store (0600, before anything is sent)."""

from __future__ import annotations

from collections.abc import Mapping

# Hands whose latest blob is remembered: the running one, the prepared next one, and a few
# before them (a roll-back reaches back into them and stores their round frames again).
LATEST_KEPT = 8


class KeyShares:
    def __init__(self, stored: Mapping[int, bytes] | None = None) -> None:
        self._stored = dict(stored or {})
        self._latest = dict(self._stored)
        self._new: list[tuple[int, bytes]] = []

    def stored(self, hand: int) -> bytes | None:
        """What was stored for ``hand`` before this machine was built (after a crash)."""
        return self._stored.get(hand)

    def latest(self, hand: int) -> bytes | None:
        """The blob last kept for ``hand`` (what the store holds once the node took it)."""
        return self._latest.get(hand)

    def keep(self, hand: int, blob: bytes) -> None:
        """A share (or a share with our round frame) to store before anything leaves."""
        self._new.append((hand, blob))
        self._latest.pop(hand, None)
        self._latest[hand] = blob
        for old in sorted(self._latest)[:-LATEST_KEPT]:
            del self._latest[old]

    def take(self) -> list[tuple[int, bytes]]:
        out, self._new = self._new, []
        return out
