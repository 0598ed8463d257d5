"""Hole punching for the seats' direct links (issue 24): a pair that the mesh could not dial
(both behind home routers) agrees over the relays when to dial, and punches (node/punch).

For each pair the seat with the smaller key starts, once the seats are known and no direct
link came up within :data:`GRACE_S`: it gathers candidates for a fresh local port (its LAN and
IPv6 addresses, the public mapping the STUN servers report), swaps them with the peer in
``punch`` node messages (the rendezvous of node/punch: candidates, then the start time from the
measured round trip) and both dial at once. The peer's side starts at its first ``punch``
message. A punched channel joins the mesh like a dialled one; a pair that fails (a symmetric
NAT, say) stays on the relays and is tried again after :data:`RETRY_S`.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable

import trio

from dealerless.node.identity import Identity
from dealerless.node.mesh import LINK_CONFIG, Mesh
from dealerless.node.notices import Notice
from dealerless.node.punch import Gathered, gather_candidates, pick_port, punch, rendezvous

__all__ = ["Punches"]

GRACE_S = 4.0  # the mesh's own dial (a LAN, a public address) gets this long first
RETRY_S = 60.0  # a pair whose punch failed is tried again this much later
INBOX = 16  # rendezvous messages waiting per peer (two are needed; a flood is dropped)

Send = Callable[[bytes, bytes], None]  # (peer key, rendezvous message): the node sends it


class Punches:
    """The punches of this seat's pairs (runs in the mesh's nursery)."""

    def __init__(
        self,
        mesh: Mesh,
        identity: Identity,
        table_id: bytes,
        send: Send,
        *,
        stun_servers: list[tuple[str, int]],
        say: Callable[[Notice], None] | None = None,
    ) -> None:
        self.mesh, self.identity, self.table_id = mesh, identity, table_id
        self.send, self.stun_servers = send, stun_servers
        self.say = say or (lambda _text: None)
        self.key = identity.public_key
        self.inboxes: dict[bytes, trio.MemorySendChannel[bytes]] = {}
        self.tried_at: dict[bytes, float] = {}
        self.seated_at = math.inf

    def tick(self, seats: frozenset[bytes], now: float) -> None:
        """Start the punches we lead: our key is the smaller, no link, none running."""
        if self.key not in seats:
            self.seated_at = math.inf
            return
        self.seated_at = min(self.seated_at, now)
        if now - self.seated_at < GRACE_S:
            return
        for peer in seats:
            if self.key < peer and self._due(peer, now):
                self._start(peer, now)

    def heard(self, sender: bytes, data: bytes, now: float) -> None:
        """A seat's rendezvous message (the caller checked that it is a seat and that the node
        message's signature holds; node/punch checks the inner one)."""
        inbox = self.inboxes.get(sender)
        if inbox is None and sender < self.key and self._due(sender, now, answering=True):
            inbox = self._start(sender, now)
        if inbox is not None:
            with contextlib.suppress(trio.WouldBlock):  # more than a rendezvous needs: dropped
                inbox.send_nowait(data)

    def _due(self, peer: bytes, now: float, *, answering: bool = False) -> bool:
        if peer == self.key or peer in self.mesh.channels or peer in self.inboxes:
            return False
        if self.mesh.nursery is None:
            return False
        # The side that answers follows the leader's pace; the leader waits RETRY_S.
        return answering or now - self.tried_at.get(peer, -math.inf) >= RETRY_S

    def _start(self, peer: bytes, now: float) -> trio.MemorySendChannel[bytes]:
        send, receive = trio.open_memory_channel[bytes](INBOX)
        self.inboxes[peer] = send
        self.tried_at[peer] = now
        assert self.mesh.nursery is not None
        self.mesh.nursery.start_soon(self._pair, peer, receive)
        return send

    async def _pair(self, peer: bytes, inbox: trio.MemoryReceiveChannel[bytes]) -> None:
        gathered: Gathered | None = None
        try:
            port = pick_port()
            gathered = await gather_candidates(port, self.stun_servers)
            if not gathered.candidates:
                return

            async def send(data: bytes) -> None:
                self.send(peer, data)
                await trio.lowlevel.checkpoint()

            agreed = await rendezvous(
                self.identity, peer, gathered.candidates, send, inbox.receive,
                table_id=self.table_id,
            )  # fmt: skip
            if agreed is None:
                return
            theirs, start_at = agreed
            # the mesh's keepalive, not the punch's default: a dead path must be noticed
            # within a step (the keepalives also keep the routers' mappings fresh)
            channel = await punch(
                self.identity, peer, gathered.candidates, theirs, start_at, local_port=port,
                table_id=self.table_id, config=LINK_CONFIG,
            )  # fmt: skip
            if channel is None or peer in self.mesh.channels or peer not in self.mesh.expected:
                if channel is not None:
                    await channel.aclose()
                return
            self.mesh.adopt(peer, channel, how="punched")
            await self.mesh.read(peer, channel)
        finally:
            self.inboxes.pop(peer, None)
            if gathered is not None:  # the router's port mapping: when the link ends, or we do
                await gathered.release()
