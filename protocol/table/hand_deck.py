"""One hand's mental-poker deck as the table protocol uses it.

Keeps what every peer knows (key shares, the deck after each shuffle, every verified decryption
share, the cards opened in public) and, for a seated peer, its secret key share and the cards it
was dealt. Each ``accept_*`` verifies a peer's payload and raises a ``CryptoError`` naming what
failed; each ``make_*`` builds this peer's own payload.

Proof step labels: ``deal`` for shares that deal a card privately, ``open`` for shares that
open a card in public (a turned-up card, a played card, a card shown on a check or claim), and
``play/<seq>`` for non-membership proofs, so a legality proof is bound to the chain position of
the play it justifies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealerless.protocol.crypto import (
    Ciphertext,
    CryptoError,
    HandDeckContext,
    KeyCommit,
    KeyReveal,
    NonMembershipMessage,
    PlayerSecret,
    Point,
    ProofError,
    ShareBatchMessage,
    ShareMessage,
    ShuffleMessage,
    batch_statement,
    check_shuffle_shape,
    initial_deck,
    joint_key,
    make_nonmembership,
    make_share,
    make_share_batch,
    make_shuffle,
    open_card,
    opened_key,
    recover_card,
    share_of,
    sum_points,
    verify_key_reveal,
    verify_nonmembership_message,
    verify_share,
    verify_share_batch,
    verify_shuffle_message,
)
from dealerless.protocol.crypto.generators import g_table
from dealerless.protocol.messages import MessageError, pack, unpack

DEAL = "deal"
OPEN = "open"


def play_step(seq: int) -> str:
    return f"play/{seq}"


@dataclass
class HandDeck:
    hctx: HandDeckContext
    participants: tuple[int, ...]
    secret: PlayerSecret | None = None  # None for an observer (audit)
    commits: dict[int, KeyCommit] = field(default_factory=dict)
    key_shares: dict[int, Point] = field(default_factory=dict)
    joint: Point | None = None
    deck: list[Ciphertext] = field(default_factory=list)
    shuffled_by: list[int] = field(default_factory=list)
    # A shuffle taken before its proof was verified: (seat, its input deck, the message).
    unchecked: tuple[int, list[Ciphertext], ShuffleMessage] | None = None
    shares: dict[int, dict[int, Point]] = field(default_factory=dict)  # position -> seat -> share
    owners: dict[int, int] = field(default_factory=dict)  # position -> seat it was dealt to
    public: dict[int, int] = field(default_factory=dict)  # position -> card index, opened
    mine: dict[int, int] = field(default_factory=dict)  # position -> card index, my own cards
    # Replaying records whose zero-knowledge proofs this process verified as they arrived (the
    # check at the end of a game, TableMachine.confirm): every rule, commitment, seat and
    # position is checked again, the proofs are not. An auditor never sets it.
    proofs_checked: bool = False
    # Digests of frames whose proofs were verified when they came, before the hand started (a
    # prepared deck, P-53): taken onto the hand's chain, they are not verified again.
    checked_frames: set[bytes] = field(default_factory=set)

    @property
    def seat(self) -> int | None:
        return None if self.secret is None else self.secret.seat

    def _secret(self) -> PlayerSecret:
        if self.secret is None:
            raise RuntimeError("an observer has no key share")
        return self.secret

    # -- joint key -------------------------------------------------------------------------
    def make_commit(self) -> dict[str, Any]:
        return self._secret().commit().to_wire()

    def accept_commit(self, seat: int, payload: object) -> None:
        commit = KeyCommit.from_wire(payload)
        if commit.seat != seat:
            raise ProofError(f"key commitment names seat {commit.seat}, sent by seat {seat}")
        self.commits[seat] = commit

    def make_reveal(self) -> dict[str, Any]:
        return self._secret().reveal().to_wire()

    def accept_reveal(self, seat: int, payload: object, *, checked: bool = False) -> None:
        """``checked``: its proof was verified when the frame came (a prepared deck, P-53)."""
        reveal = KeyReveal.from_wire(payload)
        commit = self.commits.get(seat)
        if commit is None:
            raise ProofError(f"seat {seat} reveals a key share it never committed to")
        check = opened_key if self.proofs_checked or checked else verify_key_reveal
        self.key_shares[seat] = check(self.hctx, commit, reveal)
        if len(self.key_shares) == len(self.participants):
            self.joint = joint_key([self.key_shares[s] for s in self.participants])
            self.deck = initial_deck(self.joint)

    # -- shuffle chain ---------------------------------------------------------------------
    def make_shuffle(self) -> dict[str, Any]:
        assert self.joint is not None
        return make_shuffle(self._secret(), self.joint, self.deck).to_wire()

    def accept_shuffle(
        self,
        seat: int,
        payload: object,
        *,
        trusted: bool = False,
        later: bool = False,
        checked: bool = False,
    ) -> None:
        """Verify a seat's shuffle and take its deck (``trusted`` only for our own). With
        ``later`` only its shape is checked now (every point decoded, counts, seat) and
        :meth:`check_unchecked` verifies the proof (table/check_later.py); with ``checked``
        its proof was verified when the frame came (a prepared deck, P-53)."""
        assert self.joint is not None
        message = ShuffleMessage.from_wire(payload)
        if trusted:
            if message.seat != seat:
                raise ProofError("own shuffle names another seat")
            self.deck = list(message.deck)
        elif later or self.proofs_checked or checked:
            check_shuffle_shape(self.joint, self.deck, message, seat)
            if not (self.proofs_checked or checked):
                self.unchecked = (seat, list(self.deck), message)
            self.deck = list(message.deck)
        else:
            self.deck = verify_shuffle_message(self.hctx, self.joint, self.deck, message, seat)
        self.shuffled_by.append(seat)

    def check_unchecked(self) -> None:
        """Verify the proof of the shuffle taken with ``later`` (raises ProofError)."""
        if self.unchecked is None:
            return
        assert self.joint is not None
        seat, deck_in, message = self.unchecked
        self.unchecked = None
        verify_shuffle_message(self.hctx, self.joint, deck_in, message, seat)

    # -- shares ----------------------------------------------------------------------------
    def make_share(self, position: int, step: str) -> dict[str, Any]:
        """One share message with its own proof (a played card's ``open``)."""
        secret = self._secret()
        message = make_share(secret, position, self.deck[position], step)
        self.shares.setdefault(position, {})[secret.seat] = message.share
        return message.to_wire()

    def make_share_batch(self, positions: Iterable[int], step: str) -> dict[str, Any]:
        """Our shares for every position of a share round or a reveal, under one proof."""
        secret = self._secret()
        message = make_share_batch(secret, list(positions), self.deck, step)
        for position, share in message.as_map().items():
            self.shares.setdefault(position, {})[secret.seat] = share
        return message.to_wire()

    def accept_share_batch(
        self, seat: int, payload: object, positions: Sequence[int], step: str
    ) -> None:
        """Verify ``seat``'s batched shares for exactly ``positions`` (the message lists them
        ascending); a bad point is named by its place in the body (``batch.shares[2]``)."""
        message = ShareBatchMessage.from_wire(payload, "batch")
        verified: Mapping[int, Point]
        if self.proofs_checked:
            batch_statement(message, seat, positions)
            verified = message.as_map()
        else:
            verified = verify_share_batch(
                self.hctx, self.key_shares[seat], self.deck, message, seat, positions, step
            )
        for position, share in verified.items():
            self.shares.setdefault(position, {})[seat] = share

    def verify_share_payload(
        self, seat: int, payload: object, position: int, step: str, what: str = "share"
    ) -> Point:
        """Verify one share without storing it (``what``: the payload's name in errors)."""
        message = ShareMessage.from_wire(payload, what)
        if self.proofs_checked:
            return share_of(message, position, seat)
        return verify_share(
            self.hctx, self.key_shares[seat], position, self.deck[position], message, seat, step
        )

    def card_with(self, position: int, extra: dict[int, Point]) -> int:
        """The card at a position from the stored shares plus ``extra`` (nothing is stored)."""
        got = {**self.shares.get(position, {}), **extra}
        missing = [s for s in self.participants if s not in got]
        if missing:
            raise ProofError(f"position {position}: no shares yet from seats {missing}")
        return open_card(position, self.deck[position], [got[s] for s in self.participants])

    def others_sum(self, position: int, owner: int) -> Point:
        got = self.shares.get(position, {})
        return sum_points(got[s] for s in self.participants if s != owner)

    def has_others_shares(self, position: int, owner: int) -> bool:
        got = self.shares.get(position, {})
        return all(s in got for s in self.participants if s != owner)

    def deal_to(self, assignments: Sequence[tuple[int, int]]) -> list[int | None]:
        """After a deal round: record owners; recover our own cards (None for the others)."""
        out: list[int | None] = []
        for seat, position in assignments:
            self.owners[position] = seat
            if seat == self.seat:
                card = recover_card(
                    self._secret(),
                    position,
                    self.deck[position],
                    [self.shares[position][s] for s in self.participants if s != seat],
                )
                self.mine[position] = card
                out.append(card)
            else:
                out.append(None)
        return out

    def open_public(self, position: int) -> int:
        """Open a position with every participant's verified share."""
        got = self.shares[position]
        card = open_card(position, self.deck[position], [got[s] for s in self.participants])
        self.public[position] = card
        return card

    # -- legality proofs -------------------------------------------------------------------
    def make_nonmembership(
        self, positions: Iterable[int], forbidden: Sequence[int], step: str
    ) -> list[dict[str, Any]]:
        secret = self._secret()
        return [
            make_nonmembership(
                secret,
                position,
                self.deck[position],
                self.others_sum(position, secret.seat),
                forbidden,
                step,
            ).to_wire()
            for position in positions
        ]

    def accept_nonmembership(
        self,
        seat: int,
        payloads: Sequence[object],
        positions: Sequence[int],
        forbidden: Sequence[int],
        step: str,
    ) -> None:
        if len(payloads) != len(positions):
            raise ProofError(
                f"seat {seat} proved {len(payloads)} hidden cards, {len(positions)} are hidden"
            )
        for position, payload in zip(positions, payloads, strict=True):
            message = NonMembershipMessage.from_wire(payload)
            if self.proofs_checked:
                continue  # decoded (every point checked), its proof verified when it came
            verify_nonmembership_message(
                self.hctx,
                self.key_shares[seat],
                position,
                self.deck[position],
                self.others_sum(position, seat),
                forbidden,
                message,
                seat,
                step,
            )


__all__ = ["DEAL", "OPEN", "CryptoError", "HandDeck", "decode_secret", "encode_secret", "play_step"]


SECRET_FORMAT = 1


def encode_secret(
    secret: PlayerSecret,
    *,
    frame: bytes | None = None,
    prepared_from: bytes | None = None,
    prepared: Sequence[bytes] = (),
) -> bytes:
    """A hand's key share for a node's own crash-safe store (never sent to anyone), with our
    own frame of the parallel round we are in (``frame``), stored before it is sent. A share
    made to prepare the hand while the one before is played (P-53) names the head its setup is
    signed on from (``prepared_from``) and keeps our frames of that setup (``prepared``)."""
    data: dict[str, Any] = {
        "format": SECRET_FORMAT,
        "hand": secret.hctx.hand,
        "seat": secret.seat,
        "x": secret.x.to_bytes(32, "big"),
        "nonce": secret.nonce,
    }
    if frame is not None:
        data["frame"] = frame
    if prepared_from is not None:
        data["prepared_from"] = prepared_from
        data["prepared"] = list(prepared)
    return pack(data)


def _stored_fields(blob: bytes | None) -> dict[Any, Any]:
    """A stored share's fields (empty if there is none or it is unreadable)."""
    if blob is None:
        return {}
    try:
        data = unpack(blob)
    except (ValueError, MessageError):
        return {}
    return data if isinstance(data, dict) else {}


def stored_preparation(blob: bytes | None) -> tuple[bytes, list[bytes]] | None:
    """The head a stored share's hand was prepared from and our frames of that setup (None: a
    share made at its hand's start, or unreadable)."""
    data = _stored_fields(blob)
    anchor, frames = data.get("prepared_from"), data.get("prepared")
    if not isinstance(anchor, bytes) or not isinstance(frames, list):
        return None
    if not all(isinstance(f, bytes) for f in frames):
        return None
    return anchor, list(frames)


def stored_round_frame(blob: bytes | None) -> bytes | None:
    """Our own round frame stored with a key share (None if there is none or it is unreadable:
    then the step is signed again, as before a crash that lost nothing)."""
    frame = _stored_fields(blob).get("frame")
    return frame if isinstance(frame, bytes) else None


def decode_secret(hctx: HandDeckContext, seat: int, blob: bytes) -> PlayerSecret:
    data = unpack(blob)
    if (
        not isinstance(data, dict)
        or data.get("format") != SECRET_FORMAT
        or data.get("hand") != hctx.hand
        or data.get("seat") != seat
        or not isinstance(data.get("x"), bytes)
        or not isinstance(data.get("nonce"), bytes)
    ):
        raise ValueError(f"stored key share for hand {hctx.hand} is not valid")
    x = int.from_bytes(data["x"], "big")
    return PlayerSecret(hctx, seat, x, g_table().mul(x), data["nonce"])


@dataclass(frozen=True)
class StoredShare:
    """What a stored blob gives a hand whose setup is signed on from a given head."""

    secret: PlayerSecret | None = None  # None: nothing stored for this setup
    prepared: list[bytes] | None = None  # our frames of its prepared setup (P-53), if it was
    damaged: str | None = None  # stored for it but unreadable: the share is lost


def stored_share(
    blob: bytes | None, hctx: HandDeckContext, seat: int, anchor: bytes
) -> StoredShare:
    """Read our stored share for hand ``hctx.hand``, whose setup is signed on from ``anchor``.
    A share prepared for a setup that never came (a seat change between, P-53) is none."""
    if blob is None:
        return StoredShare()
    preparation = stored_preparation(blob)
    if preparation is not None and preparation[0] != anchor:
        return StoredShare()
    try:
        secret = decode_secret(hctx, seat, blob)
    except (ValueError, MessageError) as exc:
        return StoredShare(damaged=f"the stored key share of hand {hctx.hand} is damaged ({exc})")
    return StoredShare(secret, None if preparation is None else preparation[1])
