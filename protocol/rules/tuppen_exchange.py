"""Classic Tuppen extra rules around the dealt hand: dirty laundry, Tupp attempt, Tupp.

Pure helpers (no engine state): what counts as true dirty laundry, three/four of a kind, and
the state of a dirty-laundry declaration while the other seats decide whether to check it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from dealerless.protocol.cards import Card, Rank
from dealerless.protocol.rules.base import Action, ActionKind, HandSlot

PICTURES: frozenset[Rank] = frozenset({Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE})
LAUNDRY_DRAW = 4  # dirty laundry exchanges all four cards
ATTEMPT_DRAW = 1  # a Tupp attempt exchanges the fourth card


def is_true_laundry(cards: Sequence[Card]) -> bool:
    """Four picture cards (J, Q, K, A), or three picture cards plus a 7."""
    if len(cards) != 4:
        return False
    pictures = sum(1 for c in cards if c.rank in PICTURES)
    sevens = sum(1 for c in cards if c.rank == Rank.SEVEN)
    return pictures == 4 or (pictures == 3 and sevens == 1)


def same_rank(cards: Iterable[Card]) -> bool:
    ranks = {c.rank for c in cards}
    return len(ranks) == 1


def is_tupp(cards: Sequence[Card]) -> bool:
    """Four cards of one rank."""
    return len(cards) == 4 and same_rank(cards)


def attempt_actions(seat: int, hand: Sequence[HandSlot]) -> list[Action]:
    """Every Tupp attempt a fully known four-card hand allows: three of a kind shown
    (``cards``), the fourth card named by its deck position only (it is discarded face down)."""
    if len(hand) != 4 or any(s.card is None for s in hand):
        return []
    out = []
    for odd in hand:
        rest = [s.card for s in hand if s is not odd and s.card is not None]
        assert odd.card is not None
        if same_rank(rest) and odd.card.rank != rest[0].rank:
            three = tuple(sorted(rest))
            out.append(Action(ActionKind.TUPP_ATTEMPT, seat, cards=three, position=odd.position))
    return out


@dataclass
class Laundry:
    """A dirty-laundry declaration waiting for the other seats to CHECK or ACCEPT."""

    declarer: int
    slots: list[HandSlot]  # the set-aside cards (hidden to the other seats)
    checkers: list[int] = field(default_factory=list)  # seats still to answer, in order

    def public_state(self) -> dict[str, object]:
        return {
            "declarer": self.declarer,
            "positions": [s.position for s in self.slots],
            "checkers": list(self.checkers),
        }
