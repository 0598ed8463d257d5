"""What the seats of a bench table wrote to their Nostr relay, and the relay they wrote to.

Every node logs, as it ends, an ``ev: "nostr"`` record of its relay pool (events sent per
relay and kind, the events that carried only catch-up, each relay's refusals). From those this
module reports events per seat per hand and the catch-up share, the figures issue 21 targets,
beside the time each hand took. A profile picks the relay and its limits: the ``nostr-relay``
package without limits, or rust-nostr's relay open, at its default 60 events a minute per
connection, or at 8 a minute."""

from __future__ import annotations

import itertools
import statistics
from pathlib import Path
from typing import Any, Protocol

__all__ = ["PROFILES", "RelayRun", "start_relay", "writes"]

PROFILES = ("open", "rust-open", "rust-60", "rust-8")


class RelayRun(Protocol):
    port: int

    def kill(self) -> None: ...


def start_relay(profile: str, root: Path) -> RelayRun:
    if profile == "open":
        from dealerless.client.bench.nostr_relay import RelayProcess

        return RelayProcess(root).start()
    from dealerless.client.bench.rust_relay import RustRelayProcess

    per_minute = {"rust-open": 0, "rust-60": None, "rust-8": 8}[profile]
    return RustRelayProcess(root, rate_per_minute=per_minute).start()


def writes(events: list[list[dict[str, Any]]], hands: int) -> dict[str, Any]:
    reports = [e for evs in events for e in evs if e.get("ev") == "nostr"]
    starts: dict[int, float] = {}
    for evs in events:
        for e in evs:
            if e.get("ev") == "hand":
                starts[e["hand"]] = min(starts.get(e["hand"], e["wall"]), e["wall"])
    ordered = [starts[h] for h in sorted(starts)]
    hand_times = [round(b - a, 2) for a, b in itertools.pairwise(ordered)]
    out: dict[str, Any] = {"hand_times_s": hand_times}
    if hand_times:
        out["hand_time_median_s"] = round(statistics.median(hand_times), 2)
    if not reports or not hands:
        return out
    per_seat, catch_up, total = [], 0, 0
    refusals: dict[str, int] = {}
    for report in reports:
        relays = report.get("relays") or []
        sent = sum(r.get("events_out", 0) for r in relays) / max(1, len(relays))
        per_seat.append(sent / hands)
        total += sum(r.get("events_out", 0) for r in relays)
        catch_up += sum(r.get("events_out_catch_up", 0) for r in relays)
        for relay in relays:
            for key, value in relay.items():
                if key.startswith("refused_") and isinstance(value, int):
                    refusals[key] = refusals.get(key, 0) + value
    out["events_per_seat_per_hand"] = round(statistics.mean(per_seat), 2)
    out["events_per_seat_per_hand_max"] = round(max(per_seat), 2)
    out["catch_up_share"] = round(catch_up / total, 3) if total else 0.0
    out["refusals"] = refusals
    return out
