"""Negative tests of the pool's checks on events that a relay hands over (a hostile relay can
send anything, so these events are fed to the pool directly, in memory)."""

from __future__ import annotations

import secrets

import msgpack
import trio

from dealerless.node.identity import Identity
from dealerless.node.nostr.event import NostrKey
from dealerless.node.nostr.fragments import cut
from dealerless.node.nostr.outbox import Entry, encode_batch
from dealerless.node.nostr.pool import (
    HELD_PER_KEY,
    KIND_ANNOUNCE,
    KIND_CHATTER,
    KIND_FRAME,
    MAX_BINDINGS,
    Delivery,
    RelayPool,
    announce_statement,
)
from dealerless.node.nostr.table_crypto import TableKeys

SECRET, TABLE = secrets.token_bytes(16), secrets.token_bytes(16)


def _pool() -> RelayPool:
    return RelayPool(["ws://127.0.0.1:1"], TableKeys(SECRET, TABLE), Identity.generate(), TABLE)


def _events(
    pool: RelayPool, key: NostrKey, kind: int, body: bytes, keys: TableKeys | None = None
) -> list[dict[str, object]]:
    seal = (keys or pool.keys).seal
    return [
        key.sign(kind, pool.tags, seal(plain, key.pubkey, kind, bucket)).to_json()
        for plain, bucket in cut(body, 32_000)
    ]


def _batch(data: bytes, to: bytes | None = None) -> bytes:
    return encode_batch([Entry(KIND_FRAME, data, to)])


def _announce(identity: Identity, key: NostrKey, table: bytes = TABLE) -> bytes:
    value = {"a": identity.public_key, "s": identity.sign(announce_statement(table, key.public))}
    packed: bytes = msgpack.packb(value, use_bin_type=True)
    return packed


def _drain(pool: RelayPool) -> list[object]:
    out = []
    while True:
        try:
            out.append(pool.inbox.receive_nowait())
        except trio.WouldBlock:
            return out


def test_each_check_drops_what_it_should() -> None:
    async def main() -> None:
        pool = _pool()
        relay = pool.relays[0]
        relay.subscribed.set()
        seat, key = Identity.generate(), NostrKey()
        data = _batch(b"frame")

        # A frame before its author announced itself is held, then delivered with it.
        (frame,) = _events(pool, key, KIND_FRAME, data)
        await pool._on_event(relay, frame)
        assert _drain(pool) == [] and len(pool.held) == 1
        for event in _events(pool, key, KIND_ANNOUNCE, _announce(seat, key)):
            await pool._on_event(relay, event)
        assert _drain(pool) == [seat.public_key, Delivery(seat.public_key, b"frame", False)]

        # A copy (the same event from another relay) is dropped by id.
        await pool._on_event(relay, frame)
        assert _drain(pool) == [] and pool.stats["duplicate"] == 1

        # A forged signature on a well-sealed event: dropped after the AEAD, before delivery.
        (good,) = _events(pool, key, KIND_FRAME, data)
        forged = {**good, "sig": "00" * 64}
        await pool._on_event(relay, forged)
        assert _drain(pool) == [] and pool.stats["drop_signature"] == 1

        # Content sealed under another table's key: dropped as a stranger's, no curve work.
        other = TableKeys(secrets.token_bytes(16), TABLE)
        (stranger,) = _events(pool, key, KIND_FRAME, data, keys=other)
        await pool._on_event(relay, stranger)
        assert pool.stats["drop_stranger"] == 1 and pool.stats["drop_signature"] == 1

        # Another tag, an unknown kind, a bad shape.
        await pool._on_event(relay, {**good, "tags": [["t", "ff" * 16]]})
        await pool._on_event(relay, {**good, "kind": 1})
        await pool._on_event(relay, {**good, "pubkey": "xyz"})
        await pool._on_event(relay, ["not", "an", "event"])
        assert pool.stats["drop_tag"] == 2 and pool.stats["drop_shape"] == 2

        # An announcement for another table, or signed by another identity, binds nothing.
        spoof = NostrKey()
        by_other = Identity.generate().sign(announce_statement(TABLE, spoof.public))
        claimed = msgpack.packb({"a": seat.public_key, "s": by_other}, use_bin_type=True)
        for body in (_announce(seat, spoof, table=secrets.token_bytes(16)), claimed):
            for event in _events(pool, spoof, KIND_ANNOUNCE, body):
                await pool._on_event(relay, event)
        assert spoof.pubkey not in pool.bindings and pool.stats["drop_announce"] == 2

        # Chatter delivered before the relay's end of stored events is old: dropped.
        relay.subscribed = trio.Event()
        (chatter,) = _events(pool, key, KIND_CHATTER, data)
        await pool._on_event(relay, chatter)
        assert _drain(pool) == [] and pool.stats["drop_stale"] == 1

        # A direct message for another seat is not delivered to us.
        relay.subscribed.set()
        to_other = _batch(b"x", b"\x01" * 32)
        for event in _events(pool, key, KIND_CHATTER, to_other):
            await pool._on_event(relay, event)
        assert _drain(pool) == []

    trio.run(main)


def test_announcements_and_held_events_are_bounded() -> None:
    async def main() -> None:
        pool = _pool()
        relay = pool.relays[0]
        relay.subscribed.set()
        data = _batch(b"f")
        for _ in range(300):  # invited keys that never announce
            (event,) = _events(pool, NostrKey(), KIND_FRAME, data)
            await pool._on_event(relay, event)
        assert len(pool.held) == 256
        seat = Identity.generate()
        keys = [NostrKey() for _ in range(6)]
        for key in keys:  # one identity, many Nostr keys: the newest four count
            for event in _events(pool, key, KIND_ANNOUNCE, _announce(seat, key)):
                await pool._on_event(relay, event)
        assert [k for k, v in pool.bindings.items() if v == seat.public_key] == [
            k.pubkey for k in keys[2:]
        ]

    trio.run(main)


def test_a_flood_of_identities_evicts_only_idle_strangers_never_a_wanted_seat() -> None:
    async def main() -> None:
        host, seat = Identity.generate(), Identity.generate()
        pool = _pool()
        pool.wanted = lambda key: key in (host.public_key, seat.public_key)
        relay = pool.relays[0]
        relay.subscribed.set()

        async def announce(who: Identity) -> NostrKey:
            key = NostrKey()
            for event in _events(pool, key, KIND_ANNOUNCE, _announce(who, key)):
                await pool._on_event(relay, event)
            return key

        host_key = await announce(host)
        seat_key = await announce(seat)
        early = Identity.generate()
        early_key = await announce(early)  # a stranger, idle from now on
        for _ in range(MAX_BINDINGS + 10):  # one invitee's fresh identities
            await announce(Identity.generate())
            _drain(pool)  # the node reads its inbox
        assert host_key.pubkey in pool.bindings and seat_key.pubkey in pool.bindings
        assert early_key.pubkey not in pool.bindings  # the idle stranger gave way
        assert len(pool.keys_of) <= MAX_BINDINGS
        assert pool.stats["evicted_binding"] >= 10
        # The seat still speaks, and a newcomer that announces now is heard at once.
        _drain(pool)
        (frame,) = _events(pool, seat_key, KIND_FRAME, _batch(b"after the flood"))
        await pool._on_event(relay, frame)
        newcomer = Identity.generate()
        await announce(newcomer)
        assert _drain(pool) == [
            Delivery(seat.public_key, b"after the flood", False),
            newcomer.public_key,
        ]

    trio.run(main)


def test_one_unannounced_author_can_hold_back_only_its_own_events() -> None:
    async def main() -> None:
        pool = _pool()
        relay = pool.relays[0]
        relay.subscribed.set()
        greedy = NostrKey()
        for i in range(400):  # one key that never announces
            (event,) = _events(pool, greedy, KIND_FRAME, _batch(b"junk %d" % i))
            await pool._on_event(relay, event)
        assert len(pool.held) == HELD_PER_KEY
        honest, seat = NostrKey(), Identity.generate()
        (frame,) = _events(pool, honest, KIND_FRAME, _batch(b"honest"))
        await pool._on_event(relay, frame)  # before its announcement arrives
        for event in _events(pool, honest, KIND_ANNOUNCE, _announce(seat, honest)):
            await pool._on_event(relay, event)
        assert _drain(pool) == [seat.public_key, Delivery(seat.public_key, b"honest", False)]

    trio.run(main)
