"""The direct links of a seat's node: our candidates for direct links, told to the seats when
they are known (node/mesh.py), and the punches of the pairs behind home routers
(node/mesh_punch.py). A part of :class:`~dealerless.node.seat.SeatNode`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from dealerless.node.identity import Identity
from dealerless.node.mesh import CandidateOffers, Mesh
from dealerless.node.mesh_punch import Punches
from dealerless.node.notices import Notice, Who, notice
from dealerless.node.options import NodeOptions
from dealerless.node.stun_servers import DEFAULT_STUN_SERVERS, parse_stun_servers

PUNCH_MESSAGE = 2048  # bytes of a rendezvous message (node/punch bounds its own at 1,024)


class DirectNode(Protocol):
    """What the direct links use of their node."""

    say: Callable[[Notice], None]

    def now(self) -> float: ...

    def who(self, key: bytes) -> Who: ...

    def queue_signed(self, payload: dict[str, Any], to: bytes | None = None) -> None: ...


class DirectLinks:
    """It owns our candidate offers and the punches (both None without a mesh)."""

    def __init__(
        self,
        node: DirectNode,
        mesh: Mesh | None,
        *,
        identity: Identity,
        table_id: bytes,
        opt: NodeOptions,
        say: Callable[[Notice], None],
    ) -> None:
        self.node = node
        self.offers = CandidateOffers(mesh) if mesh is not None else None
        self.punches: Punches | None = None
        if mesh is not None and opt.punch:
            servers = parse_stun_servers(opt.stun_servers or DEFAULT_STUN_SERVERS)
            self.punches = Punches(
                mesh, identity, table_id, self._send_punch, stun_servers=servers, say=say
            )

    def tick(self, seats: frozenset[bytes], now: float) -> None:
        """The seats are known: tell them our candidates, punch where a pair needs it."""
        if self.offers is not None:
            self._offer(self.offers.table(seats, now))
        if self.punches is not None:
            self.punches.tick(seats, now)

    def _offer(self, payload: dict[str, Any] | None) -> None:
        if payload is not None:
            self.node.queue_signed(payload)

    def _send_punch(self, peer: bytes, data: bytes) -> None:
        self.node.queue_signed({"t": "punch", "d": data}, to=peer)

    def on_punch(self, sender: bytes, payload: dict[str, Any]) -> None:
        """A seat's rendezvous message for a punch (node/punch opens and checks it)."""
        data = payload.get("d")
        if self.punches is not None and isinstance(data, bytes) and len(data) <= PUNCH_MESSAGE:
            self.punches.heard(sender, data, self.node.now())

    def on_candidates(self, sender: bytes, payload: dict[str, Any]) -> None:
        """A seat's signed candidates for a direct link (node/mesh.py)."""
        if self.offers is None:
            return
        try:
            self._offer(self.offers.heard(sender, payload, self.node.now()))
        except ValueError as exc:
            self.node.say(notice("direct_refused", who=self.node.who(sender), reason=str(exc)))
