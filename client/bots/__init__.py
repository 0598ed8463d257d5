"""Bots: for every game a chooser

    choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None

A bot looks only at what the seat may know: ``engine.hand(seat)`` and the public state (it must
not read other seats' hands even where the engine happens to know them). With ``required`` the
game waits for this seat and the bot must return a legal action; without, it may return None
(no out-of-turn move now). Its only randomness is the ``rng`` passed in, so the same view and
the same random state give the same move.

Levels (``bot_for(game, level)``):

* ``strong`` (the default for filled seats): sampled deals of the unseen cards consistent with
  everything public, fast playouts, and expected-value betting (``*_strong`` modules);
* ``normal``: the strong bot with fewer samples and a less exact knock model (in between);
* ``basic``: the first bots (one module per game family, ``tuppen``, ``limit``, ...);
* ``random`` and ``passive``: measuring sticks (:mod:`simple`).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
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
LEVELS = ("strong", "normal", "basic")  # what a person may choose for the filled seats
KINDS = (*LEVELS, "random", "passive")  # plus the measuring sticks of `dealerless simulate`
DEFAULT_LEVEL = "strong"


class Bot(Protocol):
    def __call__(
        self, engine: Engine, seat: int, rng: random.Random, required: bool
    ) -> Action | None: ...


def bot_for(game: str, level: str = "basic") -> Bot:
    """The chooser of ``game`` at ``level`` (one of :data:`KINDS`). The default stays
    ``basic`` so existing callers keep their moves; seats filled for a person use
    :data:`DEFAULT_LEVEL`."""
    if game not in BOT_MODULES:
        raise ValueError(f"no bot for game {game!r}")
    if level not in KINDS:
        raise ValueError(f"unknown bot level {level!r}: use one of {', '.join(KINDS)}")
    family = BOT_MODULES[game]
    if level in ("random", "passive"):
        from dealerless.client.bots import simple

        return simple.random_bot if level == "random" else simple.passive_bot
    suffix = {"basic": "", "strong": "_strong", "normal": "_normal"}[level]
    module = importlib.import_module(f"dealerless.client.bots.{family}{suffix}")
    chooser: Bot = module.choose_action
    return chooser


def lineup_bot(game: str, lineup: Sequence[str] | None) -> Bot:
    """One chooser that asks the bot of each seat's kind (``lineup[seat]``; None: every seat
    plays the basic bot)."""
    if lineup is None:
        return bot_for(game)
    bots = [bot_for(game, kind) for kind in lineup]

    def choose(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
        return bots[seat](engine, seat, rng, required)

    return choose
