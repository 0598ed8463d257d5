"""The gates a relay can put in front of writes, passed the way the NIPs say.

- NIP-13 proof of work: a ``["nonce", n, target]`` tag chosen so that the event id starts
  with ``target`` zero bits. The serialisation is split around the nonce once, so each try
  hashes only the nonce and what follows it.
- NIP-42 authentication: a kind 22242 event with the relay's URL and its challenge, signed
  with the seat's table key (the relay learns nothing it did not see already).
- NIP-40 expiration: stored frames carry ``["expiration", t]`` so they do not stay on
  other people's relays for ever."""

from __future__ import annotations

import hashlib
import json
import time

from dealerless.node.nostr.event import NostrEvent, NostrKey

__all__ = [
    "AUTH_KIND",
    "MAX_AFFORDABLE_POW",
    "auth_event",
    "expiration_tag",
    "leading_zero_bits",
    "mine",
    "pow_cost",
]

AUTH_KIND = 22242
# The most work we do for one event: 2**18 tries of a few microseconds on a small event is
# about a second on this class of machine; a relay that asks for more cannot carry a table.
MAX_AFFORDABLE_POW = 18
NONCE_MARK = "\x00nonce\x00"


def leading_zero_bits(digest: bytes) -> int:
    bits = 0
    for byte in digest:
        if byte == 0:
            bits += 8
            continue
        return bits + 8 - byte.bit_length()
    return bits


def pow_cost(difficulty: int, content_length: int) -> float:
    """Expected hash blocks to mine one event (for the affordability check)."""
    return float(2**difficulty) * (1 + content_length // 64)


def mine(
    nkey: NostrKey,
    kind: int,
    tags: tuple[tuple[str, ...], ...],
    content: str,
    difficulty: int,
    created_at: int | None = None,
) -> NostrEvent:
    """An event of ``nkey`` whose id has at least ``difficulty`` leading zero bits."""
    if difficulty <= 0:
        return nkey.sign(kind, tags, content, created_at)
    if difficulty > MAX_AFFORDABLE_POW:
        raise ValueError(f"proof of work {difficulty} is more than we can afford")
    when = int(time.time()) if created_at is None else created_at
    marked = (*tags, ("nonce", NONCE_MARK, str(difficulty)))
    text = json.dumps(
        [0, nkey.pubkey, when, kind, [list(t) for t in marked], content],
        separators=(",", ":"),
        ensure_ascii=False,
    )
    # The mark is escaped by json.dumps; find it as it was written.
    written = json.dumps(NONCE_MARK)[1:-1]
    head, tail = text.split(written, 1)
    prefix = hashlib.sha256(head.encode("utf-8"))
    rest = tail.encode("utf-8")
    nonce = 0
    while True:
        trial = prefix.copy()
        trial.update(str(nonce).encode("ascii") + rest)
        digest = trial.digest()
        if leading_zero_bits(digest) >= difficulty:
            break
        nonce += 1
    final = (*tags, ("nonce", str(nonce), str(difficulty)))
    event = nkey.sign(kind, final, content, when)
    if event.id != digest.hex():  # our split must agree with NIP-01's serialisation
        raise AssertionError("proof-of-work serialisation differs from the event id")
    return event


def auth_event(nkey: NostrKey, relay_url: str, challenge: str) -> NostrEvent:
    return nkey.sign(AUTH_KIND, (("relay", relay_url), ("challenge", challenge)), "")


def expiration_tag(days: float, now: float | None = None) -> tuple[str, str]:
    base = time.time() if now is None else now
    return ("expiration", str(int(base + days * 86400)))
