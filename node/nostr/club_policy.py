"""A write policy for a club's own strfry relay: admit the table's event kinds at the pace a
table writes, refuse the rest in words a seat understands (spec/node.md, "A relay for a club").

strfry runs a write-policy plugin as a child process and talks JSON lines: one request per
event (``{"type": "new" | "lookback", "event": {...}, "receivedAt": t, "sourceType": "IP4",
"sourceInfo": address}``) and, for each ``new``, one answer ``{"id": event id, "action":
"accept" | "reject", "msg": words}``. Run it as::

    python -m dealerless.node.nostr.club_policy [--per-key N] [--per-address N] [--any-kind]

The limits are token buckets per Nostr key and per address (a key is one seat at one table;
an address may be a household of seats behind one router). A refused attempt spends no token,
so a seat that paces itself after a ``rate-limited:`` answer is never locked out."""

from __future__ import annotations

import argparse
import json
import sys
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TextIO

__all__ = ["ClubPolicy", "main"]

TABLE_KINDS = frozenset({4318, 4319, 24318})
MAX_CONTENT = 400_000  # characters: the largest sealed bucket (256 KiB) in base64, and slack
MAX_TRACKED = 50_000  # keys and addresses remembered (the oldest are forgotten first)


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class _Limiter:
    def __init__(self, per_minute: float, burst: float) -> None:
        self.rate, self.burst = per_minute / 60.0, burst
        self.buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def take(self, who: str, now: float) -> bool:
        bucket = self.buckets.pop(who, None) or _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + max(0.0, now - bucket.stamp) * self.rate)
        bucket.stamp = now
        self.buckets[who] = bucket
        while len(self.buckets) > MAX_TRACKED:
            self.buckets.popitem(last=False)
        if bucket.tokens < 1.0:
            return False
        bucket.tokens -= 1.0
        return True


class ClubPolicy:
    """The decision for one event, pure (``now`` is strfry's receivedAt)."""

    def __init__(
        self, per_key: float = 240, per_address: float = 960, any_kind: bool = False
    ) -> None:
        # A 4-seat table of bots writes about 10 events a seat a hand, a hand every 2 s: the
        # bursts fit, and people play far slower than bots.
        self.keys = _Limiter(per_key, burst=per_key / 2)
        self.addresses = _Limiter(per_address, burst=per_address / 2)
        self.any_kind = any_kind

    def decide(self, request: dict[str, Any]) -> dict[str, str] | None:
        if request.get("type") != "new":
            return None  # a lookback: strfry wants no answer
        event = request.get("event")
        if not isinstance(event, dict) or not isinstance(event.get("id"), str):
            return {"id": "", "action": "reject", "msg": "invalid: not an event"}
        answer = {"id": event["id"], "action": "reject"}
        kind, content = event.get("kind"), event.get("content")
        now = float(request.get("receivedAt") or 0)
        if kind not in TABLE_KINDS and not self.any_kind:
            return {**answer, "msg": f"blocked: this relay carries card tables only (kind {kind})"}
        if isinstance(content, str) and len(content) > MAX_CONTENT:
            return {**answer, "msg": f"blocked: event too large ({len(content)} characters)"}
        address = str(request.get("sourceInfo") or "")
        if not self.keys.take(str(event.get("pubkey")), now):
            return {**answer, "msg": "rate-limited: one seat writes too fast; slow down"}
        if address and not self.addresses.take(address, now):
            return {**answer, "msg": "rate-limited: too many events from your address"}
        return {"id": event["id"], "action": "accept", "msg": ""}


def serve(policy: ClubPolicy, lines: Iterable[str], out: TextIO) -> None:
    for line in lines:
        try:
            request = json.loads(line)
        except ValueError:
            request = {"type": "new", "event": None}
        answer = policy.decide(request if isinstance(request, dict) else {"type": "new"})
        if answer is not None:
            out.write(json.dumps(answer) + "\n")
            out.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-key", type=float, default=240, help="events a minute per key")
    parser.add_argument(
        "--per-address", type=float, default=960, help="events a minute per address"
    )
    parser.add_argument("--any-kind", action="store_true", help="also accept other kinds")
    args = parser.parse_args(argv)
    serve(ClubPolicy(args.per_key, args.per_address, args.any_kind), sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
