"""How a seat's moves are chosen: the :class:`Driver` interface, the bot driver, and the node's
tunables.

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

__all__ = ["Driver", "LobbyView", "MakeBotDriver", "NodeOptions"]


class Driver(Protocol):
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


@dataclass
class NodeOptions:
    tick: float = 0.1
    stall: float = 1.0  # no progress for this long: ask the peers what they have
    linger: float = 10.0  # after the game: wait this long at most for peers to catch up
    sync_wait: float = 3.0  # after a restart: wait this long at most for the peers' records
    reconnect_cap: float = 2.0
    first_join_wait: float = 60.0  # a joiner that never reached its table gives up after this
    hello_every: float = 1.0
    quiet_every: float = 10.0  # nothing missing: announce our record count this seldom at most
    # Records we have held for less than this are not sent to a seat whose count says it lacks
    # them: they may still be on their way to it. Over a direct link a count arrives at once
    # (0); over Nostr it may have waited in a relay queue (node/nostr/link.py SERVE_GRACE).
    serve_grace: float = 0.0
    min_step_timeout_ms: int = 10_000  # a joiner refuses a table with a shorter step timeout
    # ("stand" | "sit-out", N): ask for that seat change from hand N on (bots, scripts)
    change_after: tuple[str, int] | None = None
    # Sitting out: come back once the table has played hand N (None: only when asked, or at
    # once after a sit-out for our own silence). A seat that may come back follows the table.
    back_after: int | None = None
    follow_away: bool = False  # sitting out, keep following the table (an interactive player)
    buy_in: int | None = None  # a newcomer's buy-in at a running table (None: the rules' default)
    nostr_expiration_days: float = 7.0  # NIP-40 expiration of our stored frames on the relays
