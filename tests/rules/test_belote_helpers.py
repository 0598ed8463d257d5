"""Helpers for the Belote tests: fixed decks, dealing, bidding and playing by card names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dealerless.protocol.cards import DECK, Card, Suit
from dealerless.protocol.rules.base import Action, ActionKind, Deal, OptionValue, TurnUp
from dealerless.protocol.rules.belote import BeloteEngine
from dealerless.protocol.rules.registry import make_config


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def make_deck(dealer: int, hands: Mapping[int, str], turned: str, taker: int) -> list[Card]:
    """A deck order that gives every seat its final 8-card hand (the taker's includes the
    turned-up card) under the Belote deal: 3 each from the dealer's next seat, 2 each, the
    turned-up card (position 20), then 2 to the taker and 3 to every other seat."""
    up = Card.parse(turned)
    final = {s: cards(h) for s, h in hands.items()}
    assert sorted(c for h in final.values() for c in h) == sorted(DECK), "not one full deck"
    assert all(len(h) == 8 for h in final.values())
    assert up in final[taker]
    rest = {s: [c for c in final[s] if c != up] for s in range(4)}
    order = [(dealer + i) % 4 for i in range(1, 5)]
    deck: list[Card] = []
    for s in order:
        deck += rest[s][:3]
    for s in order:
        deck += rest[s][3:5]
    deck.append(up)
    for s in order:
        deck += rest[s][5:]
    assert len(deck) == 32
    return deck


def new_engine(options: Mapping[str, OptionValue] | None = None, dealer: int = 0) -> BeloteEngine:
    engine = BeloteEngine(make_config("belote", 4, options), first_dealer=dealer)
    return engine


def feed(engine: BeloteEngine, deck: Sequence[Card]) -> None:
    """Fulfil the pending chance step from a full (all-seeing) deck."""
    request = engine.chance_request()
    assert isinstance(request, Deal | TurnUp)
    engine.apply_chance([deck[p] for p in request.positions])


def start(
    hands: Mapping[int, str],
    turned: str,
    taker: int,
    *,
    trump: str | None = None,
    dealer: int = 0,
    options: Mapping[str, OptionValue] | None = None,
    engine: BeloteEngine | None = None,
) -> BeloteEngine:
    """Start a hand with these final hands; ``taker`` takes the turned-up suit in round 1, or
    (with ``trump``) names that suit in round 2. Returns the engine ready for the first card."""
    if engine is None:
        engine = new_engine(options, dealer)
    else:
        assert engine.dealer == dealer or engine.hand_number > 0
    engine.start_hand()
    deck = make_deck(engine.dealer, hands, turned, taker)
    feed(engine, deck)
    feed(engine, deck)
    passes = (taker - engine.dealer - 1) % 4
    if trump is not None:
        passes += 4
    for _ in range(passes):
        engine.apply(Action(ActionKind.PASS, engine.to_act()[0]))
    suit = Card.parse(turned).suit if trump is None else Suit.parse(trump)
    engine.apply(Action(ActionKind.BID, taker, suit=suit))
    feed(engine, deck)
    return engine


def play(engine: BeloteEngine, *names: str) -> None:
    """Play cards in turn order (each by whoever is to play)."""
    for name in names:
        engine.apply(Action(ActionKind.PLAY, engine.to_act()[0], card=Card.parse(name)))


def play_action(engine: BeloteEngine, name: str) -> Action:
    return Action(ActionKind.PLAY, engine.to_act()[0], card=Card.parse(name))


def finish_hand(engine: BeloteEngine) -> None:
    """Play the rest of the hand with the first legal card each time."""
    while engine.hand_running:
        seat = engine.to_act()[0]
        engine.apply(engine.legal_actions(seat)[0])


# Obligations deal: trump hearts (8H turned up, taken by seat 1); dealer 0 leads.
OBLIGATIONS = {
    0: "AC KC QC 7H 7D 8D 9D 10D",
    1: "8H 10H AH AS KS QS JS 10S",
    2: "9H JH 7S 8S 9S JD QD KD",
    3: "10C JC 9C 8C 7C AD QH KH",
}

# Trump-lead deal: trump hearts (8H taken by seat 1); seat 0 leads the ace of trumps.
TRUMP_LEAD = {
    0: "AH KH 7C 8C 9C 10C JC QC",
    1: "8H QH AS KS QS JS 10S 9S",
    2: "9H 7H AD KD QD JD 10D 9D",
    3: "JH 10H 7S 8S 8D 7D KC AC",
}
