"""The ``normal`` tuppen bot: bets, bids and answers like the basic bot, plays its cards like
the strong one (sampled deals and playouts): between the two levels."""

from __future__ import annotations

import random

from dealerless.client.bots import tuppen as basic
from dealerless.client.bots import tuppen_strong as strong
from dealerless.protocol.rules.base import Action, ActionKind, Engine


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    action = basic.choose_action(engine, seat, rng, required)
    if action is not None and action.kind is ActionKind.PLAY:
        return strong.choose_card(engine, seat, rng)
    return action
