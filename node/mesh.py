"""Direct links between the seats (issue 24): the table's relays introduce the peers, then every
pair of seats that can reach each other talks over a link of its own.

Each seat listens on a TCP port of its own and tells the others where it might be reached (its
*candidates*, in a signed ``cand`` node message over the table's usual ways). For each pair the
seat with the smaller key dials the other's candidates; the link is the secure channel of every
direct link (spec/transport.md), pinned on both ends to the seat's key, so an address a peer
gave can reach nobody else. A link that breaks is dropped and dialled again at the next offer.

:class:`Mesh` owns the listener, the dialling and the links; :class:`MeshLink` is its face for
:class:`~dealerless.node.ways.MultiWay`: a ``send`` goes to one peer or to every linked peer, and
what a peer sends arrives as the hub's ``msg`` with ``from`` set by the link's handshake, never
by what the peer claims. Whether a message may skip the relays is the caller's choice
(:meth:`Mesh.covers`): only when every seat it is for has a direct link.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Callable, Iterable
from typing import Any

import trio

from dealerless.node.identity import Identity
from dealerless.node.links import LinkError
from dealerless.node.notices import Notice, notice
from dealerless.node.punch.candidates import local_addresses as punch_addresses
from dealerless.node.transport import (
    ChannelError,
    HandshakeError,
    SecureChannel,
    TransportConfig,
    accept,
    open_tcp_channel,
)

__all__ = [
    "CANDIDATES_MAX",
    "Candidate",
    "CandidateOffers",
    "Mesh",
    "MeshLink",
    "parse_candidates",
]

Candidate = tuple[str, int]
Say = Callable[[Notice], None]

CANDIDATES_MAX = 8  # addresses a seat may name (a peer dials each: bounded work for a lie)
PEERS_MAX = 16  # links kept at once: the seats of a table (8) and a margin for seat changes
INBOX = 1024  # messages waiting for the node (bounded: a fast peer waits, it is not dropped)
DIAL_TIMEOUT = 3.0  # one candidate: a LAN or punched path answers within this or never
HANDSHAKES_MAX = 8  # incoming handshakes at once (strangers cannot hold the listener)
# A direct link is the fast path, the relays the safe one: a dead link must be noticed soon,
# so that what the table sends goes over the relays again well within one step.
# The listener's first message on a link it took (never a node message: those are msgpack).
LINK_TAKEN = b"dealerless/mesh/v1 link taken"
LINK_CONFIG = TransportConfig(handshake_timeout=5.0, keepalive_interval=2.0, idle_timeout=7.0)


def parse_candidates(value: object) -> list[Candidate]:
    """The candidates a ``cand`` message names: a list of ``[ip, port]`` (IP literals only, so
    that no name is ever looked up for a peer), at most :data:`CANDIDATES_MAX`; ValueError
    names what is wrong."""
    if not isinstance(value, list) or not 1 <= len(value) <= CANDIDATES_MAX:
        raise ValueError(f"candidates must be a list of 1..{CANDIDATES_MAX} addresses")
    out: list[Candidate] = []
    for item in value:
        if not (isinstance(item, list | tuple) and len(item) == 2):
            raise ValueError("a candidate is [address, port]")
        host, port = item
        if not isinstance(host, str) or len(host) > 45:
            raise ValueError("a candidate's address must be an IP address")
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ValueError(f"a candidate's address is not an IP address: {host[:45]!r}") from None
        if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
            raise ValueError("a candidate's port must be 1..65535")
        out.append((host, port))
    return out


class Mesh:
    """This seat's direct links (run :meth:`run` in a nursery for the node's life)."""

    def __init__(
        self,
        identity: Identity,
        *,
        say: Say | None = None,
        addresses: Callable[[], list[str]] | None = None,
        listen_host: str = "0.0.0.0",  # noqa: S104 - reachable from the LAN: that is the point
    ) -> None:
        self.identity = identity
        self.key = identity.public_key
        self.say: Say = say or (lambda _text: None)
        self._addresses = addresses or local_addresses
        self.listen_host = listen_host
        self.port = 0
        self.channels: dict[bytes, SecureChannel] = {}
        self.expected: set[bytes] = set()  # the seats we may link with
        self.offers: dict[bytes, list[Candidate]] = {}
        self._dialling: set[bytes] = set()
        self._handshakes = 0
        self._inbox_send, self.inbox = trio.open_memory_channel[dict[str, Any]](INBOX)
        self.nursery: trio.Nursery | None = None
        self.changed = trio.Event()
        # How this seat's messages went (MultiLink counts): over the direct links alone, over
        # the relays, and over the relays after every seat had a link once (the event log's
        # "ways" report; spec/transport.md §10).
        self.stats = {"direct": 0, "relayed": 0, "relayed_after_links": 0}
        self.all_linked = False

    # ---------------------------------------------------------------- running
    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host=self.listen_host)
        self.port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            self.nursery = nursery
            nursery.start_soon(trio.serve_listeners, self._incoming, listeners)
            task_status.started()

    def candidates(self) -> list[Candidate]:
        """Where the others might reach us: this machine's addresses with our port."""
        if not self.port:
            return []
        return [(address, self.port) for address in self._addresses()][:CANDIDATES_MAX]

    # ---------------------------------------------------------------- the table's seats
    def expect(self, keys: Iterable[bytes]) -> None:
        """The seats now (ours included or not): links to anyone else are closed; those that
        told us their candidates before we knew the seats are dialled now."""
        self.expected = {k for k in keys if k != self.key}
        for key in [k for k in self.channels if k not in self.expected]:
            self._drop(key)
        for key in [k for k in self.offers if k not in self.expected]:
            del self.offers[key]
        for key in list(self.offers):
            self.dial_missing(key)

    def offer(self, key: bytes, candidates: list[Candidate]) -> None:
        """A seat told us its candidates (a seat the caller checked, whose signature held).
        Kept even before we know the seats (its message may come first); we dial it if our
        key is the smaller."""
        if key == self.key:
            return
        if key not in self.offers and len(self.offers) >= PEERS_MAX:
            return  # bounded; the seats of our table are never more
        self.offers[key] = candidates[:CANDIDATES_MAX]
        self.dial_missing(key)

    def dial_missing(self, key: bytes) -> None:
        """Dial ``key`` if we are the one to dial it, know its candidates and have no link."""
        if key not in self.expected or key in self.channels or key in self._dialling:
            return
        if self.key < key and self.nursery is not None:
            self._dialling.add(key)
            self.nursery.start_soon(self._dial, key)

    def covers(self, keys: Iterable[bytes]) -> bool:
        """Every one of ``keys`` (but us) has a direct link now."""
        wanted = [k for k in keys if k != self.key]
        return bool(wanted) and all(k in self.channels for k in wanted)

    # ---------------------------------------------------------------- links
    async def _dial(self, key: bytes) -> None:
        try:
            for host, port in list(self.offers.get(key, [])):
                if key in self.channels or key not in self.expected:
                    return
                try:
                    channel = await open_tcp_channel(
                        host, port, self.identity, key, config=LINK_CONFIG,
                        connect_timeout=DIAL_TIMEOUT,
                    )  # fmt: skip
                except (OSError, HandshakeError, ChannelError):
                    continue  # the next candidate
                if not await _confirmed(channel):
                    # Our half of the handshake ends before the listener has checked our key:
                    # only its word says it took us (a seat it no longer seats refuses).
                    await _close(channel)
                    continue
                self.adopt(key, channel)
                self._dialling.discard(key)
                await self.read(key, channel)
                return
        finally:
            self._dialling.discard(key)

    async def _incoming(self, stream: trio.SocketStream) -> None:
        if self._handshakes >= HANDSHAKES_MAX or len(self.channels) >= PEERS_MAX:
            await stream.aclose()
            return
        self._handshakes += 1
        try:
            # Only a seat whose key is smaller than ours dials us (the smaller dials): the pin
            # refuses anyone else.
            pin = self._may_dial_us
            channel = await accept(stream, self.identity, pin, config=LINK_CONFIG)
        except (OSError, HandshakeError, ChannelError):
            return
        finally:
            self._handshakes -= 1
        key = channel.peer_id.public_key
        try:
            await channel.send(LINK_TAKEN)
        except ChannelError:
            return
        self.adopt(key, channel, "accepted")
        await self.read(key, channel)  # here: serve_listeners closes the stream on return

    def _may_dial_us(self, key: bytes) -> bool:
        return key in self.expected and key < self.key

    def adopt(self, key: bytes, channel: SecureChannel, how: str = "dialled") -> None:
        """A channel to ``key`` (dialled, accepted or punched) becomes its link; the caller
        then runs :meth:`read` for as long as the link lives."""
        old = self.channels.get(key)
        if old is not None:
            self._close_soon(old)  # the newer link wins: the peer restarted, say
        self.channels[key] = channel
        self.say(notice("direct_up", peer=channel.peer_id.fingerprint, how=how))
        self._pulse()

    async def read(self, key: bytes, channel: SecureChannel) -> None:
        try:
            while True:
                data = await channel.receive()
                await self._inbox_send.send({"t": "msg", "from": key, "data": data, "direct": True})
        except (ChannelError, trio.ClosedResourceError, trio.BrokenResourceError):
            pass  # a broken link: the relays carry on, and the next offer dials again
        finally:
            if self.channels.get(key) is channel:
                del self.channels[key]
                self._pulse()
            self._close_soon(channel)

    def _drop(self, key: bytes) -> None:
        channel = self.channels.pop(key, None)
        if channel is not None:
            self._close_soon(channel)
            self._pulse()

    def _close_soon(self, channel: SecureChannel) -> None:
        if self.nursery is not None:
            self.nursery.start_soon(_close, channel)

    def _pulse(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def send(self, data: bytes, to: bytes | None) -> bool:
        """``data`` to ``to`` (or to every linked seat); False if some link failed on the way."""
        targets = [to] if to is not None else list(self.channels)
        ok = True
        for key in targets:
            channel = self.channels.get(key)
            if channel is None:
                ok = False
                continue
            try:
                await channel.send(data)
            except (ChannelError, trio.ClosedResourceError, trio.BrokenResourceError):
                ok = False
                if self.channels.get(key) is channel:
                    self._drop(key)
        return ok


async def _confirmed(channel: SecureChannel) -> bool:
    """The listener's first message says it took the link (a bounded wait)."""
    with trio.move_on_after(DIAL_TIMEOUT):
        try:
            return await channel.receive() == LINK_TAKEN
        except ChannelError:
            return False
    return False


async def _close(channel: SecureChannel) -> None:
    with trio.move_on_after(2), trio.CancelScope(shield=True):
        await channel.aclose()


class MeshLink:
    """The mesh as one of a table's ways (a :class:`~dealerless.node.links.Link`)."""

    def __init__(self, mesh: Mesh) -> None:
        self.mesh = mesh
        self.sent_bytes = 0

    async def send(self, message: dict[str, Any]) -> None:
        if message.get("t") != "send":
            return  # the hub's own dialect (admit, open): no hub on a direct link
        data, to = message.get("data"), message.get("to")
        if not isinstance(data, bytes):
            return
        await self.mesh.send(data, to if isinstance(to, bytes) else None)
        self.sent_bytes += len(data)

    async def receive(self) -> dict[str, Any]:
        try:
            return await self.mesh.inbox.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise LinkError("the direct links are closed") from None

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()  # the mesh lives as long as the node


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses a peer might reach (the listener is IPv4; node/punch
    finds them), then loopback (a seat on the same machine)."""
    return [*punch_addresses()[0], "127.0.0.1"]


RESEND_S = 5.0  # at most this often our candidates again, for a seat we have no link with
REDIAL_S = 10.0  # a broken link's seat is dialled again this often


class CandidateOffers:
    """When a seat tells the others where it might be reached: once the table's seats are known
    (and again when they change), and in answer to a seat it has no link with (a peer that
    restarted has lost ours), at most every :data:`RESEND_S`. Returns the ``cand`` payload to
    sign and send, or None; the node sends it."""

    def __init__(self, mesh: Mesh) -> None:
        self.mesh = mesh
        self.seats: frozenset[bytes] = frozenset()
        self.sent_at = -math.inf
        self.redial_at = -math.inf

    def table(self, seats: frozenset[bytes], now: float) -> dict[str, Any] | None:
        """Every tick of a seated node: the seats now. A link that broke is dialled again
        every :data:`REDIAL_S` (a path that came back; a dead one costs one short dial)."""
        if seats == self.seats:
            if now - self.redial_at >= REDIAL_S:
                self.redial_at = now
                for key in seats:
                    self.mesh.dial_missing(key)
            return None
        self.redial_at = now
        self.seats = seats
        self.mesh.expect(seats)
        return self._ours(now) if self.mesh.key in seats else None

    def heard(self, sender: bytes, payload: dict[str, Any], now: float) -> dict[str, Any] | None:
        """A seat's signed ``cand`` (ValueError: its candidates are malformed)."""
        candidates = parse_candidates(payload.get("c"))
        self.mesh.offer(sender, candidates)
        if sender in self.mesh.channels or now - self.sent_at < RESEND_S:
            return None
        return self._ours(now) if self.mesh.key in self.seats else None

    def _ours(self, now: float) -> dict[str, Any] | None:
        candidates = self.mesh.candidates()
        if not candidates:
            return None
        self.sent_at = now
        return {"t": "cand", "c": [[host, port] for host, port in candidates]}
