"""The key shares of a seat's hands: those stored before (a machine rebuilt after a crash reads
them) and those made since the node last took them to store (0600, before anything is sent).

Every blob kept here is encoded here, so that what a hand's share keeps across its blobs (the
preparation of a hand prepared while the one before is played, P-53) is decided in one place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dealerless.protocol.crypto import PlayerSecret
from dealerless.protocol.table.hand_deck import encode_secret, stored_preparation

# Hands whose preparation is remembered: the running one, the prepared next one, and a few
# before them (a roll-back reaches back into them and stores their round frames again).
PREPARATIONS_KEPT = 8

Preparation = tuple[bytes, tuple[bytes, ...]]  # the setup's head, our frames of that setup


class KeyShares:
    def __init__(self, stored: Mapping[int, bytes] | None = None) -> None:
        self._stored = dict(stored or {})
        self._new: list[tuple[int, bytes]] = []
        # Read once from what was stored (after a crash), then kept up to date by every keep.
        self._preparations: dict[int, Preparation | None] = {}
        for hand, blob in sorted(self._stored.items()):
            found = stored_preparation(blob)
            self._remember(hand, None if found is None else (found[0], tuple(found[1])))

    def stored(self, hand: int) -> bytes | None:
        """What was stored for ``hand`` before this machine was built (after a crash)."""
        return self._stored.get(hand)

    def keep_share(self, secret: PlayerSecret) -> None:
        """A share made at its hand's start (no preparation)."""
        self._remember(secret.hctx.hand, None)
        self._keep(secret.hctx.hand, encode_secret(secret))

    def keep_prepared(self, secret: PlayerSecret, anchor: bytes, frames: Sequence[bytes]) -> None:
        """A share made to prepare its hand, whose setup is signed on from ``anchor``, with our
        frames of that setup so far."""
        hand = secret.hctx.hand
        self._remember(hand, (anchor, tuple(frames)))
        self._keep(hand, encode_secret(secret, prepared_from=anchor, prepared=frames))

    def keep_with_round_frame(self, secret: PlayerSecret, frame: bytes) -> None:
        """Our share with our own frame of the round we are in, stored before it is sent. A
        prepared hand's share keeps the setup's head and our frames of it: the call that starts
        the hand stores this before the setup's records, and a crash between must still find
        them (else the seat plays the hand blind)."""
        hand = secret.hctx.hand
        preparation = self._preparations.get(hand)
        if preparation is None:
            blob = encode_secret(secret, frame=frame)
        else:
            anchor, frames = preparation
            blob = encode_secret(secret, frame=frame, prepared_from=anchor, prepared=frames)
        self._keep(hand, blob)

    def take(self) -> list[tuple[int, bytes]]:
        out, self._new = self._new, []
        return out

    def _keep(self, hand: int, blob: bytes) -> None:
        self._new.append((hand, blob))

    def _remember(self, hand: int, preparation: Preparation | None) -> None:
        self._preparations.pop(hand, None)
        self._preparations[hand] = preparation
        for old in sorted(self._preparations)[:-PREPARATIONS_KEPT]:
            del self._preparations[old]
