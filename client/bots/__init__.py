"""Bots: one module per game family, each with

    choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None

A bot looks only at what the seat may know: ``engine.hand(seat)`` and the public state (it must
not read other seats' hands even where the engine happens to know them). With ``required`` the
game waits for this seat and the bot must return a legal action; without, it may return None
(no out-of-turn move now).
"""

from __future__ import annotations

import importlib
import random
from typing import Protocol

from dealerless.protocol.rules.base import Action, Engine

BOT_MODULES: dict[str, str] = {
    "tuppen": "tuppen",
    "limit-tuppen": "limit",
    "no-limit-tuppen": "limit",
    "pot-limit-tuppen": "limit",
    "pottuppen": "pottuppen",
    "belote": "belote",
}


class Bot(Protocol):
    def __call__(
        self, engine: Engine, seat: int, rng: random.Random, required: bool
    ) -> Action | None: ...


def bot_for(game: str) -> Bot:
    module = importlib.import_module(f"dealerless.client.bots.{BOT_MODULES[game]}")
    chooser: Bot = module.choose_action
    return chooser
