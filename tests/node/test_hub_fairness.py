"""Each bound of a hub's fair sharing, one by one (a hub in this process with small limits, real
loopback sockets from distinct source addresses 127.0.0.x): connections per key, tables per
address (and the pause after a refusal for it) and per key, a table that carries nothing ages
out, at the connection cap the idle and the over-represented make room and nobody else does, a
lobby message is at most a hello, and the host's own link is never cut (its senders wait
instead). The processes-level figures are in tests/node/test_relay_fairness.py and
tests/node/test_lobby_flood.py."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio

from dealerless.node.hub import Hub, HubLimits
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.links import Link, LinkError, RemoteLink, attach_message, open_local
from dealerless.node.transport import HandshakeError, TransportConfig, connect
from dealerless.protocol.rules.registry import make_config

CONFIG = TransportConfig(keepalive_interval=5.0, idle_timeout=60.0)
Connect = Callable[..., Awaitable[tuple[Link, dict[str, Any]]]]


def new_table(host: Identity, seats: int = 2) -> Invite:
    return Invite.create(host.public_key, make_config("tuppen", seats, {}), 60_000)


@asynccontextmanager
async def serving(hub: Hub) -> AsyncIterator[tuple[int, Connect]]:
    """``hub`` on a loopback port, and a connector that says where a connection comes from."""
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(hub.serve_tcp, "127.0.0.1", 0, Identity.generate())
        port = listeners[0].socket.getsockname()[1]

        async def dial(
            who: Identity, message: dict[str, Any], source: str = "127.0.0.1"
        ) -> tuple[Link, dict[str, Any]]:
            stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=source)
            link = RemoteLink(await connect(stream, who, None, config=CONFIG))
            await link.send(message)
            reply = await link.receive()
            if reply["t"] == "error":
                await link.aclose()
                raise LinkError(f"the hub refused: {reply['reason']}")
            return link, reply

        yield port, dial
        nursery.cancel_scope.cancel()


async def host(dial: Connect, source: str = "127.0.0.1", who: Identity | None = None) -> Link:
    """A connection that opens a table of its own from ``source``."""
    who = who or Identity.generate()
    link, joined = await dial(who, attach_message(new_table(who), True), source)
    assert joined["t"] == "joined" and joined["admitted"]
    return link


async def cut(link: Link, within: float = 5.0) -> str:
    """Until the hub ends ``link``: the error it said last ('' if none)."""
    reason = ""
    with trio.fail_after(within):
        try:
            while True:
                message = await link.receive()
                if message["t"] == "error":
                    reason = str(message["reason"])
        except LinkError:
            return reason


async def alive(link: Link, seconds: float = 0.3) -> bool:
    with trio.move_on_after(seconds):
        try:
            while True:
                message = await link.receive()
                assert message["t"] != "error", message
        except LinkError:
            return False
    return True


def test_connections_per_key_are_capped() -> None:
    async def main() -> None:
        hub = Hub(HubLimits(max_per_key=2))
        async with serving(hub) as (_port, dial):
            me = Identity.generate()
            held = [await host(dial, who=me), await host(dial, who=me)]  # two tables, one key
            with pytest.raises(LinkError, match="too many connections with your key"):
                await host(dial, who=me)
            assert hub.notes.counts["per-key"] == 1
            other = await host(dial)  # another key is not concerned
            assert all([await alive(link) for link in [*held, other]])

    trio.run(main)


def test_tables_per_address_and_per_key_are_capped() -> None:
    async def main() -> None:
        hub = Hub(HubLimits(tables_per_address=2, tables_per_key=1, cap_cooldown=1.0))
        async with serving(hub) as (_port, dial):
            held = [await host(dial), await host(dial)]
            with pytest.raises(LinkError, match="too many tables from your address"):
                await host(dial)
            refused = trio.current_time()
            held.append(await host(dial, "127.0.0.2"))  # another address may
            me = Identity.generate()
            held.append(await host(dial, "127.0.0.3", me))
            with pytest.raises(LinkError, match="your key hosts too many tables"):
                await host(dial, "127.0.0.4", me)
            assert hub.notes.counts["table-refused"] == 2
            await held[0].aclose()  # a table closed: its address may open one again ...
            # ... but not at once: refused a table for its cap, it gets no connection (before
            # any handshake) for cap_cooldown, so asking again and again costs the hub nothing.
            with pytest.raises((LinkError, OSError, HandshakeError)):
                await host(dial)
            assert hub.notes.counts["capped"] == 1
            await trio.sleep_until(refused + 1.0)
            held.append(await host(dial))

    trio.run(main)


def test_a_table_that_carries_nothing_ages_out() -> None:
    async def main() -> None:
        limits = HubLimits(idle_after=0.5, table_expiry=1.5, sweep_every=0.1)
        hub = Hub(limits)
        async with serving(hub) as (_port, dial):
            lonely = await host(dial)
            owner, guest = Identity.generate(), Identity.generate()
            busy = new_table(owner)
            talking, _ = await dial(owner, attach_message(busy, True))
            await talking.send({"t": "admit", "keys": [guest.public_key]})
            listening, _ = await dial(guest, attach_message(busy, False))

            async def chat() -> None:
                while True:
                    await talking.send({"t": "send", "data": b"hi"})
                    await trio.sleep(0.3)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(chat)
                started = trio.current_time()
                reason = await cut(lonely)
                assert "carried no message for 2 s" in reason, reason
                assert 1.4 <= trio.current_time() - started <= 3.0
                assert await alive(listening, 1.0)  # a table that carries messages stays
                nursery.cancel_scope.cancel()
            assert hub.notes.counts["expired"] == 1
            assert len(hub.tables) == 1

    trio.run(main)


def test_a_full_hub_replaces_the_over_represented_and_nobody_else() -> None:
    async def main() -> None:
        hub = Hub(HubLimits(max_connections=6, tables_per_address=8, room_cooldown=60.0))
        async with serving(hub) as (_port, dial):
            crowd = [await host(dial, "127.0.0.2") for _ in range(4)]
            honest = [await host(dial, "127.0.0.1"), await host(dial, "127.0.0.3")]
            # Full. A newcomer from a fresh address replaces the crowd's oldest connection.
            honest.append(await host(dial, "127.0.0.4"))
            assert await cut(crowd[0]) == ""
            # The crowd's address lost one to make room: none is made for it for a while.
            with pytest.raises((LinkError, OSError, HandshakeError)):
                await host(dial, "127.0.0.2")
            # 127.0.0.1 (1 connection) still finds the crowd (3) over-represented ...
            honest.append(await host(dial, "127.0.0.1"))
            assert await cut(crowd[1]) == ""
            # ... but now no address holds two more than 127.0.0.1's 2: it is refused, and
            # no active connection is ended for it.
            with pytest.raises((LinkError, OSError, HandshakeError)):
                await host(dial, "127.0.0.1")
            assert all([await alive(link) for link in [*crowd[2:], *honest]])
            assert hub.notes.counts["made-room"] == 2
            assert hub.notes.counts["cooling"] == 1 and hub.notes.counts["full"] == 1

    trio.run(main)


def test_a_full_hub_replaces_an_idle_table_first() -> None:
    async def main() -> None:
        limits = HubLimits(max_connections=4, idle_after=1.0, sweep_every=0.1)
        hub = Hub(limits)
        async with serving(hub) as (_port, dial):
            owner, guest = Identity.generate(), Identity.generate()
            busy = new_table(owner)
            talking, _ = await dial(owner, attach_message(busy, True), "127.0.0.2")
            await talking.send({"t": "admit", "keys": [guest.public_key]})
            listening, _ = await dial(guest, attach_message(busy, False), "127.0.0.2")
            quiet = await host(dial, "127.0.0.3")
            other = await host(dial, "127.0.0.4")
            for _ in range(15):  # the busy table carries a message now and then; the others not
                await talking.send({"t": "send", "data": b"hi"})
                await trio.sleep(0.1)
            # Full, no address over-represented: the oldest idle connection makes room.
            newcomer = await host(dial, "127.0.0.5")
            assert await cut(quiet) == ""
            assert all([await alive(link) for link in (talking, listening, other, newcomer)])

    trio.run(main)


def test_a_lobby_message_is_at_most_a_hello() -> None:
    async def main() -> None:
        hub = Hub(HubLimits(lobby_message=512), owner=None)
        async with serving(hub) as (_port, dial):
            owner = Identity.generate()
            table = new_table(owner)
            own, _ = await open_local(hub, owner.public_key, attach_message(table, True))
            waiting, joined = await dial(Identity.generate(), attach_message(table, False))
            assert not joined["admitted"]
            await waiting.send({"t": "send", "to": owner.public_key, "data": b"x" * 600})
            await waiting.send({"t": "send", "to": owner.public_key, "data": b"hello"})
            with trio.fail_after(5):
                message = await own.receive()
            assert message["t"] == "msg" and message["data"] == b"hello"  # the big one: gone
            assert hub.notes.counts["lobby-size"] == 1
            told = await waiting.receive()  # the sender is told, and its link stays
            assert told["t"] == "error" and "at most 512 bytes" in told["reason"], told
            assert await alive(waiting)

    trio.run(main)


def test_the_hosts_own_link_is_never_cut() -> None:
    """Members push more than the host's queue holds at a host that does not read: their
    messages wait at the hub (the others' links are not read meanwhile) instead of the host's
    link being cut; once it reads, every message arrives, in order. A remote member that does
    not read is cut as before."""

    async def main() -> None:
        limits = HubLimits(queue_bytes=1 << 20)
        owner = Identity.generate()
        hub = Hub(limits, owner=owner.public_key)
        async with serving(hub) as (_port, dial):
            table = new_table(owner, seats=3)
            own, _ = await open_local(hub, owner.public_key, attach_message(table, True))
            members = [Identity.generate() for _ in range(2)]
            await own.send({"t": "admit", "keys": [m.public_key for m in members]})
            links = [(await dial(m, attach_message(table, False)))[0] for m in members]
            sent = [0, 0]

            async def push(index: int) -> None:
                for n in range(20):
                    data = bytes([index, n]) * 100_000
                    await links[index].send({"t": "send", "to": owner.public_key, "data": data})
                    sent[index] += 1

            async with trio.open_nursery() as nursery:
                for index in range(2):
                    nursery.start_soon(push, index)
                await trio.sleep(2.0)
                member = hub._own
                assert member is not None and not member.closed
                assert member.queued <= limits.queue_bytes + 200_100, member.queued
                got: list[tuple[int, int]] = []
                with trio.fail_after(20):
                    while len(got) < 40:
                        message = await own.receive()
                        if message["t"] == "msg":
                            got.append((message["data"][0], message["data"][1]))
            assert not member.closed and hub.notes.counts["host-busy"] >= 1
            for index in range(2):
                assert [n for i, n in got if i == index] == list(range(20))
            # A remote member that never reads is cut when its queue is full.
            for _ in range(8):
                await own.send({"t": "send", "to": members[0].public_key, "data": b"y" * 200_000})
            assert await cut(links[0]) == ""

    trio.run(main)
