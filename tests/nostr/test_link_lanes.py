"""Which lane a node message takes over Nostr (node/nostr/link.py): catch-up counts go at
catch-up's slow pace and a newer one replaces a queued one; a count that a seat waits for goes
with the table's messages. The count a node sends when its segment ends is one of those: the
next host waits for it before it signs the next configuration (protocol.md P-51), and at
catch-up's pace it came after the others' deadline for the host (seen in CI: the next host
was timed out at the boundary)."""

from __future__ import annotations

import collections
from types import SimpleNamespace
from typing import Any

import trio

from dealerless.node.identity import Identity
from dealerless.node.nostr.link import NostrLink
from dealerless.node.wire import encode, seal


class _Pool:
    def __init__(self) -> None:
        self.stats: collections.Counter[str] = collections.Counter()
        self.published: list[dict[str, Any]] = []

    async def publish(self, kind: int, data: bytes, to: bytes | None, **lanes: Any) -> None:
        self.published.append(lanes)


def _lanes(payload: dict[str, Any]) -> dict[str, Any]:
    pool = _Pool()
    link = NostrLink(SimpleNamespace(pool=pool))  # type: ignore[arg-type]
    sealed = seal(Identity.generate(), bytes(16), payload)
    trio.run(link.send, {"t": "send", "data": encode(sealed)})
    (lanes,) = pool.published
    return lanes


def test_a_plain_count_goes_at_catch_ups_pace_and_a_newer_one_replaces_it() -> None:
    lanes = _lanes({"t": "have", "n": 40, "ask": False})
    assert lanes["catch_up"] is True and lanes["replace"] == b"have:"


def test_the_count_at_a_segments_end_goes_with_the_table_and_is_not_replaced() -> None:
    lanes = _lanes({"t": "have", "n": 40, "ask": False, "end": True})
    assert lanes["catch_up"] is False and lanes["replace"] is None


def test_an_ask_with_a_nonce_goes_with_the_table() -> None:
    lanes = _lanes({"t": "have", "n": 0, "ask": True, "nonce": bytes(12)})
    assert lanes["catch_up"] is False
