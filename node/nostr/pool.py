"""All relays of one table: publish every message to each of them, take each event once from
whichever relay brings it first, and check it in order of cost: shape and tag, then the table
key (a stranger's event fails here, before any curve work), then the event id and Schnorr
signature, then the author's announcement (which binds its Nostr key to a seat identity)."""

from __future__ import annotations

import collections
import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgpack
import trio

from dealerless.node.identity import Identity, PeerId
from dealerless.node.nostr.event import EventError, NostrEvent, NostrKey, parse_event, verify_event
from dealerless.node.nostr.fragments import FragmentError, Reassembler, cut
from dealerless.node.nostr.gates import expiration_tag, mine
from dealerless.node.nostr.outbox import (
    AHEAD,
    CATCH_UP,
    TABLE,
    BatchError,
    Entry,
    decode_batch,
)
from dealerless.node.nostr.relay import Filters, RelayConnection, RelayPolicy
from dealerless.node.nostr.table_crypto import MAX_BUCKET, SealError, TableKeys, content_length
from dealerless.node.notices import Notice
from dealerless.protocol.crypto.group import N as SECP256K1_ORDER

__all__ = [
    "KIND_ANNOUNCE",
    "KIND_CHATTER",
    "KIND_FRAME",
    "Delivery",
    "RelayPool",
]

KIND_FRAME = 4318  # regular (stored): chain frames, fetched again by a node that comes back
KIND_ANNOUNCE = 4319  # regular (stored): a seat's Nostr key, bound to its identity key
KIND_CHATTER = 24318  # ephemeral: catch-up, lobby, hello, configuration, chat
KINDS = (KIND_FRAME, KIND_ANNOUNCE, KIND_CHATTER)
ANNOUNCE_LABEL = b"dealerless/nostr/announce"
KEY_LABEL = b"dealerless/nostr/key"
# Identities bound to Nostr keys, beside the ones we want (the host, the seats, the lobby),
# which are never evicted: a flood of fresh identities pushes out only the longest idle of
# its own kind, and costs its author a signature each.
MAX_BINDINGS = 1024
STORED_ANNOUNCEMENTS = 64  # newest announcements asked of a relay
# The host announces itself again (at most this often) when a new identity announces: stored
# announcements can be pushed out of a joiner's view by a flood, events that arrive live cannot.
REANNOUNCE_EVERY = 2.0
KEYS_PER_IDENTITY = 4
MAX_HELD = 256  # events from a key whose announcement has not arrived yet ...
HELD_PER_KEY = 16  # ... and from one such key
HISTORY_SLACK = 120  # seconds of stored events asked again after a reconnect
STORED_KINDS = (KIND_FRAME, KIND_ANNOUNCE)
EXPIRATION_DAYS = 7.0  # NIP-40: stored frames leave other people's relays after this
DONE_ENTRIES = 100_000
# Seconds between events that carry catch-up, per relay. The frames a seat lacks are stored
# on the relays and reach its subscription by themselves; asking the peers (``have``, ``recs``)
# is for what a relay lost, so it need not cost an event every time a step is slow.
CATCH_UP_EVERY = 3.0
CATCH_UP_THROTTLED = 15.0  # on a relay that throttles us
Say = Callable[[Notice], None]


@dataclass(frozen=True)
class Delivery:
    """A message from a seat: its identity key, the node message bytes, sent to us alone?"""

    sender: bytes
    data: bytes
    direct: bool


def announce_statement(table_id: bytes, nostr_pubkey: bytes) -> bytes:
    return ANNOUNCE_LABEL + table_id + nostr_pubkey


def table_nostr_key(identity: Identity, table_id: bytes) -> NostrKey:
    """This identity's Nostr key at this table: the same after every restart (so a restart
    binds no new key at the peers) and unlinkable to its keys at other tables. Ed25519
    signatures are deterministic, so only the identity's holder can derive it."""
    seed = hashlib.sha256(identity.sign(KEY_LABEL + table_id)).digest()
    return NostrKey((int.from_bytes(seed, "big") % (SECP256K1_ORDER - 1) + 1).to_bytes(32, "big"))


class RelayPool:
    def __init__(
        self,
        urls: list[str],
        keys: TableKeys,
        identity: Identity,
        table_id: bytes,
        *,
        policy: RelayPolicy | None = None,
        say: Say | None = None,
        inbox_size: int = 1024,
        expiration_days: float = EXPIRATION_DAYS,
        wanted: Callable[[bytes], bool] = lambda _identity: False,
        hosting: Callable[[], bool] = lambda: False,
    ) -> None:
        if not urls:
            raise ValueError("a Nostr table needs at least one relay")
        self.keys, self.identity, self.table_id = keys, identity, table_id
        self.nkey = table_nostr_key(identity, table_id)
        self.wanted = wanted  # identities whose bindings are never evicted
        self.hosting = hosting  # do we admit joiners (then we announce again for newcomers)?
        self.reannounce = trio.Event()
        self.reannounced = -math.inf
        self.say: Say = say or (lambda _t: None)
        self.tags: tuple[tuple[str, ...], ...] = (("t", keys.tag),)
        self.expiration_days = expiration_days
        self.relays = [
            RelayConnection(
                url, self._filters, self._on_event, self._seal, self.nkey, policy=policy, say=say
            )
            for url in dict.fromkeys(urls)
        ]
        for relay in self.relays:
            relay.catch_up_allowed = self._catch_up_allowed
        self.max_incoming_content = content_length(MAX_BUCKET)
        self.seen: collections.OrderedDict[str, None] = collections.OrderedDict()
        self.bindings: dict[str, bytes] = {}  # Nostr pubkey hex -> identity key
        # identity -> its newest Nostr keys, least recently active first
        self.keys_of: collections.OrderedDict[bytes, collections.deque[str]] = (
            collections.OrderedDict()
        )
        self.held: collections.OrderedDict[str, tuple[NostrEvent, bytes]] = (
            collections.OrderedDict()
        )
        self.held_per_key = collections.Counter[str]()
        self.reassembler = Reassembler()
        self.done_entries: collections.OrderedDict[tuple[str, bytes], None] = (
            collections.OrderedDict()
        )
        self.stats = collections.Counter[str]()
        self.inbox_send, self.inbox = trio.open_memory_channel[Delivery | bytes](inbox_size)
        body = msgpack.packb(
            {
                "a": identity.public_key,
                "s": identity.sign(announce_statement(table_id, self.nkey.public)),
            },
            use_bin_type=True,
        )
        for relay in self.relays:
            relay.first = (KIND_ANNOUNCE, body)

    # ---------------------------------------------------------------- running
    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            for relay in self.relays:
                nursery.start_soon(relay.run)
            nursery.start_soon(self._reannouncer)
            task_status.started()

    async def _reannouncer(self) -> None:
        while True:
            await self.reannounce.wait()
            self.reannounce = trio.Event()
            await trio.sleep_until(self.reannounced + REANNOUNCE_EVERY)
            self.reannounced = trio.current_time()
            self.stats["reannounced"] += 1
            for relay in self.relays:
                relay.announce_again()

    def close(self) -> None:
        for relay in self.relays:
            relay.close()

    def _filters(self, newest: int | None) -> Filters:
        frames: dict[str, Any] = {"kinds": [KIND_FRAME], "#t": [self.keys.tag]}
        if newest is None:
            frames["limit"] = self.relays[0].policy.history
        else:
            frames["since"] = max(0, newest - HISTORY_SLACK)
        return [
            {"kinds": [KIND_ANNOUNCE], "#t": [self.keys.tag], "limit": STORED_ANNOUNCEMENTS},
            frames,
            {"kinds": [KIND_CHATTER], "#t": [self.keys.tag]},
        ]

    def _seal(self, kind: int, body: bytes, max_content: int, work: int) -> list[NostrEvent]:
        """``body`` as signed events of ``kind`` for one relay: cut to its size, stored kinds
        with a NIP-40 expiration, each mined to its proof-of-work difficulty."""
        tags = self.tags
        if kind in STORED_KINDS and self.expiration_days > 0:
            tags = (*tags, expiration_tag(self.expiration_days))
        return [
            mine(self.nkey, kind, tags, self.keys.seal(plain, self.nkey.pubkey, kind, bucket), work)
            for plain, bucket in cut(body, max_content)
        ]

    def _catch_up_allowed(self, relay: RelayConnection) -> bool:
        """Catch-up rides an event at most every CATCH_UP_EVERY seconds per relay. A relay
        that keeps throttling us while another carries the table gets only the table's own
        messages (catch-up goes where there is room); the only relay, throttling, gets catch-up
        at most every CATCH_UP_THROTTLED seconds: under a rate limit the frames a peer waits
        for are late, not lost, and answering every "where is it?" would spend the budget
        that brings them."""
        since = trio.current_time() - relay.last_catch_up
        if not relay.throttled:
            return since >= CATCH_UP_EVERY
        if any(
            r is not relay and not r.throttled and not r.barred and r.subscribed.is_set()
            for r in self.relays
        ):
            return False
        return since >= CATCH_UP_THROTTLED

    def carrying(self) -> list[RelayConnection]:
        return [r for r in self.relays if not r.barred]

    def report(self) -> dict[str, Any]:
        """What this seat wrote and how each relay answered (for the bench and bug reports)."""
        return {
            "published": dict(self.stats),
            "relays": [
                {"url": r.url, "state": r.state(), "rate": round(r.pace.rate, 4), **r.stats}
                for r in self.relays
            ],
        }

    def taken(self) -> bool:
        """True once a relay that carries the table accepted an event of ours."""
        return any(r.stats["ok"] and not r.barred for r in self.relays)

    async def wait_ready(self, timeout: float) -> bool:
        """True once a relay has answered our subscription (stored events delivered)."""
        # Polled: waiting on the relays' change events could miss one that fired between
        # the check and the wait (seen: a host whose link never opened).
        with trio.move_on_after(timeout):
            while not any(r.subscribed.is_set() for r in self.relays):
                await trio.sleep(0.05)
            return True
        return False

    def describe(self) -> str:
        return "; ".join(f"{relay.url}: {relay.state()}" for relay in self.relays)

    # ---------------------------------------------------------------- publishing
    async def publish(
        self,
        kind: int,
        data: bytes,
        to: bytes | None = None,
        *,
        catch_up: bool = False,
        replace: bytes | None = None,
        fresh_for: float = math.inf,
        ahead: bool = False,
        same: bytes | None = None,
    ) -> None:
        """One node message to every relay that carries the table (each relay batches what
        waits for it); waits while every relay is too far behind (back-pressure). ``ahead``:
        a frame of the next hand's prepared setup (after the running hand's, before
        catch-up); ``same``: the message's digest, for one that may be sent again."""
        expires = trio.current_time() + fresh_for
        priority = CATCH_UP if catch_up else AHEAD if ahead else TABLE
        entry = Entry(kind, data, to, priority, replace, expires, same=same)
        while True:
            taken = [r.publish(entry) for r in self.relays]
            if any(taken) or not self.carrying():
                self.stats["published"] += 1
                self.stats["published_catch_up" if catch_up else "published_table"] += 1
                return
            await trio.sleep(0.05)

    # ---------------------------------------------------------------- receiving
    async def _on_event(self, relay: RelayConnection, raw: object) -> None:
        try:
            event = parse_event(raw, self.max_incoming_content)
        except EventError:
            self.stats["drop_shape"] += 1
            return
        if event.kind not in KINDS or event.tag_values("t") != [self.keys.tag]:
            self.stats["drop_tag"] += 1
            return
        if event.pubkey == self.nkey.pubkey:
            relay.echoes += 1  # a relay that never brings ours back is dropping them
            return
        if event.kind == KIND_CHATTER and not relay.subscribed.is_set():
            # Chatter is ephemeral, but some relays keep it a while: what comes before the end
            # of the stored events is old news.
            self.stats["drop_stale"] += 1
            return
        if event.id in self.seen:
            self.stats["duplicate"] += 1
            return
        try:
            plain = self.keys.open(event.content, event.pubkey, event.kind)
        except SealError:
            self.stats["drop_stranger"] += 1  # no curve work spent on it
            return
        if event.kind != KIND_ANNOUNCE and event.pubkey not in self.bindings:
            self._hold(event, plain)
            return
        await self._verified(relay, event, plain)

    def _hold(self, event: NostrEvent, plain: bytes) -> None:
        """Keep an event until its author's announcement arrives, at most HELD_PER_KEY per
        author: when the buffer is full the author holding most gives way (one author's
        events can only push out its own)."""
        if self.held_per_key[event.pubkey] >= HELD_PER_KEY:
            self.stats["drop_held"] += 1
            return
        if len(self.held) >= MAX_HELD:
            greedy = max(self.held_per_key, key=lambda k: self.held_per_key[k])
            doomed = next(i for i, (e, _) in self.held.items() if e.pubkey == greedy)
            self._unhold(doomed)
            self.stats["drop_held"] += 1
        self.held[event.id] = (event, plain)
        self.held_per_key[event.pubkey] += 1

    def _unhold(self, event_id: str) -> tuple[NostrEvent, bytes]:
        event, plain = self.held.pop(event_id)
        self.held_per_key[event.pubkey] -= 1
        if not self.held_per_key[event.pubkey]:
            del self.held_per_key[event.pubkey]
        return event, plain

    async def _verified(self, relay: RelayConnection, event: NostrEvent, plain: bytes) -> None:
        try:
            verify_event(event)
        except EventError:
            self.stats["drop_signature"] += 1
            return
        self.seen[event.id] = None
        while len(self.seen) > 100_000:
            self.seen.popitem(last=False)
        if event.kind != KIND_CHATTER and (
            relay.newest_seen is None or event.created_at > relay.newest_seen
        ):
            relay.newest_seen = event.created_at
        try:
            body = self.reassembler.add(event.pubkey, plain, trio.current_time())
        except FragmentError:
            self.stats["drop_fragment"] += 1
            return
        if body is None:
            return
        if event.kind == KIND_ANNOUNCE:
            await self._on_announce(relay, event.pubkey, body)
        else:
            await self._on_batch(event.pubkey, body)

    async def _on_announce(self, relay: RelayConnection, pubkey: str, body: bytes) -> None:
        try:
            value = msgpack.unpackb(body, raw=False, strict_map_key=True)
            identity, signature = bytes(value["a"]), bytes(value["s"])
            peer = PeerId(identity)
        except Exception:  # msgpack and the key check raise unrelated exception types
            self.stats["drop_announce"] += 1
            return
        if not peer.verify(signature, announce_statement(self.table_id, bytes.fromhex(pubkey))):
            self.stats["drop_announce"] += 1
            return
        if identity == self.identity.public_key or pubkey in self.bindings:
            return
        known = self.keys_of.get(identity)
        if known is None:
            if len(self.keys_of) >= MAX_BINDINGS:
                self._evict_idle()
            known = self.keys_of[identity] = collections.deque()
            if self.hosting():
                self.reannounce.set()  # a joiner, perhaps, that cannot see our announcement
        self.keys_of.move_to_end(identity)
        if len(known) >= KEYS_PER_IDENTITY:
            self.bindings.pop(known.popleft(), None)  # the newest keys of a seat win
        known.append(pubkey)
        self.bindings[pubkey] = identity
        await self.inbox_send.send(identity)  # "peer up"
        for event_id, (event, _) in list(self.held.items()):
            if event.pubkey == pubkey:
                await self._verified(relay, *self._unhold(event_id))

    def _evict_idle(self) -> None:
        """Forget the identity idle the longest that we do not want (the host, a seat, the
        lobby are wanted and stay)."""
        for identity in self.keys_of:
            if not self.wanted(identity):
                for pubkey in self.keys_of.pop(identity):
                    self.bindings.pop(pubkey, None)
                self.stats["evicted_binding"] += 1
                return

    async def _on_batch(self, pubkey: str, body: bytes) -> None:
        try:
            entries = decode_batch(body)
        except BatchError:
            self.stats["drop_body"] += 1
            return
        sender = self.bindings.get(pubkey)
        if sender is not None:
            self.keys_of.move_to_end(sender)  # active: the last to be evicted
        for entry_id, data, to in entries:
            key = (pubkey, entry_id)
            if key in self.done_entries:
                self.stats["duplicate_entry"] += 1
                continue  # carried by another relay or another batch too
            self.done_entries[key] = None
            while len(self.done_entries) > DONE_ENTRIES:
                self.done_entries.popitem(last=False)
            if to is not None and to != self.identity.public_key:
                continue  # a direct message to another seat
            if sender is not None:
                self.stats["delivered"] += 1
                await self.inbox_send.send(Delivery(sender, data, to is not None))
