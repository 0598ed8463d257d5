"""Messages cut into events that fit a relay's limit, and put together again.

A message (a node message, or a seat's announcement) gets a random 8-byte id; each of its
fragments is sealed in its own event. A relay that refuses big events gets the same message cut
smaller; receivers put fragments together by (author, id) and deliver each message once, however
many relays or cuts carried it. Everything held for reassembly is bounded."""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import msgpack

from dealerless.node.nostr.event import NostrEvent, NostrKey
from dealerless.node.nostr.table_crypto import (
    MIN_BUCKET,
    TableKeys,
    bucket_for,
    content_length,
    largest_bucket,
)

__all__ = ["FragmentError", "OutMessage", "Reassembler"]

OVERHEAD = 48  # msgpack framing of one fragment beside its piece, and the length prefix
MAX_FRAGMENTS = 1024
MAX_MESSAGE = 2 << 20


class FragmentError(ValueError):
    """A fragment that is malformed or does not fit the bounds."""


@dataclass
class OutMessage:
    kind: int
    body: bytes
    msg_id: bytes = field(default_factory=lambda: secrets.token_bytes(8))
    _cuts: dict[int, list[NostrEvent]] = field(default_factory=dict)

    def events(
        self, keys: TableKeys, nkey: NostrKey, max_content: int, tags: tuple[tuple[str, ...], ...]
    ) -> list[NostrEvent]:
        """The message as events whose content fits ``max_content`` (the same events for
        every relay with the same limit, so receivers drop the copies by id)."""
        top = largest_bucket(max_content)
        cached = self._cuts.get(top)
        if cached is not None:
            return cached
        capacity = top - OVERHEAD
        pieces = [self.body[i : i + capacity] for i in range(0, len(self.body), capacity)] or [b""]
        if len(pieces) > MAX_FRAGMENTS:
            raise FragmentError(f"message of {len(self.body)} bytes needs too many fragments")
        when = int(time.time())
        out = []
        for index, piece in enumerate(pieces):
            plain = msgpack.packb(
                {"m": self.msg_id, "i": index, "c": len(pieces), "p": piece}, use_bin_type=True
            )
            bucket = min(top, bucket_for(len(plain)))
            content = keys.seal(plain, nkey.pubkey, self.kind, bucket)
            out.append(nkey.sign(self.kind, tags, content, when))
        self._cuts[top] = out
        return out


def smallest_content() -> int:
    return content_length(MIN_BUCKET)


@dataclass
class _Partial:
    count: int
    started: float
    pieces: dict[int, bytes] = field(default_factory=dict)
    size: int = 0


class Reassembler:
    """Fragments in, whole messages out (once each), within fixed bounds."""

    def __init__(
        self, max_pending: int = 256, max_bytes: int = 8 << 20, expire: float = 60.0
    ) -> None:
        self.pending: OrderedDict[tuple[str, bytes], _Partial] = OrderedDict()
        self.done: OrderedDict[tuple[str, bytes], None] = OrderedDict()
        self.max_pending, self.max_bytes, self.expire = max_pending, max_bytes, expire
        self.held = 0

    def add(self, author: str, plain: bytes, now: float) -> bytes | None:
        try:
            value = msgpack.unpackb(plain, raw=False, strict_map_key=True)
            msg_id, index, count, piece = value["m"], value["i"], value["c"], value["p"]
        except Exception as exc:  # msgpack raises a family of unrelated exceptions
            raise FragmentError(f"not a fragment: {exc}") from None
        if not (
            isinstance(msg_id, bytes)
            and len(msg_id) == 8
            and isinstance(index, int)
            and isinstance(count, int)
            and isinstance(piece, bytes)
            and 0 <= index < count <= MAX_FRAGMENTS
        ):
            raise FragmentError("fragment fields out of range")
        key = (author, msg_id)
        if key in self.done:
            return None
        self._expire(now)
        if count == 1:
            self._mark_done(key)
            return piece
        partial = self.pending.get(key)
        if partial is None:
            if len(self.pending) >= self.max_pending:
                self._drop(next(iter(self.pending)))
            partial = self.pending[key] = _Partial(count, now)
        if partial.count != count or index in partial.pieces:
            return None
        if partial.size + len(piece) > MAX_MESSAGE:
            self._drop(key)
            raise FragmentError("reassembled message too big")
        while self.held + len(piece) > self.max_bytes and self.pending:
            self._drop(next(iter(self.pending)))
        partial = self.pending.setdefault(key, partial)
        partial.pieces[index] = piece
        partial.size += len(piece)
        self.held += len(piece)
        if len(partial.pieces) < count:
            return None
        self._drop(key)
        self._mark_done(key)
        return b"".join(partial.pieces[i] for i in range(count))

    def _mark_done(self, key: tuple[str, bytes]) -> None:
        self.done[key] = None
        while len(self.done) > 50_000:
            self.done.popitem(last=False)

    def _drop(self, key: tuple[str, bytes]) -> None:
        partial = self.pending.pop(key, None)
        if partial is not None:
            self.held -= partial.size

    def _expire(self, now: float) -> None:
        while self.pending:
            key, partial = next(iter(self.pending.items()))
            if now - partial.started < self.expire:
                break
            self._drop(key)
