"""Host, join and resume a table: what the ``dealerless host/join/resume`` commands run."""

from __future__ import annotations

import dataclasses
import json
import secrets
import socket
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from dealerless.node.hub import Hub, bound_port
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.line_driver import LineDriver
from dealerless.node.links import (
    FatalLinkError,
    Link,
    RemoteLink,
    attach_message,
    open_local,
    open_remote,
)
from dealerless.node.relay_pins import RelayPins
from dealerless.node.seat import BotDriver, Driver, NodeOptions, SeatNode
from dealerless.node.store import TableMeta, TableStore, find_tables
from dealerless.node.transport import PeerPin
from dealerless.protocol.crypto import generators
from dealerless.protocol.rules.base import GameConfig
from dealerless.protocol.rules.registry import make_config

__all__ = ["EventLog", "advertised_address", "host_table", "join_table", "resume_table"]

Say = Callable[[str], None]


def stderr_say(prefix: str = "") -> Say:
    def say(text: str) -> None:
        print(f"{prefix}{text}", file=sys.stderr, flush=True)

    return say


class EventLog:
    """JSON lines of node events with wall-clock times (benchmarks)."""

    def __init__(self, path: str) -> None:
        self.file = open(path, "a", buffering=1)  # noqa: SIM115 - closed by close()

    def __call__(self, fields: dict[str, Any]) -> None:
        self.file.write(json.dumps({**fields, "wall": time.monotonic()}) + "\n")

    def close(self) -> None:
        self.file.close()


def advertised_address(listen_host: str) -> str:
    """The address to put in an invite for a listener on ``listen_host``."""
    if listen_host not in ("", "0.0.0.0", "::"):  # noqa: S104 - only a comparison
        return listen_host
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # no packet is sent; picks the outgoing interface
            address: str = probe.getsockname()[0]
            return address
    except OSError:
        return "127.0.0.1"


def warm_up() -> None:
    """Build the deck's cached generator tables now (~0.2 s), not in the first hand."""
    generators.g_table()
    generators.h_table()
    generators.shuffle_bases(generators.DECK_SIZE)
    generators.card_points()


def _driver(meta: TableMeta, driver: Driver | None) -> Driver | None:
    if driver is not None:
        return driver
    return BotDriver() if meta.bot else LineDriver()


async def _run_node(
    identity: Identity,
    home: Path,
    meta: TableMeta,
    *,
    game: GameConfig | None,
    driver: Driver | None,
    say: Say,
    log: Callable[[dict[str, Any]], None] | None,
    options: NodeOptions | None,
    hub: Hub | None = None,
    on_ready: Callable[[TableMeta], None] | None = None,
    make_node: Callable[..., SeatNode] = SeatNode,
) -> int:
    """Run one seat's node (and, for a host in direct mode, its hub) until it ends.
    ``make_node`` builds the node (tests pass a hostile one: node/hostile.py)."""
    table_id = bytes.fromhex(meta.table_id)
    store = TableStore(home, table_id)
    warm_up()
    key = identity.public_key
    host = meta.role == "host"
    invite = Invite.decode(meta.invite)
    attach = attach_message(invite, host)
    connector: Callable[[], Awaitable[tuple[Link, dict[str, Any]]]]

    async with trio.open_nursery() as nursery:
        if host and not meta.relay:
            local_hub = hub or Hub(say=say, owner=key)
            try:
                listeners = await nursery.start(
                    local_hub.serve_tcp, meta.listen_host, meta.port, identity
                )
            except OSError as exc:
                say(f"cannot listen on {meta.listen_host}:{meta.port}: {exc}")
                nursery.cancel_scope.cancel()
                return 1
            meta.port = bound_port(listeners)
            if not meta.address:
                meta.address = advertised_address(meta.listen_host)

            async def connector() -> tuple[Link, dict[str, Any]]:
                return await open_local(local_hub, key, attach)

        else:
            connector = _remote_connector(identity, home, meta, invite, attach, say)

        if host and not invite.direct and invite.relay is None:
            ways: dict[str, Any] = {"direct": ((meta.address, meta.port),)}
            if meta.relay:
                ways = {
                    "relay": (meta.address, meta.port),
                    "relay_fingerprint": meta.relay_fingerprint,
                }
            meta.invite = dataclasses.replace(invite, **ways).encode()
        store.save_meta(meta)
        if on_ready is not None:
            on_ready(meta)
        node = make_node(
            identity,
            store,
            meta,
            connector,
            _driver(meta, driver),
            game=game,
            say=say,
            log=log,
            options=options,
        )
        code = await node.run()
        nursery.cancel_scope.cancel()
    return code


def _remote_connector(
    identity: Identity,
    home: Path,
    meta: TableMeta,
    invite: Invite,
    attach: dict[str, Any],
    say: Say,
) -> Callable[[], Awaitable[tuple[Link, dict[str, Any]]]]:
    """Connect to the host's hub or to a relay. The link is always pinned: in direct mode to
    the host the invite names, at a relay to the fingerprint in the invite or, failing that,
    to the one this relay address showed first (trust on first use, node/relay_pins.py). The
    host a relay names for the table must be the one the invite's pin commits to."""
    pins = RelayPins(home)
    host = meta.role == "host"

    def host_is(key: bytes) -> bool:
        known = meta.host_key
        return key.hex() == known if known else invite.is_host(key)

    async def connector() -> tuple[Link, dict[str, Any]]:
        say(f"connecting to {meta.address}:{meta.port}")
        pin: PeerPin | None
        if not meta.relay:
            pin = host_is
        else:
            try:
                pin = meta.relay_fingerprint or pins.get(meta.address, meta.port) or None
            except ValueError as exc:
                raise FatalLinkError(str(exc)) from None
        link, joined = await open_remote(meta.address, meta.port, identity, pin, attach)
        named = joined.get("host")
        if not isinstance(named, bytes) or not host_is(named):
            await link.aclose()
            raise FatalLinkError(
                f"{meta.address}:{meta.port} names a host for this table that the invite does "
                "not (a relay or address that is not the host's); check the invite code"
            )
        if meta.relay and pin is None and isinstance(link, RemoteLink):
            fingerprint = link.channel.peer_id.fingerprint
            pins.remember(meta.address, meta.port, fingerprint)
            say(f"relay {meta.address}:{meta.port} is {fingerprint}: pinned from now on")
        if not host and not meta.host_key:
            meta.host_key = named.hex()
        return link, joined

    return connector


async def host_table(
    identity: Identity,
    home: Path,
    game: GameConfig,
    *,
    name: str,
    listen: tuple[str, int] = ("127.0.0.1", 0),
    advertise: str = "",
    relay: tuple[str, int] | None = None,
    relay_fingerprint: str = "",
    bot: bool = False,
    transcript: str = "",
    step_timeout_ms: int = 60_000,
    driver: Driver | None = None,
    say: Say = print,
    log: Callable[[dict[str, Any]], None] | None = None,
    options: NodeOptions | None = None,
    on_ready: Callable[[TableMeta], None] | None = None,
    hub: Hub | None = None,
) -> int:
    """Open a table and host it; ``hub`` (direct mode: the hub to serve, default one that only
    this host may open tables on) is for tests and the soak run. The table id is derived from
    the invite's fresh token (node/invite.py); ``on_ready(meta)`` gets it with the code."""
    key = identity.public_key
    invite = Invite.create(key, game, step_timeout_ms, token=secrets.token_bytes(16))
    address, port = relay if relay else (advertise, listen[1])
    meta = TableMeta(
        table_id=invite.table_id.hex(),
        role="host",
        address=address,
        port=port,
        host_key=identity.public_key.hex(),
        relay=relay is not None,
        relay_fingerprint=relay_fingerprint,
        name=name,
        bot=bot,
        transcript=str(Path(transcript).resolve()) if transcript else "",
        game=game.game,
        seats=game.players,
        step_timeout_ms=step_timeout_ms,
        options=dict(game.options),
        listen_host=listen[0],
        invite=invite.encode(),  # no ways in yet: _run_node adds them once it listens
    )
    return await _run_node(
        identity,
        home,
        meta,
        game=game,
        driver=driver,
        say=say,
        log=log,
        options=options,
        on_ready=on_ready,
        hub=hub,
    )


def meta_for_invite(invite: Invite, *, name: str, bot: bool, transcript: str) -> TableMeta:
    return TableMeta(
        table_id=invite.table_id.hex(),
        role="join",
        address=invite.address,
        port=invite.port,
        host_key="",  # learnt from the first link, checked against the invite's pin
        relay=invite.relay is not None,
        relay_fingerprint=invite.relay_fingerprint,
        name=name,
        bot=bot,
        transcript=str(Path(transcript).resolve()) if transcript else "",
        game=invite.game,
        seats=invite.seats,
        step_timeout_ms=invite.step_timeout_ms,
        options=dict(invite.options),
        invite=invite.encode(),
    )


async def join_table(
    identity: Identity,
    home: Path,
    invite: Invite,
    *,
    name: str,
    bot: bool = False,
    transcript: str = "",
    driver: Driver | None = None,
    say: Say = print,
    log: Callable[[dict[str, Any]], None] | None = None,
    options: NodeOptions | None = None,
) -> int:
    floor = (options or NodeOptions()).min_step_timeout_ms
    if invite.step_timeout_ms < floor:
        say(
            f"refused: the invite's step timeout is {invite.step_timeout_ms} ms, below the floor "
            f"of {floor} ms (a seat could be timed out before a person can act; "
            "--min-step-timeout lowers the floor for bot tables)"
        )
        return 1
    if not invite.direct and invite.relay is None:
        say("refused: the invite code holds no way to reach the table this version can use")
        return 1
    store = TableStore(home, invite.table_id)
    if store.exists:
        meta = store.load_meta()
        say("this table is known here: resuming it")
        if bot:
            meta.bot = True
    else:
        meta = meta_for_invite(invite, name=name, bot=bot, transcript=transcript)
    return await _run_node(
        identity, home, meta, game=None, driver=driver, say=say, log=log, options=options
    )


async def resume_table(
    identity: Identity,
    home: Path,
    table: str | None,
    *,
    bot: bool | None = None,
    driver: Driver | None = None,
    say: Say = print,
    log: Callable[[dict[str, Any]], None] | None = None,
    options: NodeOptions | None = None,
) -> int:
    tables = find_tables(home)
    if table:
        tables = [(s, m) for s, m in tables if m.table_id.startswith(table.lower())]
    else:
        tables = [(s, m) for s, m in tables if not m.finished]
    if not tables:
        say("no table to resume" + (f" matching {table!r}" if table else ""))
        return 1
    if len(tables) > 1 and table:
        say(f"{table!r} matches several tables; give more of the id")
        return 1
    _, meta = tables[0]
    if bot is not None:
        meta.bot = bot
    game = None
    if meta.role == "host":
        game = make_config(meta.game, meta.seats, meta.options)
    say(f"resuming table {meta.table_id[:12]} ({meta.game}, {meta.role})")
    return await _run_node(
        identity, home, meta, game=game, driver=driver, say=say, log=log, options=options
    )
