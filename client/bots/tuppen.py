"""A classic Tuppen bot that plays by hand strength.

It looks only at its own cards (``engine.hand(seat)``) and the public state. The last trick
wins, so the hand's value is its best card plus a little for other high cards; the bot knocks
with strong hands (rarely as a bluff when it is its turn), calls when the hand is worth the
stake, keeps its best card for the last trick, claims Tupp and makes Tupp attempts whenever it
can, sends true dirty laundry away (and sometimes bluffs with a weak hand), and checks others'
laundry now and then. The rng only decides bluffs and checks.
"""

from __future__ import annotations

import random
from typing import Any

from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.tuppen_exchange import is_true_laundry
from dealerless.protocol.rules.tuppen_tricks import strength

BLUFF_KNOCK = 0.04  # chance of a knock on one's own turn whatever the cards
BLUFF_LAUNDRY = 0.15  # chance of declaring dirty laundry with a weak hand that is not laundry
CHECK_RATE = 0.25  # chance of checking another seat's dirty laundry


def power(cards: list[Card]) -> float:
    """0 (nothing) .. about 8: the best card, plus 0.4 for every other card of A or better."""
    if not cards:
        return 0.0
    ranked = sorted((strength(c) for c in cards), reverse=True)
    return ranked[0] + 0.4 * sum(1 for s in ranked[1:] if s >= 4)


def first_of_each_kind(legal: list[Action]) -> dict[ActionKind, Action]:
    """The first legal move of every kind."""
    by_kind: dict[ActionKind, Action] = {}
    for action in legal:
        by_kind.setdefault(action.kind, action)
    return by_kind


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    legal = engine.legal_actions(seat)
    if not legal:
        return None
    by_kind = first_of_each_kind(legal)
    cards = [s.card for s in engine.hand(seat) if s.card is not None]
    hand_state: dict[str, Any] = engine.public_state().get("hand") or {}
    stake = int(hand_state.get("stake", 1))
    value = power(cards)
    if ActionKind.TUPP in by_kind:
        return by_kind[ActionKind.TUPP]
    if not required:
        if ActionKind.KNOCK in by_kind and value >= 7 + 0.3 * (stake - 1):
            return by_kind[ActionKind.KNOCK]
        return None
    if ActionKind.CALL in by_kind:
        poverty = hand_state.get("answer_kind") == "poverty"
        need = 4.5 if poverty else 3.5 + 0.6 * (stake - 1)
        return by_kind[ActionKind.CALL] if value >= need else by_kind[ActionKind.FOLD]
    if ActionKind.PASS in by_kind:
        return _exchange(by_kind, cards, value, rng)
    if ActionKind.ACCEPT in by_kind:
        check = rng.random() < CHECK_RATE
        return by_kind[ActionKind.CHECK if check else ActionKind.ACCEPT]
    plays = [a for a in legal if a.kind == ActionKind.PLAY]
    if ActionKind.KNOCK in by_kind and (value >= 7 or rng.random() < BLUFF_KNOCK):
        return by_kind[ActionKind.KNOCK]
    if plays:
        return _play(plays, cards)
    return legal[0]


def _exchange(
    by_kind: dict[ActionKind, Action], cards: list[Card], value: float, rng: random.Random
) -> Action:
    if ActionKind.TUPP_ATTEMPT in by_kind:
        return by_kind[ActionKind.TUPP_ATTEMPT]
    if ActionKind.LAUNDRY in by_kind and (
        is_true_laundry(cards) or (value < 4 and rng.random() < BLUFF_LAUNDRY)
    ):
        return by_kind[ActionKind.LAUNDRY]
    return by_kind[ActionKind.PASS]


def _play(plays: list[Action], cards: list[Card]) -> Action:
    """Keep the best card for the last trick: play the weakest legal card, unless the only
    legal cards are the best one (then it must go)."""
    best = max(cards, key=strength)
    choices = [a for a in plays if a.card != best] or plays
    return min(choices, key=lambda a: strength(a.card) if a.card is not None else 0)
