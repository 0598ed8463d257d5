"""What waits to be written to one relay, and how it is put into as few events as possible.

A seat's node hands the pool one node message at a time (a frame, a ``have``, a chunk of
records). Each becomes an :class:`Entry` with a random id. The relay's writer takes a *batch*
when the relay may take an event: every waiting entry of the head's event kind, in priority
order, up to the size of one event. So what a seat says in one moment leaves as one event per
kind, and a relay that makes us wait gets fewer, fuller events instead of a growing backlog.
Receivers deliver each entry once by (author, entry id), however many relays or batches
carried it.

Frames of the running hand and the table's own messages come first, then our frames of the next
hand's setup (prepared while this hand is played: a seat waits for them only once the hand
ends), then catch-up; a newer ``have`` for the same peer replaces a queued one; a frame already
waiting is not queued twice (a node resends its open frames with every count); everything is
bounded."""

from __future__ import annotations

import collections
import hashlib
import math
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import msgpack

__all__ = [
    "AHEAD",
    "CATCH_UP",
    "MAX_ENTRIES",
    "TABLE",
    "BatchError",
    "Entry",
    "Outbox",
    "decode_batch",
    "encode_batch",
    "same_key",
]

TABLE = 0  # frames and the table's own messages (hello, config, votes, chat)
AHEAD = 1  # our frames of the next hand's prepared setup: needed when this hand ends
CATCH_UP = 2  # have / recs: useful, but never before the table's moves
PRIORITIES = 3
MAX_ENTRIES = 256  # entries in one batch (a bound for receivers too)
ENTRY_OVERHEAD = 24  # msgpack framing of one entry beside its data and recipient


class BatchError(ValueError):
    """A batch body that is malformed or over the bounds."""


@dataclass(eq=False)
class Entry:
    kind: int  # the Nostr event kind it travels in (stored frames or ephemeral chatter)
    data: bytes
    to: bytes | None = None
    priority: int = TABLE
    # A newer entry replaces a queued one whose key starts with its own key (so b"have:"
    # replaces every queued count, b"have:" + peer only the one for that peer).
    replace: bytes | None = None
    expires: float = math.inf  # trio time after which it is not worth sending (a stale count)
    # The same message sent again (a frame resent with a count) has the same ``same``: one
    # waiting copy is enough, and a relay that took it lately need not take it again.
    same: bytes | None = None
    entry_id: bytes = field(default_factory=lambda: secrets.token_bytes(8))

    @property
    def size(self) -> int:
        return len(self.data) + (len(self.to) if self.to else 0) + ENTRY_OVERHEAD


def encode_batch(entries: Iterable[Entry]) -> bytes:
    body = [[e.entry_id, e.data, e.to] for e in entries]
    data: bytes = msgpack.packb({"b": body}, use_bin_type=True)
    return data


def decode_batch(body: bytes) -> list[tuple[bytes, bytes, bytes | None]]:
    """``(entry id, data, recipient or None)`` for each entry of a batch body."""
    try:
        value: Any = msgpack.unpackb(body, raw=False, strict_map_key=True)
    except Exception as exc:  # msgpack raises a family of unrelated exceptions
        raise BatchError(f"undecodable batch: {exc}") from None
    entries = value.get("b") if isinstance(value, dict) else None
    if not isinstance(entries, list) or not 1 <= len(entries) <= MAX_ENTRIES:
        raise BatchError(f"a batch is a list of 1 to {MAX_ENTRIES} entries")
    out = []
    for entry in entries:
        if not isinstance(entry, list) or len(entry) != 3:
            raise BatchError("a batch entry is [id, data, to]")
        entry_id, data, to = entry
        if not isinstance(entry_id, bytes) or len(entry_id) != 8 or not isinstance(data, bytes):
            raise BatchError("a batch entry needs an 8-byte id and bytes")
        if to is not None and not isinstance(to, bytes):
            raise BatchError("a batch entry's recipient must be bytes")
        out.append((entry_id, data, to))
    return out


def same_key(data: bytes, to: bytes | None = None) -> bytes:
    """What two copies of one message share (``Entry.same``): a digest of its bytes and
    recipient."""
    return hashlib.sha256(data + (to or b"")).digest()[:16]


def _supersedes(newer: bytes | None, older: bytes | None) -> bool:
    return newer is not None and older is not None and older.startswith(newer)


class Outbox:
    """The entries waiting for one relay, by priority, bounded in count and bytes."""

    def __init__(self, max_entries: int = 4096, max_bytes: int = 64 << 20) -> None:
        self.queues: tuple[collections.deque[Entry], ...] = tuple(
            collections.deque() for _ in range(PRIORITIES)
        )
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self.bytes = 0
        self.soonest = math.inf  # the earliest ``expires`` of a queued entry (or later)

    def __len__(self) -> int:
        return sum(len(q) for q in self.queues)

    def put(self, entry: Entry) -> bool:
        """Queue an entry; False when the relay is too far behind to take it."""
        key = entry.replace
        if key is not None:
            self._remove(lambda e: _supersedes(key, e.replace))
        same = entry.same
        if same is not None:
            waiting = [e for q in self.queues for e in q if e.same == same]
            if any(e.priority <= entry.priority for e in waiting):
                return True  # already waiting, as soon or sooner
            self._remove(lambda e: e.same == same)  # waiting further back: sooner now
        if len(self) >= self.max_entries or self.bytes + entry.size > self.max_bytes:
            return False
        self.queues[entry.priority].append(entry)
        self.bytes += entry.size
        self.soonest = min(self.soonest, entry.expires)
        return True

    def put_back(self, entries: Iterable[Entry]) -> None:
        """Entries that were taken but not delivered go first again, in their order (a newer
        replacement queued meanwhile wins)."""
        for entry in reversed(list(entries)):
            queue = self.queues[entry.priority]
            if entry in queue or (
                entry.replace is not None
                and any(_supersedes(e.replace, entry.replace) for e in queue)
            ):
                continue
            queue.appendleft(entry)
            self.bytes += entry.size

    def waiting(self, catch_up: bool = True, *, below: int = PRIORITIES) -> int:
        """Entries a batch may take now (catch-up only where ``catch_up``; with ``below``,
        only those more urgent than that priority)."""
        return sum(len(q) for q in self._open(catch_up, below))

    def take(self, budget: int, catch_up: bool = True, *, below: int = PRIORITIES) -> list[Entry]:
        """A batch: the first waiting entry and every other waiting entry of its kind (by
        priority, then age) while they fit ``budget`` bytes together; catch-up entries stay
        queued where ``catch_up`` is false, and with ``below`` only entries more urgent than
        that priority are taken."""
        queues = self._open(catch_up, below)
        head = next((q[0] for q in queues if q), None)
        if head is None:
            return []
        batch: list[Entry] = []
        used = 0
        for entry in (e for q in queues for e in q if e.kind == head.kind):
            if (batch and used + entry.size > budget) or len(batch) >= MAX_ENTRIES:
                break
            batch.append(entry)
            used += entry.size
        taken = set(map(id, batch))
        self._remove(lambda e: id(e) in taken)
        return batch

    def _open(self, catch_up: bool, below: int) -> tuple[collections.deque[Entry], ...]:
        """The queues a batch may take from (by priority)."""
        return self.queues[: below if catch_up else min(below, CATCH_UP)]

    def drop_expired(self, now: float) -> int:
        """Forget entries past their use (how many went). Called on every pass of a relay's
        writer: nothing is scanned until the soonest expiry is due."""
        if now <= self.soonest:
            return 0
        gone = self._remove(lambda e: e.expires < now)
        self.soonest = min((e.expires for q in self.queues for e in q), default=math.inf)
        return gone

    def clear(self) -> int:
        return self._remove(lambda _e: True)

    def _remove(self, doomed: Callable[[Entry], bool]) -> int:
        removed = 0
        for queue in self.queues:
            gone = [e for e in queue if doomed(e)]
            if gone:
                ids = {id(g) for g in gone}
                kept = [e for e in queue if id(e) not in ids]
                queue.clear()
                queue.extend(kept)
                self.bytes -= sum(e.size for e in gone)
                removed += len(gone)
        return removed
