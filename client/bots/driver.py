"""The bot as a node driver: plays a seat with the game's bot (chosen from the signed
configuration) at a level. The node takes its drivers from its caller (node/ never imports
client/), so the commands hand this class to the node for a ``--bot`` seat."""

from __future__ import annotations

import random

from dealerless.client.bots import DEFAULT_LEVEL, bot_for
from dealerless.protocol.rules.base import Action
from dealerless.protocol.table import TableMachine

__all__ = ["BotDriver"]


class BotDriver:
    """``level``: strong by default (the seats filled for a person)."""

    def __init__(self, seed: int | None = None, level: str | None = None) -> None:
        self.rng = random.Random(seed)
        self.level = level or DEFAULT_LEVEL

    async def choose(self, machine: TableMachine) -> Action | None:
        assert machine.seat is not None
        bot = bot_for(machine.config.game.game, self.level)
        return bot(machine.engine, machine.seat, self.rng, True)
