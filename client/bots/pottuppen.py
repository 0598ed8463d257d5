"""Pottuppen bot: bets by hand strength, keeps its strongest card for the last trick.

It looks only at its own hand (``engine.hand(seat)``), its legal actions and public figures
(pot, bets, the trick on the table). Randomness only breaks ties and sets the bluff frequency.
"""

from __future__ import annotations

import random

from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.pottuppen import Phase, PottuppenEngine
from dealerless.protocol.rules.tuppen_tricks import strength

# Weight of a card for winning the last trick, by strength J Q K A 7 8 9 10.
WEIGHT = (0.0, 0.05, 0.1, 0.2, 0.35, 0.6, 0.9, 1.3)
BLUFF_RATE = 0.04
BET_THRESHOLD = 0.55


def win_chance_vs_one(cards: list[Card]) -> float:
    """Rough chance of taking the last trick against one opponent."""
    if not cards:
        return 0.0
    score = sum(WEIGHT[strength(c)] for c in cards)
    return min(0.95, 0.15 + 0.3 * score)


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    if not required:
        return None  # Pottuppen has no optional out-of-turn moves
    legal = engine.legal_actions(seat)
    if not legal:
        raise RuntimeError(f"seat {seat} must act but has no legal action")
    cards = [s.card for s in engine.hand(seat) if s.card is not None]
    if isinstance(engine, PottuppenEngine) and engine.phase is Phase.BETTING:
        return _bet(engine, seat, cards, rng)
    return _play(legal, rng)


def _bet(engine: PottuppenEngine, seat: int, cards: list[Card], rng: random.Random) -> Action:
    order = engine.betting_order()
    bettors = engine.bettors()
    later = len(order) - order.index(seat) - 1
    # Nobody bet yet: if nobody follows, this bet plays against every other seat.
    opponents = engine.players - 1 if not bettors else len(bettors) + 0.5 * later
    chance = win_chance_vs_one(cards) ** max(1.0, opponents**0.8)
    bluff = rng.random() < BLUFF_RATE
    if chance < BET_THRESHOLD and not bluff:
        return Action(ActionKind.PASS, seat)
    edge = max(0.1, 2 * chance - 1) if not bluff else 0.1
    amount = max(1, min(engine.pot, round(engine.pot * min(1.0, edge + 0.1))))
    return Action(ActionKind.BET, seat, amount=amount)


def _play(legal: list[Action], rng: random.Random) -> Action:
    """Play the weakest legal card, keeping the strongest for the last trick."""
    plays = [a for a in legal if a.card is not None]
    if not plays:
        return legal[0]

    def weight(action: Action) -> int:
        assert action.card is not None
        return strength(action.card)

    low = min(weight(a) for a in plays)
    return rng.choice([a for a in plays if weight(a) == low])
