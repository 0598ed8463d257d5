"""A hostile seat over the real node and transport (for adversarial tests and the soak run).

:class:`HostileSeatNode` is a :class:`~dealerless.node.seat.SeatNode` whose table frames pass
through an :class:`Attack` before they reach the hub: the attack may let a frame through, hold
it, replace it with crafted frames (signed with the seat's real key, so only the content is
wrong), send different frames to different peers, or send to some peers only. Once an attack
has ``started`` the node no longer serves catch-up records (its own transcript holds the
genuine frames it withheld); once ``muted`` nothing from its machine leaves the node; with
``disconnect`` set it drops its link and stays away.

:func:`run_table` runs a whole table in one Trio run over loopback TCP: seat 0 hosts (direct
mode, its hub listens), the other seats join through the invite, one of them hostile. It returns
every seat's exit code, messages, and (from the stores) the configuration and transcripts.

Nothing here is used by the honest node: it is the harness of tests/adversarial/ and of
the soak run (``FaultyHub``); see spec/security.md §4 and §7.
"""

from __future__ import annotations

import collections
import functools
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from dealerless.node.app import _run_node, host_table, meta_for_invite
from dealerless.node.drivers import Driver
from dealerless.node.hub import Hub, Member
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.notices import Notice, english, text_notice
from dealerless.node.options import NodeOptions
from dealerless.node.seat import Connector, SeatNode
from dealerless.node.store import TableMeta, TableStore
from dealerless.protocol.messages import SignedMessage, decode_message, sign_message
from dealerless.protocol.rules.base import Action, GameConfig
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import TableEvent
from dealerless.protocol.table.kinds import TABLE_REGISTRY

__all__ = [
    "Attack",
    "FaultyHub",
    "HostileSeatNode",
    "Send",
    "TableRun",
    "decode",
    "run_table",
]


def decode(frame: bytes) -> SignedMessage:
    return decode_message(frame, registry=TABLE_REGISTRY)


@dataclass
class Send:
    """A frame to send: to every other seat (``to`` None) or to the listed seats only."""

    frame: bytes
    to: tuple[int, ...] | None = None


class Attack:
    """The honest behaviour; subclasses override :meth:`on_frame` and/or :meth:`after`."""

    def __init__(self) -> None:
        self.started = False  # stop serving catch-up records
        self.muted = False  # drop every frame the machine produces
        self.disconnect = False  # drop the link and stay away
        self.sent: list[bytes] = []  # the crafted frames that were sent (evidence to look for)
        self.withheld: list[bytes] = []

    def on_frame(self, node: HostileSeatNode, frame: bytes) -> list[Send] | None:
        """A frame the machine wants to send; None sends it unchanged."""
        return None

    def after(self, node: HostileSeatNode, events: list[TableEvent]) -> list[Send]:
        """Called after every machine call (new frames already passed through on_frame)."""
        return []

    def choose(self, node: HostileSeatNode) -> Action | None:
        """A legal move to play instead of the driver's (None: the driver chooses)."""
        return None

    def on_turn(self, node: HostileSeatNode) -> list[Send] | None:
        """The seat must move (before its driver chooses): frames to send instead of a move
        (the driver then does not act), or None to let the driver play."""
        return None


class _HostileDriver:
    def __init__(self, inner: Driver, node: HostileSeatNode) -> None:
        self.inner, self.node = inner, node

    async def choose(self, machine: TableMachine) -> Action | None:
        attack = self.node.attack
        if attack.muted:
            return None
        sends = attack.on_turn(self.node)
        if sends is None:
            return attack.choose(self.node) or await self.inner.choose(machine)
        for send in sends:
            self.node.send_raw(send)
        return None


class HostileSeatNode(SeatNode):
    def __init__(
        self,
        identity: Identity,
        store: TableStore,
        meta: TableMeta,
        connector: Connector,
        driver: Driver | None,
        *,
        attack: Attack,
        **kwargs: Any,
    ) -> None:
        self.attack = attack
        hostile = _HostileDriver(driver, self) if driver is not None else None
        super().__init__(identity, store, meta, connector, hostile, **kwargs)
        self.signing_key = self.identity.wire_key()

    # ---------------------------------------------------------------- crafting
    @property
    def m(self) -> TableMachine:
        assert self.machine is not None
        return self.machine

    @property
    def seat(self) -> int:
        assert self.machine is not None and self.machine.seat is not None
        return self.machine.seat

    def craft(self, kind: str, body: dict[str, Any], **header: Any) -> bytes:
        """Sign a message of this seat at the machine's head (header fields overridable)."""
        m = self.m
        fields: dict[str, Any] = {
            "table_id": m.config.table_id,
            "hand": m.hand,
            "seq": m.seq,
            "prev": m.head,
            "seat": m.seat,
            "kind": kind,
            "body": body,
        }
        fields.update(header)
        return sign_message(self.signing_key, registry=TABLE_REGISTRY, **fields).frame

    def resign(self, frame: bytes, **changes: Any) -> bytes:
        """Re-sign a frame's message with some envelope fields or its body changed."""
        msg = decode(frame)
        fields: dict[str, Any] = {
            "table_id": msg.table_id,
            "hand": msg.hand,
            "seq": msg.seq,
            "prev": msg.prev,
            "seat": msg.seat,
            "kind": msg.kind,
            "body": msg.body,
        }
        fields.update(changes)
        return sign_message(self.signing_key, registry=TABLE_REGISTRY, **fields).frame

    # ---------------------------------------------------------------- sending
    def send_raw(self, send: Send) -> None:
        """Queue a frame for the hub, bypassing the attack."""
        if send.to is None:
            self.attack.sent.append(send.frame)
            super().queue({"t": "f", "f": send.frame})
            return
        assert self.config is not None
        self.attack.sent.append(send.frame)
        for seat in send.to:
            super().queue({"t": "f", "f": send.frame}, to=self.config.seats[seat].key)

    def queue(
        self,
        payload: dict[str, Any],
        to: bytes | None = None,
        *,
        keep: bool = False,
        ahead: bool = False,
    ) -> None:
        kind = payload.get("t")
        if kind == "f":
            if self.attack.muted:
                self.attack.withheld.append(payload["f"])
                return
            out = self.attack.on_frame(self, payload["f"]) if self.machine is not None else None
            if out is None:
                super().queue(payload, to, ahead=ahead)
                return
            for send in out:
                self.send_raw(send)
            return
        super().queue(payload, to, keep=keep)

    def queue_records(self, payload: dict[str, Any], to: bytes, size: int) -> bool:
        if self.attack.started:
            return False  # an attacker serves no catch-up once its attack began
        return super().queue_records(payload, to, size)

    def after(self, events: list[TableEvent]) -> None:
        super().after(events)
        if self.machine is None or self.done:
            return
        for send in self.attack.after(self, events):
            self.send_raw(send)
        if self.attack.disconnect and not self.done:
            self.give_up(text_notice("hostile: disconnecting for good"))


class FaultyHub(Hub):
    """A hub that loses, duplicates, delays and reorders what it forwards, and can partition
    one member off for a while (fault injection between honest peers). Every copy to every
    recipient is decided separately; a delayed copy is released by a later forward (the nodes'
    keepalive catch-up messages keep coming), which also reorders it. Hub messages of the node
    layer (``have``/``recs``/``hello``/``config``) are subject to the same faults."""

    def __init__(
        self,
        seed: int,
        *,
        drop: float = 0.0,
        duplicate: float = 0.0,
        delay: float = 0.0,
        max_delay: float = 0.3,
        partition: tuple[float, float] | None = None,
    ) -> None:
        super().__init__(say=lambda _s: None)
        self.rng = random.Random(seed)  # noqa: S311 - fault choices are not secrets
        self.drop, self.duplicate, self.delay, self.max_delay = drop, duplicate, delay, max_delay
        self.partition = partition  # (start after the first forward, duration) in seconds
        self.started: float | None = None
        self.cut: bytes | None = None
        self.held: list[tuple[float, Member, bytes]] = []
        self.stats: collections.Counter[str] = collections.Counter()

    def _forward(self, member: Member, message: dict[str, Any]) -> None:
        now = trio.current_time()
        if self.started is None:
            self.started = now
        due = [h for h in self.held if h[0] <= now]
        self.held = [h for h in self.held if h[0] > now]
        for _, target, out in due:
            if not target.closed:
                super()._relay(member, target, out)
        super()._forward(member, message)

    def _relay(self, sender: Member, target: Member, out: bytes) -> None:
        now = trio.current_time()
        assert self.started is not None
        if self.partition is not None:
            start, length = self.partition
            if self.started + start <= now < self.started + start + length:
                if self.cut is None:
                    self.cut = sender.key
                    self.stats["partitions"] += 1
                if self.cut in (sender.key, target.key):
                    self.stats["partitioned"] += 1
                    return
        if self.rng.random() < self.drop:
            self.stats["dropped"] += 1
            return
        if self.rng.random() < self.delay:
            self.stats["delayed"] += 1
            self.held.append((now + self.rng.random() * self.max_delay, target, out))
            return
        super()._relay(sender, target, out)
        if self.rng.random() < self.duplicate:
            self.stats["duplicated"] += 1
            super()._relay(sender, target, out)


@dataclass
class TableRun:
    game: GameConfig
    homes: list[Path]
    hostile_key: bytes | None
    codes: dict[int, int] = field(default_factory=dict)  # by join order (0 = host)
    lines: dict[int, list[str]] = field(default_factory=dict)
    config: TableConfig | None = None
    table_id: bytes = b""

    @property
    def hostile_seat(self) -> int | None:
        assert self.config is not None
        return None if self.hostile_key is None else self.config.seat_of(self.hostile_key)

    def home_of_seat(self, seat: int) -> Path:
        """The home of the node that sits at ``seat`` (join order is not seat order)."""
        assert self.config is not None
        for home in self.homes:
            store = TableStore(home, self.table_id)
            loaded = store.load_config() if store.exists else None
            key = (home / "key").read_bytes() if (home / "key").exists() else b""
            if loaded is not None and key == self.config.seats[seat].key:
                return home
        raise KeyError(seat)

    def records(self, seat: int) -> list[bytes]:
        return TableStore(self.home_of_seat(seat), self.table_id).stored_records()

    def node_records(self, node: int) -> list[bytes]:
        """The transcript of node ``node`` (join order: a newcomer has no seat at first)."""
        return TableStore(self.homes[node], self.table_id).stored_records()

    def transcript_path(self, seat: int) -> Path:
        return TableStore(self.home_of_seat(seat), self.table_id).transcript_path

    def honest_seats(self) -> list[int]:
        assert self.config is not None
        return [s for s in range(self.config.players) if s != self.hostile_seat]

    def log(self) -> str:
        return "\n".join(
            f"--- node {i} (exit {self.codes.get(i)})\n"
            + "\n".join(lines if len(lines) <= 40 else [*lines[:15], "[...]", *lines[-25:]])
            for i, lines in self.lines.items()
        )


def run_table(
    root: Path,
    game: GameConfig,
    attack: Attack | None,
    *,
    hostile_index: int = 1,
    step_timeout_ms: int = 3000,
    options: NodeOptions | None = None,
    timeout: float = 120.0,
    seed: int = 0,
    bot: Callable[[int], Driver],
    honest_driver: Callable[[int], Driver] | None = None,
    hub: Hub | None = None,
    host_options: NodeOptions | None = None,
    joiner_options: Mapping[int, NodeOptions] | None = None,
    newcomer_after: str | None = None,
) -> TableRun:
    """Seat 0 hosts; joiners ``1..n-1`` join in order; joiner ``hostile_index`` runs ``attack``
    (None: every seat honest); ``bot(seed)`` makes a bot driver (the caller's: node/ does
    not import the client's bots; node ``i`` gets ``bot(seed + i)``), ``honest_driver(i)``
    the driver of honest node ``i`` (default the bot), ``host_options`` the host's node
    options (default ``options``), ``joiner_options`` those of single joiners by join order.
    ``newcomer_after``: one more node (node ``n``) says hello to the running table once the host
    said a line that starts with this (a hand-by-hand game seats it at a seat change).
    Returns when every honest node has exited (the hostile node is then cancelled)."""
    opts = options or NodeOptions(linger=1.5, stall=0.5, sync_wait=1.0, min_step_timeout_ms=0)
    n = game.players
    nodes = n + (newcomer_after is not None)
    ids = [Identity.generate() for _ in range(nodes)]
    homes = [root / f"node{i}" for i in range(nodes)]
    for home, ident in zip(homes, ids, strict=True):
        home.mkdir(parents=True, exist_ok=True)
        (home / "key").write_bytes(ident.public_key)
    hostile_key = ids[hostile_index].public_key if attack is not None else None
    run = TableRun(game, homes, hostile_key)

    def driver(i: int) -> Driver:
        return honest_driver(i) if honest_driver is not None else bot(seed + i)

    def sayer(i: int) -> Callable[[Notice], None]:
        run.lines[i] = []
        lines = run.lines[i]
        return lambda said: lines.append(english(said))

    async def main() -> None:
        ready = trio.Event()
        invite: list[Invite] = []
        lobby = [trio.Event() for _ in range(n)]
        newcomer_go = trio.Event()

        def on_ready(meta: TableMeta) -> None:
            invite.append(Invite.decode(meta.invite))
            run.table_id = bytes.fromhex(meta.table_id)
            ready.set()

        host_say = sayer(0)

        def host_lines(said: Notice) -> None:
            host_say(said)
            if newcomer_after is not None and english(said).startswith(newcomer_after):
                newcomer_go.set()
            count = said.params.get("count")
            if said.code == "joined" and isinstance(count, int):  # joiner count-1 is seated
                k = count - 1
                if 0 < k < n:
                    lobby[k].set()

        async def host() -> None:
            run.codes[0] = await host_table(
                ids[0],
                homes[0],
                game,
                name="n0",
                bot=True,
                step_timeout_ms=step_timeout_ms,
                driver=driver(0),
                say=host_lines,
                log=None,
                options=host_options or opts,
                on_ready=on_ready,
                hub=hub or Hub(say=lambda _s: None, owner=ids[0].public_key),
            )

        async def join(i: int, cancel: trio.CancelScope | None = None) -> None:
            await ready.wait()
            if i == n:
                await newcomer_go.wait()
            elif i > 1:
                await lobby[i - 1].wait()  # seat order = join order
            meta = meta_for_invite(invite[0], name=f"n{i}", bot=True, transcript="")
            say = sayer(i)
            hostile = attack if i == hostile_index else None
            node_run = _run_node(
                ids[i],
                homes[i],
                meta,
                game=None,
                driver=bot(seed + i) if hostile is not None else driver(i),
                say=say,
                log=None,
                options=(joiner_options or {}).get(i, opts),
                make_node=SeatNode
                if hostile is None
                else functools.partial(HostileSeatNode, attack=hostile),
            )
            if hostile is None:
                run.codes[i] = await node_run
                return
            assert cancel is not None
            with cancel:
                run.codes[i] = await node_run

        with trio.fail_after(timeout):
            hostile_scope = trio.CancelScope()
            async with trio.open_nursery() as outer:
                if attack is not None:
                    outer.start_soon(join, hostile_index, hostile_scope)
                async with trio.open_nursery() as honest:
                    honest.start_soon(host)
                    for i in range(1, nodes):
                        if i != hostile_index or attack is None:
                            honest.start_soon(join, i)
                hostile_scope.cancel()

    try:
        trio.run(main)
    except trio.TooSlowError:
        raise AssertionError(f"the table did not finish in {timeout} s\n{run.log()}") from None
    loaded = TableStore(homes[0], run.table_id).load_config()
    run.config = loaded[0] if loaded is not None else None
    return run
