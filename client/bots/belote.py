"""A Belote bot: bids on hand strength, plays by simple card-counting heuristics.

It looks only at its own hand (``engine.hand(seat)``) and public information (turned-up card,
bids, trump, cards played). Bidding: values the hand with each candidate trump (the turned-up
card counts in the first round, since the taker gets it) and takes when the value clears a
threshold (rng only jitters the threshold a little). Play: the taker's team pulls trumps with
the master trump; otherwise cash side aces; follow by winning as cheaply as possible when the
trick is worth it, feed points to a partner who is winning with a master card, else throw the
cheapest card.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from dealerless.protocol.cards import DECK, Card, Rank, Suit
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.belote import BeloteEngine
from dealerless.protocol.rules.belote_tricks import card_points, strength, winning_play

BID_THRESHOLD = 46
TRUMP_VALUE = {  # what a trump of each rank adds to a hand's value
    Rank.JACK: 26,
    Rank.NINE: 18,
    Rank.ACE: 12,
    Rank.TEN: 10,
    Rank.KING: 7,
    Rank.QUEEN: 6,
    Rank.EIGHT: 5,
    Rank.SEVEN: 5,
}


def hand_value(cards: list[Card], trump: Suit) -> int:
    """Rough strength of a hand with ``trump`` as trumps."""
    value = 0
    trumps = [c for c in cards if c.suit == trump]
    for card in trumps:
        value += TRUMP_VALUE[card.rank]
    if len(trumps) >= 3:
        value += 6 * (len(trumps) - 2)
    for card in cards:
        if card.suit != trump:
            if card.rank == Rank.ACE:
                value += 11
            elif card.rank == Rank.TEN and Card(card.suit, Rank.ACE) in cards:
                value += 6
    ranks = {c.rank for c in trumps}
    if Rank.KING in ranks and Rank.QUEEN in ranks:
        value += 8
    return value


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    assert isinstance(engine, BeloteEngine)
    legal = engine.legal_actions(seat)
    if not legal:
        return None
    if engine.phase == "bidding":
        return _bid(engine, seat, legal, rng)
    return _play(engine, seat, legal, rng)


def _own_cards(engine: BeloteEngine, seat: int) -> list[Card]:
    return [s.card for s in engine.hand(seat) if s.card is not None]


def _bid(engine: BeloteEngine, seat: int, legal: list[Action], rng: random.Random) -> Action:
    assert engine.turned is not None and engine.turned.card is not None
    cards = [*_own_cards(engine, seat), engine.turned.card]
    threshold = BID_THRESHOLD + rng.randint(-4, 4)
    best: tuple[int, Action] | None = None
    for action in legal:
        if action.kind == ActionKind.BID and action.suit is not None:
            value = hand_value(cards, action.suit)
            if best is None or value > best[0]:
                best = (value, action)
    if best is not None and best[0] >= threshold:
        return best[1]
    return next(a for a in legal if a.kind == ActionKind.PASS)


def _played(engine: BeloteEngine) -> set[Card]:
    out = {c for t in engine.tricks for _, c in t.plays}
    out.update(c for _, c in engine.current)
    return out


def _is_master(card: Card, trump: Suit, gone: set[Card], mine: list[Card]) -> bool:
    """No unseen card of the same suit beats it (ignores being trumped)."""
    for other in DECK:
        if (
            other.suit == card.suit
            and other not in gone
            and other not in mine
            and strength(other, trump) > strength(card, trump)
        ):
            return False
    return True


def _play(engine: BeloteEngine, seat: int, legal: list[Action], rng: random.Random) -> Action:
    trump = engine.trump
    assert trump is not None
    mine = _own_cards(engine, seat)
    gone = _played(engine)
    cards = {a.card: a for a in legal if a.card is not None}
    options = list(cards)

    def cheap(c: Card) -> tuple[bool, int, float]:
        return (c.suit == trump, card_points(c, trump) + strength(c, trump), rng.random())

    plays = engine.current
    if not plays:
        return cards[_lead(engine, seat, options, mine, gone, trump, cheap)]
    win_seat, win_card = winning_play(plays, trump)
    last = len(plays) == 3
    if win_seat == (seat + 2) % 4:
        partner_safe = last or _is_master(win_card, trump, gone, mine)
        if partner_safe:
            non_trump = [c for c in options if c.suit != trump] or options
            return cards[max(non_trump, key=lambda c: (card_points(c, trump), -strength(c, trump)))]
        return cards[min(options, key=cheap)]
    winning = [c for c in options if _beats_all(c, plays, trump)]
    value = sum(card_points(c, trump) for _, c in plays)
    if winning and (value >= 4 or last or rng.random() < 0.5):
        if last:
            return cards[min(winning, key=cheap)]
        masters = [c for c in winning if _is_master(c, trump, gone, mine)]
        pick = min(masters, key=cheap) if masters else min(winning, key=cheap)
        return cards[pick]
    return cards[min(options, key=cheap)]


def _beats_all(card: Card, plays: list[tuple[int, Card]], trump: Suit) -> bool:
    return winning_play([*plays, (-1, card)], trump)[0] == -1


def _lead(
    engine: BeloteEngine,
    seat: int,
    options: list[Card],
    mine: list[Card],
    gone: set[Card],
    trump: Suit,
    cheap: Callable[[Card], tuple[bool, int, float]],
) -> Card:
    trumps = [c for c in options if c.suit == trump]
    outstanding = [c for c in DECK if c.suit == trump and c not in gone and c not in mine]
    attacking = engine.taker is not None and engine.taker % 2 == seat % 2
    if attacking and trumps and outstanding:
        best = max(trumps, key=lambda c: strength(c, trump))
        if _is_master(best, trump, gone, mine):
            return best
    for card in options:
        if (
            card.suit != trump
            and _is_master(card, trump, gone, mine)
            and card.rank
            in (
                Rank.ACE,
                Rank.TEN,
            )
        ):
            return card
    plain = [c for c in options if c.suit != trump] or options
    picked: Card = min(plain, key=cheap)
    return picked
