"""The ways in of one seat's node, from its table's metadata: the direct or relay link the node
always had, plus the table's Nostr relays (:mod:`dealerless.node.nostr`), all under one
:class:`~dealerless.node.ways.MultiWay`."""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.links import Link
from dealerless.node.mesh import Mesh, MeshLink
from dealerless.node.nostr.link import NostrTable
from dealerless.node.notices import Notice
from dealerless.node.store import TableMeta
from dealerless.node.ways import MultiWay, Way

__all__ = ["is_private_address", "start_ways"]

Connector = Callable[[], Awaitable[tuple[Link, dict[str, Any]]]]
Say = Callable[[Notice], None]


def is_private_address(address: str) -> bool:
    """Loopback, RFC 1918, link-local, CGNAT or unique-local: not reachable from the internet."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False  # a name: we cannot tell
    return ip.is_private or ip.is_loopback or ip.is_link_local or ip in _CGNAT


_CGNAT = ipaddress.ip_network("100.64.0.0/10")


async def start_ways(
    nursery: trio.Nursery,
    meta: TableMeta,
    identity: Identity,
    invite: Invite,
    direct: tuple[str, str, Connector] | None,
    say: Say,
    *,
    first_timeout: float = 60.0,
    backoff_cap: float = 10.0,
    seated: Callable[[], bool] | None = None,
    on_no_relay: Callable[[str], None] | None = None,
    expiration_days: float = 7.0,
    mesh: Mesh | None = None,
) -> tuple[Connector, NostrTable | None]:
    """Start the table's Nostr presence (if it has relays) and every way in (in ``nursery``);
    the node's connector. ``first_timeout``: how long to try while ``seated()`` is false (by
    default: before the table was ever reached; then the node gives up and says what it
    tried). ``on_no_relay`` hears each relay's answer when none of the table's Nostr relays
    will carry it (within 30 s)."""
    ways = []
    if direct is not None:  # (kind, address, connector)
        kind, address, opener = direct
        ways.append(Way(f"{kind} {address}", opener, kind=kind, where=address))
    table: NostrTable | None = None

    def host_is(key: bytes) -> bool:
        if meta.role == "host":
            return key == identity.public_key
        return key.hex() == meta.host_key if meta.host_key else invite.is_host(key)

    if meta.nostr:
        # The join token is the table's Nostr secret: whoever may sit down may read and write.
        table = NostrTable(
            meta.nostr,
            invite.token,
            invite.table_id,
            identity,
            host_is,
            say=say,
            expiration_days=expiration_days,
        )
        await nursery.start(table.run)
        if on_no_relay is not None:
            nursery.start_soon(table.watch, on_no_relay)

        async def open_nostr() -> tuple[Link, dict[str, Any]]:
            link, joined = await table.open_link()
            if meta.role != "host" and not meta.host_key:
                meta.host_key = joined["host"].hex()
            return link, joined

        count = len(meta.nostr)
        label = f"Nostr ({count} relay{'s' if count > 1 else ''})"
        ways.append(
            Way(
                label,
                open_nostr,
                last_error="connecting",
                status=table.describe,
                kind="nostr",
                where=str(count),
            )
        )
    if mesh is not None:

        async def open_direct_links() -> tuple[Link, dict[str, Any]]:
            # Up once a seat has linked with us (after the relays introduced us), never first:
            # the node's first link must tell it the host and the members.
            while not mesh.channels:
                await mesh.changed.wait()
            return MeshLink(mesh), {"t": "joined", "members": []}

        label = "direct links"
        ways.append(
            Way(
                label, open_direct_links, last_error="no seat linked yet", direct=True, kind="links"
            )
        )
    multi = MultiWay(
        ways, first_timeout=first_timeout, backoff_cap=backoff_cap, say=say, seated=seated
    )
    multi.mesh = mesh
    await nursery.start(multi.run)
    return multi.connect, table
