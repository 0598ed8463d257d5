"""Test helper: a whole table of players in one process, every message through msgpack."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from typing import Any

import msgpack

from dealerless.protocol.crypto import (
    Ciphertext,
    HandDeckContext,
    KeyCommit,
    KeyReveal,
    NonMembershipMessage,
    PlayerSecret,
    Point,
    ShareBatchMessage,
    ShareMessage,
    ShuffleMessage,
    initial_deck,
    joint_key,
    make_nonmembership,
    make_share,
    make_share_batch,
    make_shuffle,
    open_card,
    recover_card,
    sum_points,
    verify_key_reveal,
    verify_nonmembership_message,
    verify_share,
    verify_share_batch,
    verify_shuffle_message,
    verify_shuffle_round,
)


def wire(obj: Any) -> Any:
    """Round-trip a to_wire() payload through msgpack like the network would."""
    return msgpack.unpackb(msgpack.packb(obj.to_wire(), use_bin_type=True), raw=False)


class DetRand:
    """Deterministic ``randbelow`` for recorded vectors (SHA-256 counter mode, rejection)."""

    def __init__(self, seed: bytes) -> None:
        self.seed = seed
        self.counter = 0

    def __call__(self, n: int) -> int:
        nbytes = (n.bit_length() + 7) // 8 + 8
        while True:
            out = b""
            while len(out) < nbytes:
                out += hashlib.sha256(self.seed + self.counter.to_bytes(8, "big")).digest()
                self.counter += 1
            v = int.from_bytes(out[:nbytes], "big")
            limit = (256**nbytes // n) * n
            if v < limit:
                return v % n


class SimTable:
    def __init__(
        self,
        n: int,
        table_id: bytes = b"table-1",
        hand: int = 1,
        rand: Callable[[int], int] = secrets.randbelow,
    ) -> None:
        self.n = n
        self.rand = rand
        self.hctx = HandDeckContext(table_id, hand)
        self.players = [PlayerSecret.generate(self.hctx, s, rand) for s in range(n)]
        self.keys: list[Point] = []
        self.y: Point | None = None
        self.deck: list[Ciphertext] = []
        self.shuffles: list[ShuffleMessage] = []
        # position -> seat -> verified share
        self.shares: dict[int, dict[int, Point]] = {}
        self.owner: dict[int, int] = {}
        self.known: dict[int, int] = {}  # position -> card index known by the owner

    # ---- keys
    def setup_keys(self) -> None:
        commits = [KeyCommit.from_wire(wire(p.commit())) for p in self.players]
        reveals = [KeyReveal.from_wire(wire(p.reveal(self.rand))) for p in self.players]
        views = []
        for verifier in range(self.n):
            ys = []
            for s in range(self.n):
                if s == verifier:
                    ys.append(self.players[s].y)
                else:
                    ys.append(verify_key_reveal(self.hctx, commits[s], reveals[s]))
            views.append(joint_key(ys))
        assert all(v == views[0] for v in views)
        self.keys = [p.y for p in self.players]
        self.y = views[0]

    # ---- shuffle chain
    def shuffle_all(self) -> None:
        assert self.y is not None
        deck0 = deck = initial_deck(self.y)
        for s in range(self.n):
            msg = ShuffleMessage.from_wire(
                wire(make_shuffle(self.players[s], self.y, deck, self.rand))
            )
            self.shuffles.append(msg)
            deck = list(msg.deck)
        seats = list(range(self.n))
        finals = []
        for v in range(self.n):
            if v % 2 == 0:  # even seats check the round in one batch
                finals.append(
                    verify_shuffle_round(self.hctx, self.y, deck0, self.shuffles, seats, v)
                )
            else:  # odd seats check each shuffle on its own
                d = deck0
                for s, msg in enumerate(self.shuffles):
                    if s != v:
                        verify_shuffle_message(self.hctx, self.y, d, msg, s)
                    d = list(msg.deck)
                finals.append(d)
        assert all(f == finals[0] for f in finals)
        self.deck = finals[0]

    # ---- shares
    def publish_share(self, seat: int, position: int, step: str) -> ShareMessage:
        msg = make_share(self.players[seat], position, self.deck[position], step, self.rand)
        return ShareMessage.from_wire(wire(msg))

    def collect_shares(self, position: int, seats: list[int], step: str) -> None:
        for s in seats:
            msg = self.publish_share(s, position, step)
            got = None
            for v in range(self.n):
                if v == s:
                    continue
                got = verify_share(
                    self.hctx, self.keys[s], position, self.deck[position], msg, s, step
                )
            assert got is not None
            self.shares.setdefault(position, {})[s] = got

    def deal(self, position: int, owner: int, step: str = "deal") -> int:
        others = [s for s in range(self.n) if s != owner]
        self.collect_shares(position, others, step)
        self.owner[position] = owner
        card = recover_card(
            self.players[owner],
            position,
            self.deck[position],
            [self.shares[position][s] for s in others],
        )
        self.known[position] = card
        return card

    def deal_batch(self, owners: dict[int, int], step: str = "deal") -> dict[int, int]:
        """Deal many positions at once: one ShareBatchMessage per seat, checked by all others."""
        for s in range(self.n):
            positions = sorted(p for p, o in owners.items() if o != s)
            if not positions:
                continue
            msg = make_share_batch(self.players[s], positions, self.deck, step, self.rand)
            msg = ShareBatchMessage.from_wire(wire(msg))
            got = None
            for v in range(self.n):
                if v != s:
                    got = verify_share_batch(
                        self.hctx, self.keys[s], self.deck, msg, s, positions, step
                    )
            assert got is not None
            for p, share in got.items():
                self.shares.setdefault(p, {})[s] = share
        out = {}
        for p, owner in owners.items():
            self.owner[p] = owner
            others = [v for s, v in self.shares[p].items() if s != owner]
            assert len(others) == self.n - 1
            self.known[p] = recover_card(self.players[owner], p, self.deck[p], others)
            out[p] = self.known[p]
        return out

    def others_sum(self, position: int) -> Point:
        owner = self.owner[position]
        return sum_points(v for s, v in self.shares[position].items() if s != owner)

    def open(self, position: int, step: str = "open") -> int:
        owner = self.owner[position]
        self.collect_shares(position, [owner], step)
        return open_card(position, self.deck[position], list(self.shares[position].values()))

    def open_public(self, position: int, step: str = "show") -> int:
        """Open an undealt (stock) position: every seat publishes its share."""
        self.collect_shares(position, list(range(self.n)), step)
        return open_card(position, self.deck[position], list(self.shares[position].values()))

    def nonmember(self, position: int, forbidden: list[int], step: str) -> NonMembershipMessage:
        owner = self.owner[position]
        msg = make_nonmembership(
            self.players[owner],
            position,
            self.deck[position],
            self.others_sum(position),
            forbidden,
            step,
            self.rand,
        )
        msg = NonMembershipMessage.from_wire(wire(msg))
        for v in range(self.n):
            if v != owner:
                verify_nonmembership_message(
                    self.hctx,
                    self.keys[owner],
                    position,
                    self.deck[position],
                    self.others_sum(position),
                    forbidden,
                    msg,
                    owner,
                    step,
                )
        return msg
