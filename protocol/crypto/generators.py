"""Public generators and card points, all from RFC 9380 hash-to-curve with our own DSTs.

Nothing here is chosen by a party and none is the standard secp256k1 base point, so nobody knows
a discrete-log relation between any two of them.

* ``g``       = hash_to_curve(b"g", GEN_DST)           ElGamal base, Schnorr/DLEQ base
* ``h``       = hash_to_curve(b"h", GEN_DST)           base of the shuffle commitment chain
* ``h_i``     = hash_to_curve(b"h_i:" || I2OSP(i, 2), GEN_DST)   Pedersen bases of the shuffle
* ``M_i``     = hash_to_curve(b"card:" || I2OSP(i, 1), CARD_DST) card with index i (0..31)

The points are read from generator_points.py, where they are written down; ``derive_*`` give
them from hash-to-curve, and a test holds the two equal.
"""

from __future__ import annotations

from functools import cache

from . import generator_points as points
from .errors import NotACard
from .group import FixedBase, Point, decode_point
from .h2c import SUITE_ID, hash_to_curve

GEN_DST = b"dealerless-v1-generator-with-" + SUITE_ID
CARD_DST = b"dealerless-v1-card-with-" + SUITE_ID
DECK_SIZE = 32
MAX_SHUFFLE = 64


def derive_g() -> Point:
    return hash_to_curve(b"g", GEN_DST)


def derive_h() -> Point:
    return hash_to_curve(b"h", GEN_DST)


def derive_h_i(i: int) -> Point:
    return hash_to_curve(b"h_i:" + i.to_bytes(2, "big"), GEN_DST)


def derive_card(i: int) -> Point:
    return hash_to_curve(b"card:" + bytes([i]), CARD_DST)


def _written(hex_point: str) -> Point:
    return decode_point(bytes.fromhex(hex_point), "generator")


@cache
def g() -> Point:
    return _written(points.G)


@cache
def g_table() -> FixedBase:
    """Window table for fast ``k * g``."""
    return FixedBase(g())


@cache
def h() -> Point:
    return _written(points.H)


@cache
def h_table() -> FixedBase:
    """Window table for fast ``k * h`` (the prover's commitment chain)."""
    return FixedBase(h())


@cache
def shuffle_bases(n: int) -> tuple[Point, ...]:
    """``h_0 .. h_{n-1}``, the independent Pedersen bases of a shuffle of n ciphertexts."""
    if not 1 <= n <= MAX_SHUFFLE:
        raise ValueError(f"shuffle size must be 1..{MAX_SHUFFLE}")
    return tuple(_h_i(i) for i in range(n))


@cache
def _h_i(i: int) -> Point:
    return _written(points.H_I[i])


@cache
def card_points() -> tuple[Point, ...]:
    return tuple(_written(points.CARDS[i]) for i in range(DECK_SIZE))


@cache
def _card_lookup() -> dict[bytes, int]:
    table = {pt.encode(): i for i, pt in enumerate(card_points())}
    specials = [g(), h(), *shuffle_bases(DECK_SIZE)]
    if len(table) != DECK_SIZE or any(s.encode() in table for s in specials):
        raise AssertionError("generators are not distinct")  # pragma: no cover
    if len({s.encode() for s in specials}) != len(specials):
        raise AssertionError("generators are not distinct")  # pragma: no cover
    return table


def card_point(index: int) -> Point:
    return card_points()[index]


def card_index(point: Point, position: int | None = None) -> int:
    """Map a decrypted point back to its card index; :class:`NotACard` names the position."""
    idx = _card_lookup().get(point.encode())
    if idx is None:
        where = "" if position is None else f" at deck position {position}"
        raise NotACard(f"decrypted point{where} is not a card")
    return idx
