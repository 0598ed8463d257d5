"""Exponential-free EC ElGamal on the card points under the joint key Y.

A ciphertext of card point M is ``(c1, c2) = (r*g, M + r*Y)``. The initial deck is the
public deterministic encryption with r = 1: ``(g, M_i + Y)`` for i = 0..31, which every
player computes identically and which contains no identity point.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import DecodeError
from .generators import DECK_SIZE, card_points, g, g_table
from .group import Point, decode_point, encode_point, sum_points


@dataclass(frozen=True, slots=True)
class Ciphertext:
    c1: Point
    c2: Point

    def to_wire(self, what: str = "ciphertext") -> list[bytes]:
        return [encode_point(self.c1, f"{what}.c1"), encode_point(self.c2, f"{what}.c2")]

    @staticmethod
    def from_wire(data: object, what: str = "ciphertext") -> Ciphertext:
        if not isinstance(data, list | tuple) or len(data) != 2:
            raise DecodeError(f"{what}: expected [c1, c2]")
        return Ciphertext(decode_point(data[0], f"{what}.c1"), decode_point(data[1], f"{what}.c2"))

    def reencrypt(self, r: int, y: Point) -> Ciphertext:
        return Ciphertext(self.c1 + g_table().mul(r), self.c2 + y * r)


def initial_deck(y: Point) -> list[Ciphertext]:
    """``(g, M_i + Y)`` for every card index i, in index order."""
    gp = g()
    return [Ciphertext(gp, m + y) for m in card_points()]


def deck_to_wire(deck: Sequence[Ciphertext], what: str = "deck") -> list[list[bytes]]:
    return [ct.to_wire(f"{what}[{i}]") for i, ct in enumerate(deck)]


def deck_from_wire(data: object, what: str = "deck", size: int = DECK_SIZE) -> list[Ciphertext]:
    if not isinstance(data, list | tuple):
        raise DecodeError(f"{what}: expected a list of ciphertexts")
    if len(data) != size:
        raise DecodeError(f"{what}: expected {size} ciphertexts, got {len(data)}")
    return [Ciphertext.from_wire(item, f"{what}[{i}]") for i, item in enumerate(data)]


def decrypt_with_shares(ct: Ciphertext, shares: Sequence[Point]) -> Point:
    """``c2 - sum(shares)``: the card point once every player's share x_j*c1 is removed."""
    return ct.c2 - sum_points(shares)
