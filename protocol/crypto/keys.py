"""Joint ElGamal key with commit-reveal and a Schnorr proof of knowledge per share.

1. Every player draws x_j (``secrets``), Y_j = x_j*g, a 32-byte nonce, and broadcasts
   KeyCommit = SHA-256(framed "dealerless-v1-key-commit", table, hand, seat, Y_j, nonce).
2. Once all commitments are in, each broadcasts KeyReveal = (Y_j, nonce, Schnorr proof of
   x_j bound to table, hand, seat, step "key"). Receivers check the commitment, that Y_j is a
   valid non-identity point and the proof: no rogue-key choice after seeing the others.
3. Y = sum Y_j.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .dleq import SigmaProof, prove_schnorr, verify_schnorr
from .errors import CommitmentError, DecodeError, ProofError
from .generators import g_table
from .group import Point, RandBelow, encode_point, random_scalar, sum_points
from .transcript import MAX_SEAT, HandDeckContext
from .wire import expect_fields, get_bytes, get_int, get_point

COMMIT_DST = b"dealerless-v1-key-commit"
NONCE_BYTES = 32


def _item(label: bytes, data: bytes) -> bytes:
    return bytes([len(label)]) + label + len(data).to_bytes(4, "big") + data


def key_commitment(hctx: HandDeckContext, seat: int, y: Point, nonce: bytes) -> bytes:
    h = hashlib.sha256()
    for label, data in (
        (b"dst", COMMIT_DST),
        (b"table", hctx.table_id),
        (b"hand", hctx.hand.to_bytes(8, "big")),
        (b"seat", bytes([seat])),
        (b"Y", y.encode()),
        (b"nonce", nonce),
    ):
        h.update(_item(label, data))
    return h.digest()


@dataclass(frozen=True, slots=True)
class KeyCommit:
    seat: int
    commitment: bytes

    def to_wire(self) -> dict[str, Any]:
        return {"seat": self.seat, "commit": self.commitment}

    @staticmethod
    def from_wire(data: object) -> KeyCommit:
        d = expect_fields(data, "key_commit", ("seat", "commit"))
        return KeyCommit(
            get_int(d, "seat", "key_commit", 0, MAX_SEAT), get_bytes(d, "commit", "key_commit", 32)
        )


@dataclass(frozen=True, slots=True)
class KeyReveal:
    seat: int
    y: Point
    nonce: bytes
    proof: SigmaProof

    def to_wire(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "y": encode_point(self.y, "key_reveal.y"),
            "nonce": self.nonce,
            "proof": self.proof.to_wire(),
        }

    @staticmethod
    def from_wire(data: object) -> KeyReveal:
        w = "key_reveal"
        d = expect_fields(data, w, ("seat", "y", "nonce", "proof"))
        return KeyReveal(
            get_int(d, "seat", w, 0, MAX_SEAT),
            get_point(d, "y", w),
            get_bytes(d, "nonce", w, NONCE_BYTES),
            SigmaProof.from_wire(d["proof"], f"{w}.proof"),
        )


@dataclass(slots=True)
class PlayerSecret:
    """A player's secret state for one hand: key share x (never leaves the node)."""

    hctx: HandDeckContext
    seat: int
    x: int = field(repr=False)
    y: Point
    nonce: bytes = field(repr=False)

    @staticmethod
    def generate(
        hctx: HandDeckContext, seat: int, rand: RandBelow = secrets.randbelow
    ) -> PlayerSecret:
        if not 0 <= seat <= MAX_SEAT:
            raise ValueError("seat out of range")
        x = random_scalar(rand)
        nonce = rand(2 ** (8 * NONCE_BYTES)).to_bytes(NONCE_BYTES, "big")
        return PlayerSecret(hctx, seat, x, g_table().mul(x), nonce)

    def commit(self) -> KeyCommit:
        return KeyCommit(self.seat, key_commitment(self.hctx, self.seat, self.y, self.nonce))

    def reveal(self, rand: RandBelow = secrets.randbelow) -> KeyReveal:
        ctx = self.hctx.proof_context(self.seat, "key")
        return KeyReveal(
            self.seat, self.y, self.nonce, prove_schnorr(ctx, self.x, self.y, rand=rand)
        )


def verify_key_reveal(hctx: HandDeckContext, commit: KeyCommit, reveal: KeyReveal) -> Point:
    """Check a reveal against its commitment and its proof; return the player's Y_j."""
    opened_key(hctx, commit, reveal)
    try:
        verify_schnorr(hctx.proof_context(reveal.seat, "key"), reveal.y, reveal.proof)
    except ProofError as exc:
        raise ProofError(f"seat {reveal.seat}: {exc}") from None
    return reveal.y


def opened_key(hctx: HandDeckContext, commit: KeyCommit, reveal: KeyReveal) -> Point:
    """Check a reveal against its commitment only (not its proof of knowledge): for a replay
    of records whose proofs this process already verified (``HandDeck.proofs_checked``)."""
    if commit.seat != reveal.seat:
        raise DecodeError(f"key reveal from seat {reveal.seat} matched to seat {commit.seat}")
    if reveal.y.is_identity:
        raise ProofError(f"seat {reveal.seat}: public key share is the identity")
    if key_commitment(hctx, reveal.seat, reveal.y, reveal.nonce) != commit.commitment:
        raise CommitmentError(f"seat {reveal.seat}: key reveal does not match its commitment")
    return reveal.y


def joint_key(shares: Sequence[Point]) -> Point:
    """Y = sum of the verified shares (must not be the identity)."""
    y = sum_points(shares)
    if y.is_identity:
        raise ProofError("joint key is the identity")
    return y
