"""A table on Nostr as a :class:`~dealerless.node.links.Link`: the node above speaks the hub's
small dialect (``send {to?, data}`` out; ``msg {from, data, direct?}`` and ``peer {key, up}``
in) and cannot tell a relay pool from a hub. The pool runs for the node's whole life (relays
reconnect on their own); a link is a view of it that the node opens and closes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import trio

from dealerless.node.identity import Identity
from dealerless.node.links import FatalLinkError, LinkError
from dealerless.node.nostr.outbox import same_key
from dealerless.node.nostr.pool import KIND_CHATTER, KIND_FRAME, Delivery, RelayPool
from dealerless.node.nostr.relay import RelayPolicy
from dealerless.node.nostr.table_crypto import TableKeys
from dealerless.node.notices import Notice, notice
from dealerless.node.wire import WireError, decode

__all__ = ["SERVE_GRACE", "NostrLink", "NostrTable"]

READY_TIMEOUT = 15.0
VERDICT_AFTER = 25.0  # the user hears why no relay carries the table within 30 s
CATCH_UP_KINDS = frozenset({"have", "recs"})
# Stored by the relays (a node that comes later fetches them): chain frames, and the host's
# signed word that the game is over (a joiner with the invite learns the table is finished).
STORED_NODE_KINDS = frozenset({"f", "closed"})
# A count that could not leave within this long is dropped: a stale count makes the peers
# send records again that they already sent (the node says its count again while behind).
HAVE_FRESH = 2.0
# A node on Nostr sends records a seat says it lacks only once it has held them this long: the
# seat's count may have waited HAVE_FRESH in its outbox, and the relay takes its time too.
SERVE_GRACE = HAVE_FRESH + 1.0
Say = Callable[[Notice], None]


class NostrTable:
    """One seat's presence at a table on Nostr: its relay pool and its announcement."""

    def __init__(
        self,
        urls: list[str],
        secret: bytes,
        table_id: bytes,
        identity: Identity,
        host_is: Callable[[bytes], bool],
        *,
        policy: RelayPolicy | None = None,
        say: Say | None = None,
        expiration_days: float = 7.0,
    ) -> None:
        self.host_is = host_is
        self.host_key: bytes | None = identity.public_key if host_is(identity.public_key) else None
        self.pool = RelayPool(
            urls,
            TableKeys(secret, table_id),
            identity,
            table_id,
            policy=policy,
            say=say,
            expiration_days=expiration_days,
            wanted=host_is,  # until the node says whom it wants (``want``)
            hosting=lambda: host_is(identity.public_key),
        )
        self.identity = identity

    def want(self, wanted: Callable[[bytes], bool], hosting: Callable[[], bool]) -> None:
        """The node's say: the identities whose Nostr keys are never forgotten (the host's
        always are), and whether we admit joiners now (the host of the running segment)."""
        self.pool.wanted = lambda key: self.host_is(key) or wanted(key)
        self.pool.hosting = hosting

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        await self.pool.run(task_status=task_status)

    def verdict(self) -> str:
        """Why no relay carries the table ("" while one may): every relay barred, each with
        the relay's own words."""
        if self.pool.carrying():
            return ""
        return self.describe()

    async def watch(
        self, on_no_relay: Callable[[str], None], within: float = VERDICT_AFTER
    ) -> None:
        """Call ``on_no_relay`` with each relay's state once it is clear that none carries
        the table: every relay barred, or none took a single event of ours ``within``
        seconds. Returns quietly once a relay has taken our announcement."""
        deadline = trio.current_time() + within
        while True:
            if self.pool.taken():
                return
            why = self.verdict()
            if why or trio.current_time() >= deadline:
                on_no_relay(why or self.describe())
                return
            await trio.sleep(0.25)

    def close(self) -> None:
        self.pool.close()

    async def open_link(self, timeout: float = READY_TIMEOUT) -> tuple[NostrLink, dict[str, Any]]:
        deadline = trio.current_time() + timeout
        if not await self.pool.wait_ready(timeout):
            raise LinkError(f"no Nostr relay answered within {timeout:.0f} s ({self.describe()})")
        while True:
            if self.verdict():
                raise FatalLinkError(notice("no_relay", states=self.describe()))
            # The host is the announced identity that the invite's pin names.
            self.host_key = self.host_key or next(
                (k for k in self.pool.keys_of if self.host_is(k)), None
            )
            if self.host_key is not None:
                break
            if trio.current_time() >= deadline:
                raise LinkError(
                    f"the relays answer, but the host has not announced itself ({self.describe()})"
                )
            await trio.sleep(0.1)
        members = [self.identity.public_key, *self.pool.keys_of]
        return NostrLink(self), {"t": "joined", "host": self.host_key, "members": members}

    def describe(self) -> str:
        return self.pool.describe()


class NostrLink:
    def __init__(self, table: NostrTable) -> None:
        self.table = table
        self.sent_bytes = 0
        self.closed = False

    async def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            raise LinkError("this Nostr link is closed")
        if message.get("t") != "send":
            return  # open/join: a Nostr table has no hub to tell
        data = message.get("data")
        if not isinstance(data, bytes):
            raise LinkError("a send without data")
        try:
            payload = _node_payload(data)
        except WireError as exc:
            raise LinkError(str(exc)) from None
        message_kind = str(payload.get("t"))
        # A count that answers a seat's nonce is what that seat waits for before it writes
        # again: never replaced by a newer count, never dropped for its age.
        plain_count = message_kind == "have" and "echo" not in payload and "end" not in payload
        to = message.get("to")
        to = to if isinstance(to, bytes) else None
        # Catch-up rides events at its own slow pace, except what a seat waits for before it
        # can go on: an ask with its nonce, and records that echo one (a newcomer fetching the
        # chain it must check within the step timeout, a seat back from a crash); the count at
        # a segment's end, which the next host waits for before it signs (protocol.md P-51).
        if message_kind == "have":
            urgent = "nonce" in payload or payload.get("end") is True
        else:
            urgent = "echo" in payload
        catch_up = message_kind in CATCH_UP_KINDS and not urgent
        self.table.pool.stats[f"published_{message_kind}"] += 1
        # A frame is sent again with every count while it is open: the same bytes, once.
        same = same_key(data, to) if message_kind == "f" else None
        await self.table.pool.publish(
            KIND_FRAME if message_kind in STORED_NODE_KINDS else KIND_CHATTER,
            data,
            to,
            catch_up=catch_up,
            # A newer count makes a queued one for the same peer pointless, and one for
            # every seat makes every queued one pointless: a count that waited is stale, and a
            # stale count makes its peers send records again.
            replace=b"have:" + (to or b"") if plain_count else None,
            fresh_for=HAVE_FRESH if plain_count else math.inf,
            ahead=message.get("ahead") is True,
            same=same,
        )
        self.sent_bytes += len(data)

    async def receive(self) -> dict[str, Any]:
        if self.closed:
            raise LinkError("this Nostr link is closed")
        try:
            item = await self.table.pool.inbox.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise LinkError("the Nostr relays are closed") from None
        if isinstance(item, Delivery):
            out: dict[str, Any] = {"t": "msg", "from": item.sender, "data": item.data}
            if item.direct:
                out["direct"] = True
            return out
        return {"t": "peer", "key": item, "up": True}

    async def aclose(self) -> None:
        self.closed = True
        await trio.lowlevel.checkpoint()


def _node_payload(data: bytes) -> dict[str, Any]:
    """A node message, looking inside a signed one (``have`` travels signed)."""
    message = decode(data)
    if message.get("t") == "sig" and isinstance(message.get("b"), bytes):
        return decode(message["b"])
    return message
