"""How a seat's moves are chosen: the :class:`Driver` interface and the bot driver (the node's
tunables are node/options.py).

A driver's ``choose(machine)`` is awaited when the table waits for this seat
(``machine.my_turn_to_act()``); it returns a legal action (or None to let the step timeout
decide). A driver may also define ``on_events(machine, events)``, called after every change
(events already persisted). ``node/line_driver.py`` is the terminal driver; the bot driver is
``dealerless.client.bots.driver.BotDriver``, which callers pass in (node/ never imports
client/).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from dealerless.protocol.rules.base import Action
from dealerless.protocol.table import TableMachine

__all__ = ["Driver", "LobbyView", "MakeBotDriver"]


class Driver(Protocol):
    """Optional hooks, looked up by name: ``on_events(machine, events)``, ``on_lobby(view)``,
    and ``leaving`` (a bool: the player quits; the node tells the table, node/seat.py)."""

    async def choose(self, machine: TableMachine) -> Action | None: ...


# Makes the driver of a seat that a bot plays (``--bot``, or a resumed bot table).
MakeBotDriver = Callable[[], Driver]


@dataclass(frozen=True)
class LobbyView:
    """Who sits at a table that has not started yet (the host first) and how many seats are
    still free: what a driver's optional ``on_lobby(view)`` hook receives on every change."""

    names: tuple[str, ...]
    need: int
    fingerprints: tuple[str, ...] = ()  # of the same seats, in the same order
