"""How a seat node paces itself: ticks, asks, waits and the limits it holds a table to. Only
the standard library: the command line builds these before anything heavy is loaded."""

from __future__ import annotations

from dataclasses import dataclass


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
    # Over Nostr, the seats also link directly where they can reach each other (node/mesh.py,
    # punching through home routers unless ``punch`` is off) and a message for seats that all
    # have such a link skips the relays.
    direct_links: bool = True
    # Direct links (node/punch, issue 24): STUN servers as HOST:PORT (empty: the shipped
    # defaults), and whether this seat may punch at all: False keeps every frame on the
    # relays, so no other seat learns our address (--relays-only, direct.punch = false).
    # Not used by the table yet.
    stun_servers: tuple[str, ...] = ()
    punch: bool = True
