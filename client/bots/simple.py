"""Measuring sticks for every game: ``random`` and ``passive`` players.

* random: a move drawn uniformly from the legal moves when the game waits for the seat; never an
  optional out-of-turn move.
* passive: always calls (answers a knock or a poverty hand with CALL), never knocks, raises or
  bets (Pottuppen: passes; Belote: passes in the bidding), declares nothing, checks nothing,
  and plays its weakest legal card (Tuppen order, or Belote's cheapest card).
"""

from __future__ import annotations

import random

from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.belote import BeloteEngine
from dealerless.protocol.rules.belote_tricks import card_points
from dealerless.protocol.rules.belote_tricks import strength as belote_strength
from dealerless.protocol.rules.tuppen_tricks import strength

K = ActionKind
_PASSIVE_ORDER = (K.CALL, K.ACCEPT, K.PASS)


def random_bot(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    if not required:
        return None
    legal = engine.legal_actions(seat)
    if not legal:
        return None
    return legal[rng.randrange(len(legal))]


def passive_bot(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    if not required:
        return None
    legal = engine.legal_actions(seat)
    if not legal:
        return None
    for kind in _PASSIVE_ORDER:
        for action in legal:
            if action.kind == kind:
                return action
    plays = [a for a in legal if a.kind == K.PLAY and a.card is not None]
    if not plays:
        return legal[0]
    if isinstance(engine, BeloteEngine) and engine.trump is not None:
        trump = engine.trump

        def cheap(card: Card) -> tuple[bool, int, int]:
            return (card.suit == trump, card_points(card, trump), belote_strength(card, trump))

        return min(plays, key=lambda a: cheap(a.card) if a.card else (True, 99, 99))
    return min(plays, key=lambda a: (strength(a.card) if a.card else 0, a.card))
