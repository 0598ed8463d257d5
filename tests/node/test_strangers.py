"""Only invited players sit down (real processes and sockets): a stranger or a relay that knows
the table id and the host's key cannot open the table first, cannot listen, cannot take a seat
with a missing, forged or replayed token proof; a host's hub serves only its own table; a
joiner to a full table gets a signed refusal and stops."""

from __future__ import annotations

import os
import secrets
import signal
from collections.abc import Callable
from typing import Any

import trio
from node_cluster import Cluster

from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.links import Link, LinkError, attach_message, open_remote
from dealerless.node.wire import decode, encode, seal, unseal, verify_sealed


class Stranger:
    """A client that knows what a relay operator knows: the table id and the host's key."""

    def __init__(self, invite: Invite, host_key: bytes) -> None:
        self.identity = Identity.generate()
        self.invite, self.host_key = invite, host_key
        self.heard: list[dict[str, Any]] = []
        self.link: Link | None = None

    async def connect(self, address: str, port: int, message: dict[str, Any]) -> dict[str, Any]:
        self.link, joined = await open_remote(address, port, self.identity, None, message)
        return joined

    async def hello(self, proof: bytes) -> None:
        assert self.link is not None
        payload = {"t": "hello", "name": "Alice", "proof": proof}
        data = seal(self.identity, self.invite.table_id, payload)
        await self.link.send({"t": "send", "to": self.host_key, "data": encode(data)})

    async def listen(self, seconds: float) -> None:
        assert self.link is not None
        with trio.move_on_after(seconds):
            while True:
                try:
                    self.heard.append(await self.link.receive())
                except LinkError:
                    return

    def refusals(self) -> list[str]:
        """The reasons of the host's refusals, each one's signature checked."""
        out = []
        for message in self.heard:
            if message["t"] != "msg":
                continue
            payload, body, signature = unseal(decode(message["data"]))
            assert message["from"] == self.host_key
            assert verify_sealed(self.host_key, self.invite.table_id, body, signature)
            assert payload["t"] == "refused"
            out.append(payload["reason"])
        return out


def _host_key(cluster: Cluster) -> bytes:
    return bytes.fromhex(cluster.store(0).load_meta().host_key)


def _finish(cluster: Cluster, seats: int) -> None:
    codes = cluster.wait([f"seat{s}" for s in range(seats)], 240)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tail()}"
    cluster.check_identical(list(range(seats)))


def _run(body: Callable[[], Any]) -> None:
    trio.run(body)


def test_a_relay_or_stranger_cannot_open_listen_or_sit(cluster: Cluster) -> None:
    port = cluster.relay()
    cluster.host("tuppen", 2, [], relay=port)
    assert cluster.invite is not None
    invite, host_key = cluster.invite, _host_key(cluster)
    honest = Identity.generate()

    async def main() -> None:
        # Opening the table id first (or again) needs the host's key: the id is bound to it.
        squatter = Stranger(invite, host_key)
        try:
            await squatter.connect("127.0.0.1", port, attach_message(invite, True))
            raise AssertionError("a stranger opened the host's table id")
        except LinkError as exc:
            assert "not bound to your key" in str(exc)
        # Joining without the token: it waits, hears nothing, and every hello is refused.
        forged = Stranger(invite, host_key)
        joined = await forged.connect("127.0.0.1", port, attach_message(invite, False))
        assert joined["admitted"] is False and joined["members"] == []
        assert joined["host"] == host_key
        await forged.hello(secrets.token_bytes(32))  # a guessed proof
        # A proof seen on the wire (made by an honest joiner for its own key) replayed.
        replayed = Stranger(invite, host_key)
        await replayed.connect("127.0.0.1", port, attach_message(invite, False))
        await replayed.hello(invite.proof(honest.public_key, host_key))
        # A proof made with the right table and host but a wrong token.
        wrong = Stranger(invite, host_key)
        await wrong.connect("127.0.0.1", port, attach_message(invite, False))
        other = Invite.create(host_key, invite.game_config(), invite.step_timeout_ms)
        await wrong.hello(other.proof(wrong.identity.public_key, host_key))
        async with trio.open_nursery() as nursery:
            for stranger in (forged, replayed, wrong):
                nursery.start_soon(stranger.listen, 25.0)
            await trio.to_thread.run_sync(cluster.join, 1)
            await trio.to_thread.run_sync(_finish, cluster, 2)
            nursery.cancel_scope.cancel()
        for stranger in (forged, replayed, wrong):
            assert stranger.refusals() == ["no valid proof of the invite's token"]
            kinds = {m["t"] for m in stranger.heard}
            assert kinds <= {"msg"}, kinds  # no peer list, no broadcast frame, no lobby

    _run(main)
    config, _ = cluster.transcript(0)
    assert [s.name for s in config.seats] == ["seat0", "seat1"]


def test_the_hosts_hub_serves_only_its_table(cluster: Cluster) -> None:
    cluster.host("tuppen", 2, [])
    assert cluster.invite is not None
    invite, host_key = cluster.invite, _host_key(cluster)
    address, port = invite.direct[0]

    async def main() -> None:
        stranger = Stranger(invite, host_key)
        own = Invite.create(stranger.identity.public_key, invite.game_config(), 60_000)
        try:
            await stranger.connect(address, port, attach_message(own, True))
            raise AssertionError("a stranger opened a table on the host's hub")
        except LinkError as exc:
            assert "only the host opens tables" in str(exc)
        # Sitting down first without the token does not take the seat of the invited joiner.
        early = Stranger(invite, host_key)
        await early.connect(address, port, attach_message(invite, False))
        await early.hello(b"\x00" * 32)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(early.listen, 25.0)
            await trio.to_thread.run_sync(cluster.join, 1)
            await trio.to_thread.run_sync(_finish, cluster, 2)
            nursery.cancel_scope.cancel()
        assert early.refusals() == ["no valid proof of the invite's token"]

    _run(main)


def test_a_joiner_to_a_full_table_is_refused_and_stops(cluster: Cluster) -> None:
    cluster.host("tuppen", 2, [], linger=3.0)
    cluster.join(1, linger=3.0)
    cluster.homes.append(cluster.root / "seat2")
    cluster.wait_for_config(0)
    # Seat 1 pauses (a slow peer: the table waits at its step), so the game is surely still
    # running when the third joiner says hello; on a loaded machine the bots' game could end
    # first, and a finished table refuses for that reason instead (CI, 2026-12-05).
    seat1 = cluster.procs["seat1"].pid
    os.kill(seat1, signal.SIGSTOP)
    try:
        cluster.join(2)
        codes = cluster.wait(["seat2"], 60)
    finally:
        os.kill(seat1, signal.SIGCONT)
    assert codes["seat2"] == 1
    log = cluster.logs["seat2#0"].read_text()
    assert "the host refused us: the table is full" in log, log
    _finish(cluster, 2)
