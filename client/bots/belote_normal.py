"""The ``normal`` belote bot: bids like the basic bot, plays its cards by sampled deals and fast
playouts (:mod:`belote_sampled_play`, the strong level's card play before it got its own):
between the two levels."""

from __future__ import annotations

import random

from dealerless.client.bots import belote as basic
from dealerless.client.bots.belote_sampled_play import choose_card
from dealerless.protocol.rules.base import Action, ActionKind, Engine


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    action = basic.choose_action(engine, seat, rng, required)
    if action is not None and action.kind is ActionKind.PLAY:
        return choose_card(engine, seat, rng)
    return action
