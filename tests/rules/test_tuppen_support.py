"""Helpers for the classic Tuppen tests: engines with chosen scores and decks in a chosen order.

(Named test_tuppen_* so it stays among the Tuppen test files; it holds no tests itself.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dealerless.protocol.cards import DECK, Card
from dealerless.protocol.rules.base import Action, ActionKind, Deal, Event
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.rules.tuppen import TuppenEngine

# No exchange round: the plain game of the seed's general rules.
PLAIN: dict[str, Any] = {"dirty_laundry": False, "tupp_attempt": False}


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def new(
    players: int, dealer: int = 0, scores: list[int] | None = None, **options: Any
) -> TuppenEngine:
    engine = TuppenEngine(make_config("tuppen", players, options), first_dealer=dealer)
    if scores is not None:
        engine._scores = list(scores)
    return engine


@dataclass
class Table:
    engine: TuppenEngine
    deck: list[Card]

    def fulfil(self) -> list[Event]:
        events: list[Event] = []
        while (request := self.engine.chance_request()) is not None:
            events += self.engine.apply_chance([self.deck[p] for p in request.positions])
        return events

    def act(
        self,
        kind: ActionKind,
        seat: int,
        card: str | None = None,
        *,
        cards: str = "",
        position: int | None = None,
    ) -> list[Event]:
        action = Action(
            kind,
            seat,
            card=Card.parse(card) if card else None,
            cards=tuple(Card.parse(c) for c in cards.split()),
            position=position,
        )
        events = self.engine.apply(action)
        return events + self.fulfil()

    def play(self, seat: int, card: str) -> list[Event]:
        return self.act(ActionKind.PLAY, seat, card)

    def plays(self, *moves: str) -> None:
        """Moves like "0:JH" in order."""
        for move in moves:
            seat, card = move.split(":")
            self.play(int(seat), card)

    @property
    def phase(self) -> str:
        hand = self.engine.public_state()["hand"]
        return str(hand["phase"])

    @property
    def hand_state(self) -> dict[str, Any]:
        hand: dict[str, Any] = self.engine.public_state()["hand"]
        return hand

    def position_of(self, card: str) -> int:
        return self.deck.index(Card.parse(card))


def start(engine: TuppenEngine, hands: dict[int, str], stock: str = "", deal: bool = True) -> Table:
    """Start the next hand with the given hands (four cards per seat dealt in, in the order
    each seat receives them) and the stock's top cards; the rest of the deck in index order."""
    engine.start_hand()
    request = engine.chance_request()
    assert isinstance(request, Deal)
    deck: list[Card | None] = [None] * 32
    given = {seat: cards(text) for seat, text in hands.items()}
    taken = dict.fromkeys(given, 0)
    for seat, position in request.assignments:
        deck[position] = given[seat][taken[seat]]
        taken[seat] += 1
    top = len(request.assignments)
    for i, card in enumerate(cards(stock)):
        deck[top + i] = card
    used = {c for c in deck if c is not None}
    assert len(used) == sum(c is not None for c in deck), "a card is given twice"
    spare = iter(c for c in DECK if c not in used)
    full = [c if c is not None else next(spare) for c in deck]
    table = Table(engine, full)
    if deal:
        table.fulfil()
    return table
