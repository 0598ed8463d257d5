"""The 32-card piquet deck shared by every game.

A card has a stable index 0..31 (suit * 8 + rank). The index is what travels on the wire and
what the mental-poker deck maps to a curve point, so it must never change.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cache


class Suit(IntEnum):
    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        t = text.strip().upper()
        for suit in cls:
            if t in (suit.letter, suit.symbol, suit.name):
                return suit
        raise ValueError(f"not a suit: {text!r} (use C, D, H or S)")


class Rank(IntEnum):
    """Ranks in a fixed index order; each game defines its own strength order."""

    SEVEN = 0
    EIGHT = 1
    NINE = 2
    TEN = 3
    JACK = 4
    QUEEN = 5
    KING = 6
    ACE = 7

    @property
    def label(self) -> str:
        return ("7", "8", "9", "10", "J", "Q", "K", "A")[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        t = text.strip().upper()
        for rank in cls:
            if t == rank.label or t == rank.name:
                return rank
        if t == "T":
            return cls.TEN
        raise ValueError(f"not a rank: {text!r} (use 7, 8, 9, 10, J, Q, K or A)")


@dataclass(frozen=True, order=True, slots=True)
class Card:
    suit: Suit
    rank: Rank

    @property
    def index(self) -> int:
        return int(self.suit) * 8 + int(self.rank)

    @staticmethod
    def from_index(index: int) -> Card:
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 32:
            raise ValueError(f"card index must be an int in 0..31, got {index!r}")
        return DECK[index]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse 'QH', '10s', 'T♠', '7d'."""
        t = text.strip()
        if len(t) < 2:
            raise ValueError(f"not a card: {text!r} (examples: QH, 10S, 7D)")
        return Card(Suit.parse(t[-1]), Rank.parse(t[:-1]))

    def __str__(self) -> str:
        return f"{self.rank.label}{self.suit.letter}"

    def pretty(self, unicode: bool = True) -> str:
        return f"{self.rank.label}{self.suit.symbol if unicode else self.suit.letter}"


@cache
def _deck() -> tuple[Card, ...]:
    return tuple(Card(s, r) for s in Suit for r in Rank)


DECK: tuple[Card, ...] = _deck()


def cards_of_suit(suit: Suit) -> frozenset[Card]:
    return frozenset(c for c in DECK if c.suit == suit)


def format_cards(cards: object) -> str:
    from collections.abc import Iterable

    if isinstance(cards, Iterable):
        return " ".join(str(c) for c in cards)
    return str(cards)
