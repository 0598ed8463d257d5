"""Schnorr proof of knowledge and Chaum-Pedersen (DLEQ) proofs, compact (e, z) form.

Schnorr (label b"schnorr-key"): knowledge of x with Y = x*g.
    t = w*g;  e = H(ctx, g, Y, extra, t);  z = w + e*x.   Verify: t' = z*g - e*Y, e == H(..t').
DLEQ (label b"dleq"): log_B1(P1) = log_B2(P2) = x.
    t1 = w*B1, t2 = w*B2;  e = H(ctx, B1, P1, B2, P2, extra, t1, t2);  z = w + e*x.
"extra" carries the rest of the public statement (deck position, the other half of a
ciphertext ...), so a proof never verifies for a different statement.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from .errors import DecodeError, ProofError
from .generators import g, g_table
from .group import N, Point, RandBelow, decode_scalar, encode_scalar, random_scalar
from .transcript import ProofContext, Transcript


@dataclass(frozen=True, slots=True)
class SigmaProof:
    """Challenge e and response z (both scalars mod n)."""

    e: int
    z: int

    def to_wire(self) -> list[bytes]:
        return [encode_scalar(self.e), encode_scalar(self.z)]

    @staticmethod
    def from_wire(data: object, what: str = "proof") -> SigmaProof:
        if not isinstance(data, list | tuple) or len(data) != 2:
            raise DecodeError(f"{what}: expected [e, z]")
        return SigmaProof(decode_scalar(data[0], f"{what}.e"), decode_scalar(data[1], f"{what}.z"))


def _mul_base(base: Point, k: int) -> Point:
    return g_table().mul(k) if base is g() else base * k


def _schnorr_transcript(ctx: ProofContext, y: Point, extra: bytes, t: Point) -> int:
    tr = Transcript(b"schnorr-key", ctx)
    tr.point(b"g", g())
    tr.point(b"Y", y)
    tr.append(b"extra", extra)
    tr.point(b"t", t)
    return tr.challenge()


def prove_schnorr(
    ctx: ProofContext,
    x: int,
    y: Point,
    extra: bytes = b"",
    rand: RandBelow = secrets.randbelow,
) -> SigmaProof:
    w = random_scalar(rand)
    e = _schnorr_transcript(ctx, y, extra, g_table().mul(w))
    return SigmaProof(e, (w + e * x) % N)


def verify_schnorr(ctx: ProofContext, y: Point, proof: SigmaProof, extra: bytes = b"") -> None:
    if y.is_identity:
        raise ProofError("schnorr: public key is the identity")
    t = g_table().mul(proof.z) - y * proof.e
    if _schnorr_transcript(ctx, y, extra, t) != proof.e:
        raise ProofError("schnorr proof of key knowledge does not verify")


def _dleq_transcript(
    ctx: ProofContext,
    b1: Point,
    p1: Point,
    b2: Point,
    p2: Point,
    extra: bytes,
    t1: Point,
    t2: Point,
) -> int:
    tr = Transcript(b"dleq", ctx)
    tr.points(b"statement", (b1, p1, b2, p2))
    tr.append(b"extra", extra)
    tr.points(b"commit", (t1, t2))
    return tr.challenge()


def prove_dleq(
    ctx: ProofContext,
    x: int,
    b1: Point,
    p1: Point,
    b2: Point,
    p2: Point,
    extra: bytes = b"",
    rand: RandBelow = secrets.randbelow,
) -> SigmaProof:
    w = random_scalar(rand)
    e = _dleq_transcript(ctx, b1, p1, b2, p2, extra, _mul_base(b1, w), _mul_base(b2, w))
    return SigmaProof(e, (w + e * x) % N)


def verify_dleq(
    ctx: ProofContext,
    b1: Point,
    p1: Point,
    b2: Point,
    p2: Point,
    proof: SigmaProof,
    extra: bytes = b"",
) -> None:
    if b1.is_identity or p1.is_identity or b2.is_identity or p2.is_identity:
        raise ProofError("dleq: statement contains the identity")
    t1 = _mul_base(b1, proof.z) - p1 * proof.e
    t2 = _mul_base(b2, proof.z) - p2 * proof.e
    if _dleq_transcript(ctx, b1, p1, b2, p2, extra, t1, t2) != proof.e:
        raise ProofError("dleq proof does not verify")
