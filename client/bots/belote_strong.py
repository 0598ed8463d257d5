"""The strong Belote bot: bids and plays by playing sampled deals out.

It reads only its own cards and the public state (turned-up card, bids, trump, tricks).

* Bidding: the basic bot's hand value (trumps, side aces, belote) with the turned-up card,
  against a fixed threshold. (Choosing the bid by playing sampled deals out with the fast
  policy was tried and measured weaker: the policy plays the first five cards' hands too
  crudely to value a contract; see spec/client.md.)
* Card play: :mod:`belote_sampled_play` (sampled deals played out; the ``normal`` level plays
  its cards the same way).
"""

from __future__ import annotations

import random
from typing import Any

from dealerless.client.bots.belote import hand_value
from dealerless.client.bots.belote_sampled_play import choose_card
from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ActionKind, Engine

K = ActionKind
BID_VALUE = 46  # the basic bot's threshold, without its random jitter


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    legal = engine.legal_actions(seat)
    if not legal:
        return None
    state: dict[str, Any] = engine.public_state()
    if state["phase"] == "bidding":
        mine = [s.card for s in engine.hand(seat) if s.card is not None]
        return _value_bid(state, mine, legal)
    return choose_card(engine, seat, rng)


def _value_bid(state: dict[str, Any], mine: list[Card], legal: list[Action]) -> Action:
    """Take the suit with the best hand value (the basic bot's measure, the turned-up card
    counted) when it clears :data:`BID_VALUE`."""
    turned = Card.from_index(state["turned"][1])
    best: tuple[int, Action] | None = None
    for action in legal:
        if action.kind == K.BID and action.suit is not None:
            value = hand_value([*mine, turned], action.suit)
            if best is None or value > best[0]:
                best = (value, action)
    if best is not None and best[0] >= BID_VALUE:
        return best[1]
    return next(a for a in legal if a.kind == K.PASS)

