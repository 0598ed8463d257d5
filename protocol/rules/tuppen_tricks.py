"""Trick rules shared by every Tuppen/Toepen game (classic, Limit family, Pottuppen).

Ranks from low to high: J Q K A 7 8 9 10; follow suit if you can; the highest card of the
suit that decides the trick wins it. Folded players' cards do not count (Limit seed 000, the
case where the leader folds after a knock): if an active player followed the led suit, the
highest card of that suit wins; otherwise the suit of the card of the next active player after
the leader decides.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from dealerless.protocol.cards import Card, Rank, Suit, cards_of_suit

TUPPEN_ORDER: tuple[Rank, ...] = (
    Rank.JACK,
    Rank.QUEEN,
    Rank.KING,
    Rank.ACE,
    Rank.SEVEN,
    Rank.EIGHT,
    Rank.NINE,
    Rank.TEN,
)
_STRENGTH = {rank: i for i, rank in enumerate(TUPPEN_ORDER)}


def strength(card: Card) -> int:
    """0 (jack) .. 7 (ten)."""
    return _STRENGTH[card.rank]


def forbidden_for_play(led_suit: Suit | None, card: Card) -> frozenset[Card]:
    """Cards whose possession would make playing ``card`` illegal: when ``card`` does not
    follow the led suit, every card of the led suit."""
    if led_suit is None or card.suit == led_suit:
        return frozenset()
    return cards_of_suit(led_suit)


def legal_plays(led_suit: Suit | None, hand: Collection[Card]) -> list[Card]:
    if led_suit is not None:
        following = [c for c in hand if c.suit == led_suit]
        if following:
            return sorted(following)
    return sorted(hand)


def trick_winner(plays: Sequence[tuple[int, Card]], active: Collection[int]) -> int | None:
    """Winner of a trick from (seat, card) in play order; only ``active`` seats count.

    The led suit is the first card's suit. If no active seat followed it, the suit of the first
    active seat's card after the leader decides. None when no active seat played.
    """
    if not plays:
        return None
    led = plays[0][1].suit
    counted = [(s, c) for s, c in plays if s in active]
    if not counted:
        return None
    deciding = led if any(c.suit == led for _, c in counted) else counted[0][1].suit
    best = max((c for _, c in counted if c.suit == deciding), key=strength)
    return next(s for s, c in counted if c == best)
