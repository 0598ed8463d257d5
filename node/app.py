"""Host, join and resume a table: what the ``dealerless host/join/resume`` commands run."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from dealerless.node.drivers import MakeBotDriver
from dealerless.node.hub import Hub, bound_port
from dealerless.node.identity import Identity
from dealerless.node.invite import TOKEN_BYTES, Invite, InviteError
from dealerless.node.line_driver import LineDriver
from dealerless.node.links import (
    FatalLinkError,
    Link,
    RemoteLink,
    attach_message,
    open_local,
    open_remote,
)
from dealerless.node.mesh import Mesh
from dealerless.node.nostr.link import SERVE_GRACE as NOSTR_SERVE_GRACE
from dealerless.node.nostr.link import NostrTable
from dealerless.node.notices import Notice, english, notice, print_say
from dealerless.node.options import NodeOptions
from dealerless.node.portable import hold_lock
from dealerless.node.relay_pins import PinsError, RelayPins
from dealerless.node.seat import Driver, SeatNode
from dealerless.node.store import TableMeta, TableStore, list_tables, prune
from dealerless.node.table_ways import Connector, start_ways
from dealerless.node.transport import PeerPin
from dealerless.protocol.crypto import generators
from dealerless.protocol.rules.base import GameConfig
from dealerless.protocol.rules.registry import make_config

__all__ = ["EventLog", "advertised_address", "host_table", "join_table", "resume_table"]

Say = Callable[[Notice], None]


NODE_LOG = logging.getLogger("dealerless.node")


def stderr_say(prefix: str = "") -> Callable[[Notice | str], None]:
    """A ``say`` for line mode: each line is logged (INFO, logger ``dealerless.node``), which
    puts it on stderr (the client's logging set-up) and in the log file; never on stdout. A
    notice in the node's English; a command's own line (a ``str``) as it is."""

    def say(said: Notice | str) -> None:
        NODE_LOG.info("%s%s", prefix, said if isinstance(said, str) else english(said))

    return say


def logged_say(say: Say) -> Say:
    """``say`` (a screen's status line) that also records each line in the log, in English."""

    def both(said: Notice) -> None:
        NODE_LOG.info("%s", english(said))
        say(said)

    return both


class EventLog:
    """JSON lines of node events with wall-clock times (``time.time()``, comparable between
    processes; benchmarks)."""

    def __init__(self, path: str) -> None:
        self.file = open(path, "a", buffering=1)  # noqa: SIM115 - closed by close()

    def __call__(self, fields: dict[str, Any]) -> None:
        self.file.write(json.dumps({**fields, "wall": time.time()}) + "\n")

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
    """Build the deck's cached generator tables now (~0.2 s), not in the first hand (where
    each table would cost every seat ~35 ms on the critical path: the hand key, the first
    shuffle)."""
    generators.g_table().build()
    generators.h_table().build()
    generators.shuffle_bases(generators.DECK_SIZE)
    generators.card_points()


def _driver(meta: TableMeta, driver: Driver | None, bot_driver: MakeBotDriver | None) -> Driver:
    """The caller's driver; else for a bot seat the caller's bot, else the line driver."""
    if driver is not None:
        return driver
    if not meta.bot:
        return LineDriver()
    if bot_driver is None:
        raise ValueError("a bot plays this seat: the caller must pass bot_driver")
    return bot_driver()


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
    bot_driver: MakeBotDriver | None = None,
) -> int:
    """Run one seat's node (and, for a host in direct mode, its hub) until it ends.
    ``make_node`` builds the node (tests pass a hostile one: node/hostile.py)."""
    seat_driver = _driver(meta, driver, bot_driver)  # a caller's mistake: before any I/O
    table_id = bytes.fromhex(meta.table_id)
    store = TableStore(home, table_id)
    # One node per seat: a second process with our key at this table would sign its own
    # elements at the same heads (equivocation, a proven cheat), or fight for our link.
    store.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock = hold_lock(store.dir / "node.lock")
    if lock is None:
        say(notice("seat_open_elsewhere", table=meta.table_id[:12]))
        return 1
    try:
        return await _run_locked(
            identity, home, meta, store, game=game, seat_driver=seat_driver, say=say, log=log,
            options=options, hub=hub, on_ready=on_ready, make_node=make_node,
        )  # fmt: skip
    finally:
        lock()


async def _run_locked(
    identity: Identity,
    home: Path,
    meta: TableMeta,
    store: TableStore,
    *,
    game: GameConfig | None,
    seat_driver: Driver,
    say: Say,
    log: Callable[[dict[str, Any]], None] | None,
    options: NodeOptions | None,
    hub: Hub | None,
    on_ready: Callable[[TableMeta], None] | None,
    make_node: Callable[..., SeatNode],
) -> int:
    table_id = store.table_id
    pruned = prune(home)
    if pruned:
        NODE_LOG.info("deleted %d key share(s) of finished or abandoned tables", pruned)
    warm_up()
    key = identity.public_key
    host = meta.role == "host"
    try:
        invite = Invite.decode(meta.invite)
    except InviteError as exc:
        say(notice("old_invite", table=meta.table_id[:12], reason=str(exc)))
        return 1
    attach = attach_message(invite, host)
    connector: Connector

    nodes: list[SeatNode] = []  # the node, once made (a relay verdict may come first)
    stopping: list[Notice] = []
    nostr: NostrTable | None = None
    mesh: Mesh | None = None
    async with trio.open_nursery() as nursery:
        direct: tuple[str, str, Connector] | None = None
        local_hub: Hub | None = None
        if host and not meta.relay and meta.direct:
            local_hub = hub or Hub(say=say, owner=key)
            try:
                listeners = await nursery.start(
                    local_hub.serve_tcp, meta.listen_host, meta.port, identity
                )
            except OSError as exc:
                say(
                    notice(
                        "cannot_listen", address=f"{meta.listen_host}:{meta.port}", error=str(exc)
                    )
                )
                nursery.cancel_scope.cancel()
                return 1
            meta.port = bound_port(listeners)
            if not meta.address:
                meta.address = advertised_address(meta.listen_host)

            async def local() -> tuple[Link, dict[str, Any]]:
                assert local_hub is not None
                return await open_local(local_hub, key, attach)

            direct = ("direct", f"{meta.address}:{meta.port}", local)
        elif meta.relay or (meta.direct and meta.address):
            kind = "relay" if meta.relay else "direct"
            direct = (
                kind,
                f"{meta.address}:{meta.port}",
                _remote_connector(identity, home, meta, invite, attach, say),
            )

        if (
            meta.nostr
            and (options or NodeOptions()).direct_links
            and (options or NodeOptions()).punch
        ):
            # The relays introduce the seats; pairs that reach each other then talk directly.
            mesh = Mesh(identity, say=say)
            await nursery.start(mesh.run)
        if meta.nostr or (not host and direct is not None):
            # A joiner tries every way at once; until it has its seat (the signed table
            # configuration) it gives up after a bounded time and says what it tried, also in a
            # lobby whose host went away; a seated node keeps trying (its host may resume).
            opt = options or NodeOptions()
            limit = math.inf if host else opt.first_join_wait

            def no_relay(states: str) -> None:
                # Before we have a seat, a table that no relay carries cannot start: say what
                # each relay answered and stop (a seated node keeps trying: it may be a blip).
                if store.load_config() is None:
                    stopping.append(notice("no_relay", states=states))
                    if nodes:
                        nodes[0].give_up(stopping[0])
                else:
                    say(notice("no_relay_now", states=states))

            connector, nostr = await start_ways(
                nursery,
                meta,
                identity,
                invite,
                direct,
                say,
                first_timeout=limit,
                backoff_cap=opt.reconnect_cap,
                seated=lambda: store.load_config() is not None,
                on_no_relay=no_relay,
                expiration_days=opt.nostr_expiration_days,
                mesh=mesh,
            )
            if nostr is not None:
                options = dataclasses.replace(
                    opt, serve_grace=max(opt.serve_grace, NOSTR_SERVE_GRACE)
                )
        elif direct is not None:
            connector = direct[2]
        else:
            say(notice("no_way_in"))
            nursery.cancel_scope.cancel()
            return 1

        if host and not invite.direct and invite.relay is None and not invite.nostr:
            ways: dict[str, Any] = {"nostr": tuple(meta.nostr)}
            if meta.relay:
                ways["relay"] = (meta.address, meta.port)
                ways["relay_fingerprint"] = meta.relay_fingerprint
            elif meta.direct:
                ways["direct"] = ((meta.address, meta.port),)
            meta.invite = dataclasses.replace(invite, **ways).encode()
        store.save_meta(meta)
        if on_ready is not None:
            on_ready(meta)
        node = make_node(
            identity,
            store,
            meta,
            connector,
            seat_driver,
            game=game,
            say=say,
            log=log,
            options=options,
            **({"mesh": mesh} if mesh is not None else {}),
        )
        nodes.append(node)
        if nostr is not None:
            nostr.want(node.wants, node.hosting)
        if stopping:
            node.give_up(stopping[0])
        code = await node.run()
        if nostr is not None and log is not None:
            log({"ev": "nostr", **nostr.pool.report()})
        if mesh is not None and log is not None:
            log({"ev": "ways", **mesh.stats, "links": len(mesh.channels)})
        if local_hub is not None and node.machine is not None and node.machine.left_table:
            # We stood up or sit out, the table plays on, and its direct links run through
            # our hub: keep passing the others' messages until they have all gone.
            say(notice("serving_others"))
            await _serve_until_empty(local_hub, table_id, key)
        nursery.cancel_scope.cancel()
    return code


async def _serve_until_empty(hub: Hub, table_id: bytes, ours: bytes, quiet: float = 5.0) -> None:
    """Until no other seat has been connected to the table for ``quiet`` seconds."""
    empty_since: float | None = None
    while True:
        await trio.sleep(0.5)
        table = hub.tables.get(table_id)
        others = [] if table is None else [k for k in table.members if k != ours]
        now = trio.current_time()
        if others:
            empty_since = None
        elif empty_since is None:
            empty_since = now
        elif now - empty_since >= quiet:
            return


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
        say(notice("connecting", address=f"{meta.address}:{meta.port}"))
        pin: PeerPin | None
        if not meta.relay:
            pin = host_is
        else:
            try:
                pin = meta.relay_fingerprint or pins.get(meta.address, meta.port) or None
            except ValueError as exc:
                raise FatalLinkError(
                    exc.notice if isinstance(exc, PinsError) else str(exc)
                ) from None
        link, joined = await open_remote(meta.address, meta.port, identity, pin, attach)
        named = joined.get("host")
        if not isinstance(named, bytes) or not host_is(named):
            await link.aclose()
            raise FatalLinkError(notice("wrong_host", address=f"{meta.address}:{meta.port}"))
        if meta.relay and pin is None and isinstance(link, RemoteLink):
            fingerprint = link.channel.peer_id.fingerprint
            pins.remember(meta.address, meta.port, fingerprint)
            say(
                notice(
                    "relay_pinned", address=f"{meta.address}:{meta.port}", fingerprint=fingerprint
                )
            )
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
    bot_driver: MakeBotDriver | None = None,
    say: Say = print_say,
    log: Callable[[dict[str, Any]], None] | None = None,
    options: NodeOptions | None = None,
    on_ready: Callable[[TableMeta], None] | None = None,
    hub: Hub | None = None,
    nostr: list[str] | None = None,
    direct: bool = True,
    make_node: Callable[..., SeatNode] = SeatNode,
    token: bytes | None = None,
) -> int:
    """Open a table and host it; ``hub`` (direct mode: the hub to serve, default one that only
    this host may open tables on) and ``make_node`` (a hostile host) are for tests and the soak
    run. The table id is derived from the invite's token (node/invite.py): a fresh one, or
    ``token`` (a rematch's, which the players derive from the last table's invite);
    ``on_ready(meta)`` gets it with the code."""
    key = identity.public_key
    if token is None:
        token = secrets.token_bytes(TOKEN_BYTES)
    invite = Invite.create(key, game, step_timeout_ms, token=token)
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
        nostr=list(nostr or []),
        direct=direct,
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
        bot_driver=bot_driver,
        make_node=make_node,
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
        nostr=list(invite.nostr),
        direct=bool(invite.direct or invite.relay),
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
    bot_driver: MakeBotDriver | None = None,
    say: Say = print_say,
    log: Callable[[dict[str, Any]], None] | None = None,
    options: NodeOptions | None = None,
) -> int:
    floor = (options or NodeOptions()).min_step_timeout_ms
    if invite.step_timeout_ms < floor:
        say(notice("slow_invite", step=invite.step_timeout_ms, floor=floor))
        return 1
    if not invite.direct and invite.relay is None and not invite.nostr:
        say(notice("invite_no_way"))
        return 1
    store = TableStore(home, invite.table_id)
    if store.exists:
        meta = store.load_meta()
        say(notice("known_table"))
        if bot:
            meta.bot = True
    else:
        meta = meta_for_invite(invite, name=name, bot=bot, transcript=transcript)
    return await _run_node(
        identity,
        home,
        meta,
        game=None,
        driver=driver,
        bot_driver=bot_driver,
        say=say,
        log=log,
        options=options,
    )


async def resume_table(
    identity: Identity,
    home: Path,
    table: str | None,
    *,
    bot: bool | None = None,
    driver: Driver | None = None,
    bot_driver: MakeBotDriver | None = None,
    say: Say = print_say,
    log: Callable[[dict[str, Any]], None] | None = None,
    options: NodeOptions | None = None,
    on_chosen: Callable[[TableMeta], None] | None = None,
) -> int:
    """Carry on with a stored table (``table``: its id or first characters; default the most
    recent unfinished one). ``on_chosen`` sees the table before its node starts (the client
    resumes the bots of a local game there)."""
    tables, problems = list_tables(home)
    for problem in problems:  # said, never skipped silently
        say(notice("stored_unusable", problem=str(problem)))
    if table:
        tables = [(s, m) for s, m in tables if m.table_id.startswith(table.lower())]
    else:
        tables = [(s, m) for s, m in tables if not m.finished]
    if not tables:
        say(notice("no_resume", table=table or ""))
        return 1
    if len(tables) > 1 and table:
        say(notice("ambiguous", table=table))
        return 1
    _, meta = tables[0]
    if bot is not None:
        meta.bot = bot
    game = None
    if meta.role == "host":
        game = make_config(meta.game, meta.seats, meta.options)
    say(notice("resuming", table=meta.table_id[:12], game=meta.game, role=meta.role))
    if on_chosen is not None:
        on_chosen(meta)
    return await _run_node(
        identity,
        home,
        meta,
        game=game,
        driver=driver,
        bot_driver=bot_driver,
        say=say,
        log=log,
        options=options,
    )
