"""Helpers for the Limit Tuppen tests: start a hand with a chosen deck order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dealerless.protocol.cards import DECK, Card
from dealerless.protocol.rules.base import Action, ActionKind, Event, OptionValue
from dealerless.protocol.rules.limit import LimitEngine
from dealerless.protocol.rules.registry import make_config

K = ActionKind


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def new(
    game: str = "limit-tuppen", players: int = 4, dealer: int = 0, **options: OptionValue
) -> LimitEngine:
    return LimitEngine(make_config(game, players, options), first_dealer=dealer)


def deck_for(engine: LimitEngine, hands: Mapping[int, str], stock: str = "") -> list[Card]:
    """A deck whose deal gives each seat the cards named (``hands[seat]``, 4 cards) when the
    hand starts now; ``stock`` names the next cards after the deal (for dirty-laundry draws)."""
    request = engine.chance_request()
    assert request is not None
    deck: list[Card | None] = [None] * 32
    dealt: dict[int, list[Card]] = {s: cards(t) for s, t in hands.items()}
    given: dict[int, int] = {}
    for seat, position in request.assignments:  # type: ignore[union-attr]
        i = given.get(seat, 0)
        given[seat] = i + 1
        if seat in dealt and i < len(dealt[seat]):
            deck[position] = dealt[seat][i]
    top = max(request.positions) + 1
    for i, card in enumerate(cards(stock)):
        deck[top + i] = card
    used = {c for c in deck if c is not None}
    assert len(used) == sum(1 for c in deck if c is not None), "a card named twice"
    rest = iter(c for c in DECK if c not in used)
    return [c if c is not None else next(rest) for c in deck]


def start(
    hands: Mapping[int, str],
    *,
    game: str = "limit-tuppen",
    players: int = 4,
    dealer: int = 0,
    stock: str = "",
    engine: LimitEngine | None = None,
    **options: OptionValue,
) -> LimitEngine:
    """Start a (new or given) engine's next hand with a fixed deck and deal it."""
    e = engine if engine is not None else new(game, players, dealer, **options)
    e.start_hand()
    e.deck = deck_for(e, hands, stock)  # type: ignore[attr-defined]
    fulfil(e)
    return e


def fulfil(engine: LimitEngine, deck: Sequence[Card] | None = None) -> list[Event]:
    deck = deck if deck is not None else engine.deck  # type: ignore[attr-defined]
    events: list[Event] = []
    while (request := engine.chance_request()) is not None:
        events += engine.apply_chance([deck[p] for p in request.positions])
    return events


def act(engine: LimitEngine, kind: ActionKind, seat: int, amount: int | None = None) -> None:
    engine.apply(Action(kind, seat, amount=amount))


def play(engine: LimitEngine, seat: int, card: str) -> list[Event]:
    return engine.apply(Action(K.PLAY, seat, card=Card.parse(card)))


def autoplay(engine: LimitEngine) -> None:
    """Play the hand out: every seat plays its first legal card, nobody knocks."""
    while engine.hand_running:
        if engine.chance_request() is not None:
            fulfil(engine)
            continue
        seat = engine.to_act()[0]
        legal = engine.legal_actions(seat)
        plays = [a for a in legal if a.kind == K.PLAY]
        if plays:
            engine.apply(plays[0])
        else:
            pick = next(a for a in legal if a.kind in (K.CALL, K.PASS, K.ACCEPT))
            engine.apply(pick)
