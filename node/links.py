"""A seat's link to its hub: over TCP and the secure channel, or in-process to the host's hub."""

from __future__ import annotations

from typing import Any, Protocol

import trio

from dealerless.node.hub import Hub, Member
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.notices import Notice, english, notice, text_notice
from dealerless.node.transport import (
    ChannelError,
    HandshakeError,
    PeerIdentityMismatch,
    PeerPin,
    SecureChannel,
    TransportConfig,
    open_tcp_channel,
)
from dealerless.node.wire import WireError, decode, encode

__all__ = [
    "FatalLinkError",
    "Link",
    "LinkError",
    "LocalLink",
    "RemoteLink",
    "attach_message",
    "open_local",
    "open_remote",
]

JOIN_TIMEOUT = 10.0


class LinkError(Exception):
    """The link could not be opened or broke; the message is for the user: a notice, or text
    (said as a ``text`` notice). ``str()`` is its English."""

    def __init__(self, what: str | Notice) -> None:
        self.notice = what if isinstance(what, Notice) else text_notice(what)
        super().__init__(english(self.notice))


class FatalLinkError(LinkError):
    """Retrying cannot help (the peer is not who the invite says)."""


class Link(Protocol):
    sent_bytes: int

    async def send(self, message: dict[str, Any]) -> None: ...

    async def receive(self) -> dict[str, Any]: ...

    async def aclose(self) -> None: ...


class RemoteLink:
    def __init__(self, channel: SecureChannel) -> None:
        self.channel = channel
        self.sent_bytes = 0

    async def send(self, message: dict[str, Any]) -> None:
        data = encode(message)
        try:
            await self.channel.send(data)
        except ChannelError as exc:
            raise LinkError(str(exc)) from None
        self.sent_bytes += len(data)

    async def receive(self) -> dict[str, Any]:
        try:
            data = await self.channel.receive()
            return decode(data)
        except (ChannelError, WireError) as exc:
            raise LinkError(str(exc)) from None

    async def aclose(self) -> None:
        await self.channel.aclose()


class LocalLink:
    """The host's own seat, attached to the hub in the same process."""

    def __init__(self, hub: Hub, member: Member, inbox: trio.MemoryReceiveChannel[bytes]) -> None:
        self.hub, self.member, self.inbox = hub, member, inbox
        self.sent_bytes = 0

    async def send(self, message: dict[str, Any]) -> None:
        if self.member.closed:
            raise LinkError("the local hub closed this link")
        self.sent_bytes += len(encode(message))  # as over a link to a relay: once
        self.hub.handle(self.member, message)
        await trio.lowlevel.checkpoint()

    async def receive(self) -> dict[str, Any]:
        try:
            data = await self.inbox.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise LinkError("the local hub closed this link") from None
        self.member.sent(data)  # its queue is bounded in bytes: what we took is room again
        # Let the hub's writers send what they were just given before this seat spends CPU
        # time verifying it: the host must not delay the other peers' copies.
        await trio.lowlevel.checkpoint()
        return decode(data)

    async def aclose(self) -> None:
        self.hub.detach(self.member)


async def _joined(link: Link) -> dict[str, Any]:
    with trio.move_on_after(JOIN_TIMEOUT):
        reply = await link.receive()
        if reply["t"] == "joined":
            return reply
        if reply["t"] == "error":
            raise LinkError(f"the hub refused: {reply.get('reason')}")
        raise LinkError(f"unexpected reply {reply['t']!r} from the hub")
    raise LinkError(f"the hub did not answer within {JOIN_TIMEOUT} s")


def attach_message(invite: Invite, host: bool) -> dict[str, Any]:
    """What a seat sends first: the host opens its table (with what the id is derived from,
    so that the hub binds it to the host's key), a joiner asks to join it."""
    if not host:
        return {"t": "join", "table": invite.table_id}
    return {
        "t": "open",
        "table": invite.table_id,
        "seats": invite.seats,
        "salt": invite.salt,
        "terms": invite.terms,
    }


async def open_local(hub: Hub, key: bytes, hello: dict[str, Any]) -> tuple[Link, dict[str, Any]]:
    member, inbox = hub.new_member(key, own=True)  # never cut: the others wait for it
    link = LocalLink(hub, member, inbox)
    await link.send(hello)
    return link, await _joined(link)


def link_config(keepalive: float = 5.0, idle: float = 20.0) -> TransportConfig:
    return TransportConfig(keepalive_interval=keepalive, idle_timeout=idle)


async def open_remote(
    address: str,
    port: int,
    identity: Identity,
    pin: PeerPin | None,
    hello: dict[str, Any],
    *,
    config: TransportConfig | None = None,
) -> tuple[Link, dict[str, Any]]:
    """Connect, authenticate (pinning the hub's key when known) and open/join the table."""
    try:
        channel = await open_tcp_channel(
            address, port, identity, pin, config=config or link_config(), connect_timeout=10.0
        )
    except PeerIdentityMismatch as exc:
        raise FatalLinkError(
            notice("not_invited_peer", address=f"{address}:{port}", error=str(exc))
        ) from None
    except (OSError, HandshakeError, ChannelError) as exc:
        raise LinkError(f"cannot connect to {address}:{port}: {exc}") from None
    link = RemoteLink(channel)
    try:
        await link.send(hello)
        return link, await _joined(link)
    except BaseException:
        await link.aclose()
        raise
