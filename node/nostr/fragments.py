"""Messages cut into events that fit a relay's limit, and put together again.

A message (a node message, or a seat's announcement) gets a random 8-byte id; each of its
fragments is sealed in its own event. A relay that refuses big events gets the same message cut
smaller; receivers put fragments together by (author, id) and deliver each message once, however
many relays or cuts carried it. Everything held for reassembly is bounded."""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass, field

import msgpack

from dealerless.node.nostr.table_crypto import (
    MIN_BUCKET,
    bucket_for,
    content_length,
    largest_bucket,
)

__all__ = ["FragmentError", "Reassembler", "cut", "smallest_content"]

OVERHEAD = 48  # msgpack framing of one fragment beside its piece, and the length prefix
MAX_FRAGMENTS = 1024
MAX_MESSAGE = 2 << 20


class FragmentError(ValueError):
    """A fragment that is malformed or does not fit the bounds."""


def cut(body: bytes, max_content: int) -> list[tuple[bytes, int]]:
    """``body`` as fragments whose sealed content fits ``max_content``: each fragment's
    plaintext and the padding bucket it is sealed into. One random id for all of them."""
    top = largest_bucket(max_content)
    capacity = top - OVERHEAD
    pieces = [body[i : i + capacity] for i in range(0, len(body), capacity)] or [b""]
    if len(pieces) > MAX_FRAGMENTS:
        raise FragmentError(f"message of {len(body)} bytes needs too many fragments")
    msg_id = secrets.token_bytes(8)
    out = []
    for index, piece in enumerate(pieces):
        plain = msgpack.packb(
            {"m": msg_id, "i": index, "c": len(pieces), "p": piece}, use_bin_type=True
        )
        out.append((plain, min(top, bucket_for(len(plain)))))
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
    """Fragments in, whole messages out (once each), within fixed bounds.

    The bounds are fair: one author may hold at most ``per_author`` partial messages and
    ``per_author_bytes``, and when the whole buffer is full the author holding the most gives
    way first. So an author that floods fragments only ever evicts its own, never an honest
    seat's half-assembled shuffle."""

    def __init__(
        self,
        max_pending: int = 256,
        max_bytes: int = 8 << 20,
        expire: float = 300.0,  # a paced relay may bring the pieces of one message slowly
        per_author: int = 32,
        per_author_bytes: int = MAX_MESSAGE,
    ) -> None:
        self.pending: OrderedDict[tuple[str, bytes], _Partial] = OrderedDict()
        self.done: OrderedDict[tuple[str, bytes], None] = OrderedDict()
        self.max_pending, self.max_bytes, self.expire = max_pending, max_bytes, expire
        self.per_author, self.per_author_bytes = per_author, per_author_bytes
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
            if self._count(author) >= self.per_author:
                self._drop(self._oldest_of(author))
            if len(self.pending) >= self.max_pending:
                self._drop(self._oldest_of(self._greediest(by_bytes=False)))
            partial = self.pending[key] = _Partial(count, now)
        if partial.count != count or index in partial.pieces:
            return None
        if partial.size + len(piece) > MAX_MESSAGE:
            self._drop(key)
            raise FragmentError("reassembled message too big")
        while self._bytes(author) + len(piece) > self.per_author_bytes:
            if not self._drop(self._oldest_of(author, besides=key)):
                self._drop(key)
                raise FragmentError("this author holds too many unfinished messages")
        while self.held + len(piece) > self.max_bytes:
            if not self._drop(self._oldest_of(self._greediest(by_bytes=True), besides=key)):
                break  # only this message is left: it fits MAX_MESSAGE, let it be
        partial.pieces[index] = piece
        partial.size += len(piece)
        self.held += len(piece)
        if len(partial.pieces) < count:
            return None
        self._drop(key)
        self._mark_done(key)
        return b"".join(partial.pieces[i] for i in range(count))

    def _count(self, author: str) -> int:
        return sum(1 for a, _ in self.pending if a == author)

    def _bytes(self, author: str) -> int:
        return sum(p.size for (a, _), p in self.pending.items() if a == author)

    def _oldest_of(
        self, author: str, besides: tuple[str, bytes] | None = None
    ) -> tuple[str, bytes] | None:
        return next((k for k in self.pending if k[0] == author and k != besides), None)

    def _greediest(self, by_bytes: bool) -> str:
        held: dict[str, int] = {}
        for (author, _), partial in self.pending.items():
            held[author] = held.get(author, 0) + (partial.size if by_bytes else 1)
        return max(held, key=lambda a: held[a])

    def _mark_done(self, key: tuple[str, bytes]) -> None:
        self.done[key] = None
        while len(self.done) > 50_000:
            self.done.popitem(last=False)

    def _drop(self, key: tuple[str, bytes] | None) -> bool:
        partial = self.pending.pop(key, None) if key is not None else None
        if partial is not None:
            self.held -= partial.size
        return partial is not None

    def _expire(self, now: float) -> None:
        while self.pending:
            key, partial = next(iter(self.pending.items()))
            if now - partial.started < self.expire:
                break
            self._drop(key)
