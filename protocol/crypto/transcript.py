"""Fiat-Shamir transcripts bound to their full context.

A transcript is a SHA-512 hash over framed items. Framing of one item:
``I2OSP(len(label), 1) || label || I2OSP(len(data), 4) || data``.
Every proof transcript starts with the items

    "dst"   = b"dealerless-v1-fiat-shamir"
    "proof" = proof type (b"schnorr-key", b"dleq", b"shuffle", b"nonmember")
    "table" = table id (1..64 bytes)
    "hand"  = I2OSP(hand, 8)
    "seat"  = I2OSP(seat, 1)       seat of the prover
    "step"  = step label (1..64 bytes, e.g. b"deal/share/pos=5")
    "config"= the table's configuration digest (32 bytes; only where a table is given one:
              it names every seat's key, so a proof cannot be carried into a re-keyed table)

followed by the generators, the whole statement and the prover's commitments (see spec).
Challenge k is ``OS2IP(SHA-512(T || item("challenge", I2OSP(k, 4)))) mod n`` where T is the
framed transcript so far; 512-bit output reduced mod n is statistically uniform.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import DecodeError
from .group import N, Point

FS_DST = b"dealerless-v1-fiat-shamir"
MAX_SEAT = 255


@dataclass(frozen=True, slots=True)
class ProofContext:
    """Who proves what, where: table id, hand number, prover's seat and protocol step."""

    table_id: bytes
    hand: int
    seat: int
    step: bytes
    config: bytes = b""

    def __post_init__(self) -> None:
        if not isinstance(self.config, bytes) or len(self.config) not in (0, 32):
            raise DecodeError("config must be a 32-byte digest (or empty)")
        if not isinstance(self.table_id, bytes) or not 1 <= len(self.table_id) <= 64:
            raise DecodeError("table_id must be 1..64 bytes")
        if not isinstance(self.hand, int) or isinstance(self.hand, bool):
            raise DecodeError("hand must be an int")
        if not 0 <= self.hand < 2**64:
            raise DecodeError("hand must be in 0..2^64-1")
        if not isinstance(self.seat, int) or isinstance(self.seat, bool):
            raise DecodeError("seat must be an int")
        if not 0 <= self.seat <= MAX_SEAT:
            raise DecodeError("seat must be in 0..255")
        if not isinstance(self.step, bytes) or not 1 <= len(self.step) <= 64:
            raise DecodeError("step must be 1..64 bytes")


def _item(label: bytes, data: bytes) -> bytes:
    return bytes([len(label)]) + label + len(data).to_bytes(4, "big") + data


class Transcript:
    __slots__ = ("_h",)

    def __init__(self, proof: bytes, ctx: ProofContext) -> None:
        self._h = hashlib.sha512()
        self.append(b"dst", FS_DST)
        self.append(b"proof", proof)
        self.append(b"table", ctx.table_id)
        self.append(b"hand", ctx.hand.to_bytes(8, "big"))
        self.append(b"seat", bytes([ctx.seat]))
        self.append(b"step", ctx.step)
        if ctx.config:
            self.append(b"config", ctx.config)

    def append(self, label: bytes, data: bytes) -> None:
        self._h.update(_item(label, data))

    def point(self, label: bytes, p: Point) -> None:
        self._h.update(_item(label, p.encode()))

    def points(self, label: bytes, ps: Iterable[Point]) -> None:
        """One item whose data is the concatenation of the 33-byte encodings."""
        self._h.update(_item(label, b"".join(p.encode() for p in ps)))

    def scalar(self, label: bytes, k: int) -> None:
        self._h.update(_item(label, k.to_bytes(32, "big")))

    def challenge(self, k: int = 0) -> int:
        h = self._h.copy()
        h.update(_item(b"challenge", k.to_bytes(4, "big")))
        return int.from_bytes(h.digest(), "big") % N

    def challenges(self, count: int, first: int = 0) -> list[int]:
        return [self.challenge(first + i) for i in range(count)]


@dataclass(frozen=True, slots=True)
class HandDeckContext:
    """One hand at one table: every proof of the hand is bound to (table_id, hand) and, at a
    table, to its signed configuration digest (so to every seat's identity key)."""

    table_id: bytes
    hand: int
    config: bytes = b""

    def __post_init__(self) -> None:
        ProofContext(self.table_id, self.hand, 0, b"x", self.config)  # validates the fields

    def proof_context(self, seat: int, kind: str, step: str = "") -> ProofContext:
        """Context of a proof by ``seat``; the FS step label is ``kind`` or ``kind/step``."""
        label = kind if not step else f"{kind}/{step}"
        return ProofContext(self.table_id, self.hand, seat, label.encode(), self.config)
