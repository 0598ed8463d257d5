"""Belote card order, card points and trick obligations (seed 002).

Plain suits rank A 10 K Q J 9 8 7, the trump suit J 9 A 10 K Q 8 7. The highest trump wins a
trick; without a trump the highest card of the led suit wins.

Obligations, in this order (see spec/rules/belote.md for the decisions):

1. Follow the led suit if you can.
2. Void in the led suit: play a trump, unless your partner is winning the trick.
3. Playing a trump into a trick that holds a trump: play a higher trump than the winning one if
   you can, unless your partner is winning the trick. When trumps were led, the partner
   exemption applies unless the option ``overtrump_partner_on_trump_lead`` is set.
4. A player who cannot over-trump but must trump plays a lower trump; without a trump (or when
   exempted) any card.

:func:`obligation` gives, for one card played into one trick, the exact set of cards whose
possession would have made the play illegal, and the rule that set stands for.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from dealerless.protocol.cards import Card, Rank, Suit, cards_of_suit

PLAIN_ORDER: tuple[Rank, ...] = (  # low to high
    Rank.SEVEN,
    Rank.EIGHT,
    Rank.NINE,
    Rank.JACK,
    Rank.QUEEN,
    Rank.KING,
    Rank.TEN,
    Rank.ACE,
)
TRUMP_ORDER: tuple[Rank, ...] = (  # low to high
    Rank.SEVEN,
    Rank.EIGHT,
    Rank.QUEEN,
    Rank.KING,
    Rank.TEN,
    Rank.ACE,
    Rank.NINE,
    Rank.JACK,
)
PLAIN_POINTS: dict[Rank, int] = {
    Rank.ACE: 11,
    Rank.TEN: 10,
    Rank.KING: 4,
    Rank.QUEEN: 3,
    Rank.JACK: 2,
}
TRUMP_POINTS: dict[Rank, int] = {
    Rank.JACK: 20,
    Rank.NINE: 14,
    Rank.ACE: 11,
    Rank.TEN: 10,
    Rank.KING: 4,
    Rank.QUEEN: 3,
}
LAST_TRICK_BONUS = 10
TRICKS_PER_HAND = 8

_PLAIN = {rank: i for i, rank in enumerate(PLAIN_ORDER)}
_TRUMP = {rank: i for i, rank in enumerate(TRUMP_ORDER)}


def strength(card: Card, trump: Suit) -> int:
    """Rank within its suit: 0..7 for plain cards, 0..7 for trumps (compare within a suit)."""
    return _TRUMP[card.rank] if card.suit == trump else _PLAIN[card.rank]


def card_points(card: Card, trump: Suit) -> int:
    table = TRUMP_POINTS if card.suit == trump else PLAIN_POINTS
    return table.get(card.rank, 0)


def beats(card: Card, best: Card, trump: Suit) -> bool:
    """Whether ``card`` beats the trick's current ``best`` card."""
    if card.suit == best.suit:
        return strength(card, trump) > strength(best, trump)
    return card.suit == trump


def winning_play(plays: Sequence[tuple[int, Card]], trump: Suit) -> tuple[int, Card]:
    """The (seat, card) currently winning a non-empty trick."""
    best = plays[0]
    for play in plays[1:]:
        if beats(play[1], best[1], trump):
            best = play
    return best


def higher_trumps(card: Card, trump: Suit) -> frozenset[Card]:
    """Trumps that rank above ``card`` (a trump)."""
    return frozenset(c for c in cards_of_suit(trump) if strength(c, trump) > strength(card, trump))


@dataclass(frozen=True)
class Obligation:
    """Playing a card is illegal exactly when the hand holds one of ``forbidden``."""

    forbidden: frozenset[Card]
    rule: str  # what the player would have had to do


NO_OBLIGATION = Obligation(frozenset(), "")


def obligation(
    plays: Sequence[tuple[int, Card]],
    seat: int,
    card: Card,
    trump: Suit,
    *,
    overtrump_partner_on_trump_lead: bool = False,
) -> Obligation:
    """The cards whose possession makes ``seat`` playing ``card`` into ``plays`` illegal."""
    if not plays:
        return NO_OBLIGATION
    led = plays[0][1].suit
    win_seat, win_card = winning_play(plays, trump)
    partner_wins = win_seat == (seat + 2) % 4
    trump_name = trump.name.lower()
    if led == trump:
        if card.suit != trump:
            return Obligation(cards_of_suit(trump), f"must follow trumps ({trump_name})")
        exempt = partner_wins and not overtrump_partner_on_trump_lead
        if exempt or strength(card, trump) > strength(win_card, trump):
            return NO_OBLIGATION
        return Obligation(higher_trumps(win_card, trump), f"must over-trump {win_card}")
    if card.suit == led:
        return NO_OBLIGATION
    led_cards = cards_of_suit(led)
    if partner_wins:
        return Obligation(led_cards, f"must follow suit {led.name.lower()}")
    if card.suit != trump:
        return Obligation(
            led_cards | cards_of_suit(trump),
            f"must follow suit {led.name.lower()}, else trump ({trump_name})",
        )
    if win_card.suit == trump and strength(card, trump) < strength(win_card, trump):
        return Obligation(
            led_cards | higher_trumps(win_card, trump),
            f"must follow suit {led.name.lower()}, else over-trump {win_card}",
        )
    return Obligation(led_cards, f"must follow suit {led.name.lower()}")


def legal_cards(
    plays: Sequence[tuple[int, Card]],
    seat: int,
    hand: Collection[Card],
    trump: Suit,
    *,
    overtrump_partner_on_trump_lead: bool = False,
) -> list[Card]:
    """The cards of a fully known hand that ``seat`` may play now (never empty for a hand)."""
    held = frozenset(hand)
    return sorted(
        c
        for c in held
        if not obligation(
            plays, seat, c, trump, overtrump_partner_on_trump_lead=overtrump_partner_on_trump_lead
        ).forbidden
        & held
    )
