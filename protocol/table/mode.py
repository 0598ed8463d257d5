"""What the table machine is doing with what it receives: one value instead of flags that
could contradict each other."""

from __future__ import annotations

from enum import Enum


class Mode(Enum):
    LIVE = "live"  # writes what is due, votes, judges time
    HELD = "held"  # back from a crash, not heard from a peer yet: receives, writes nothing
    REPLAY = "replay"  # rebuilding from records: writes nothing, judges no time
    ROLLBACK = "rollback"  # replaying the hand up to a fork point: applies no certificate

    @property
    def replaying(self) -> bool:
        return self in (Mode.REPLAY, Mode.ROLLBACK)

    @property
    def rolling_back(self) -> bool:
        return self is Mode.ROLLBACK

    @property
    def held(self) -> bool:
        return self is Mode.HELD
