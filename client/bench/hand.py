"""``dealerless bench hand``: hands played by 4 and 8 nodes, each a separate OS process on
loopback TCP (host + joiners, bots, the real deck and transport).

Reports, per table size: hand setup time (hand started -> every seat holds its cards; the
first hand is measured from the moment the table is ready), the wait between hands (the last
card of a hand -> every seat holds its cards of the next: the results, then the whole setup)
with its sequential trips, the CPU seconds per seat per hand, the time from a card being played
(the bot's decision, before signing and proofs) to every other peer having verified and applied
it (median and 95th percentile), and the bytes each player sends per hand (its own messages,
once per recipient: what the hub forwards for it). Times are wall-clock (CLOCK_MONOTONIC, shared
by the processes). This is a measurement, never a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from dealerless.client.bench.nostr_writes import PROFILES, start_relay, writes

HELP = "hand setup time, move latency and bytes per hand with 4 and 8 node processes"
TARGETS = {"setup_4_s": 0.5, "move_latency_ms": 50.0, "bytes_per_player_per_hand": 65536}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players", type=int, action="append", default=None, help="table sizes (default: 4 and 8)"
    )
    parser.add_argument("--hands", type=int, default=3, help="hands per table (default 3)")
    parser.add_argument("--game", default="limit-tuppen", help="game (default limit-tuppen)")
    parser.add_argument(
        "--transport",
        choices=("direct", "nostr"),
        default="direct",
        help="direct: the host's hub over loopback TCP; nostr: a local nostr-relay process "
        "behind a delaying proxy (default direct)",
    )
    parser.add_argument(
        "--delay-ms",
        type=float,
        default=0.0,
        help="nostr: one-way delay the proxy adds to everything in each direction (default 0)",
    )
    parser.add_argument(
        "--relay-profile",
        choices=PROFILES,
        default="open",
        help="nostr: the relay and its limits: open (the nostr-relay package), rust-open, "
        "rust-60 (rust-nostr's default 60 events/min per connection), rust-8 (default open)",
    )
    parser.add_argument(
        "--relays-only",
        action="store_true",
        help="nostr: no direct links between the seats (by default they link directly, over "
        "loopback here, and moves skip the relay): every frame through the relay",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def run_table(
    game: str,
    players: int,
    hands: int,
    root: Path,
    transport: str = "direct",
    delay: float = 0.0,
    profile: str = "open",
    relays_only: bool = False,
) -> dict[str, Any]:
    if transport == "direct":
        return _run_table(game, players, hands, root, ["--listen", "127.0.0.1:0"])
    relay = start_relay(profile, root / "relay")
    stats = root / "proxy.json"
    port_file = root / "proxy.port"
    proxy = subprocess.Popen(  # noqa: S603 - our own command line
        [
            sys.executable,
            "-m",
            "dealerless.client.bench.delay_proxy",
            "--target",
            f"127.0.0.1:{relay.port}",
            "--delay",
            str(delay),
            "--port-file",
            str(port_file),
            "--stats-file",
            str(stats),
        ]
    )
    try:
        deadline = time.monotonic() + 30
        while not port_file.exists():
            if time.monotonic() > deadline or proxy.poll() is not None:
                raise RuntimeError("the delay proxy did not start")
            time.sleep(0.05)
        url = f"ws://127.0.0.1:{port_file.read_text()}"
        links = ["--relays-only"] if relays_only else []
        result = _run_table(game, players, hands, root, ["--nostr", url], links)
        time.sleep(1.0)  # the proxy writes its counts every 0.5 s
        counts = json.loads(stats.read_text())
    finally:
        proxy.terminate()
        proxy.wait(10)
        relay.kill()
    played = max(1, result["hands"] or 1)
    result["transport"] = {
        "kind": "nostr", "one_way_delay_ms": delay * 1000, "relay": profile,
        "direct_links": not relays_only,
    }  # fmt: skip
    if result["setup_hops"]:
        # The target for 100 ms one way (a 200 ms relay trip): 0.25 s a hop.
        result["setup_target_at_100ms_s"] = round(result["setup_hops"] * 0.25, 3)
    # What the relay received from the table (every seat's events, announcements, REQs).
    result["relay_events_per_player_per_hand"] = round(counts["messages_up"] / players / played)
    result["relay_bytes_per_player_per_hand"] = round(counts["bytes_up"] / players / played)
    return result


def _run_table(
    game: str, players: int, hands: int, root: Path, way: list[str], links: list[str] | None = None
) -> dict[str, Any]:
    cli = [sys.executable, "-m", "dealerless.client.cli"]
    invite = root / "invite"
    logs = [root / f"events{i}.jsonl" for i in range(players)]
    procs = []
    common = ["--bot", "--linger", "5", *(links or [])]
    rules = [] if game in ("tuppen", "belote") else ["--rule", f"hands={hands}"]
    procs.append(
        subprocess.Popen(  # noqa: S603
            [
                *cli,
                "host",
                "--home",
                str(root / "h0"),
                "--game",
                game,
                "--seats",
                str(players),
                *rules,
                *way,
                "--invite-file",
                str(invite),
                "--name",
                "p0",
                "--event-log",
                str(logs[0]),
                *common,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    )
    deadline = time.monotonic() + 60
    while not invite.exists():
        if time.monotonic() > deadline or procs[0].poll() is not None:
            raise RuntimeError("the host did not start")
        time.sleep(0.05)
    for seat in range(1, players):
        procs.append(
            subprocess.Popen(  # noqa: S603
                [
                    *cli,
                    "join",
                    "--invite-file",  # the code holds the join token: never on a command line
                    str(invite),
                    "--home",
                    str(root / f"h{seat}"),
                    "--name",
                    f"p{seat}",
                    "--event-log",
                    str(logs[seat]),
                    *common,
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    try:
        codes = [p.wait(timeout=600) for p in procs]
    finally:
        for proc in procs:  # a table that did not finish: no node outlives the bench
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    events = [[json.loads(line) for line in log.read_text().splitlines()] for log in logs]
    result = summarize(events, codes)
    result["nostr_writes"] = writes(events, result["hands"])
    return result


def summarize(events: list[list[dict[str, Any]]], codes: list[int]) -> dict[str, Any]:
    players = len(events)
    starts = [e["wall"] for evs in events for e in evs if e["ev"] == "start"]
    hand_seen: dict[int, list[float]] = defaultdict(list)  # hand -> when each peer began it
    dealt: dict[int, dict[int, float]] = defaultdict(dict)
    plays: dict[tuple[int, int, int], float] = {}
    seen: dict[tuple[int, int, int], list[tuple[int, float]]] = defaultdict(list)
    author: dict[tuple[int, int, int], int] = {}
    sent: list[int] = []
    cpu: list[float] = []  # each peer's CPU seconds for the whole game
    hands = 0
    for peer, evs in enumerate(events):
        for e in evs:
            kind = e["ev"]
            if kind == "hand":
                hand_seen[e["hand"]].append(e["wall"])
            elif kind == "dealt":
                dealt[e["hand"]].setdefault(peer, e["wall"])
            elif kind == "play":
                plays[(e["hand"], e["seat"], e["card"])] = e["wall"]
                author[(e["hand"], e["seat"], e["card"])] = peer
            elif kind == "seen":
                seen[(e["hand"], e["seat"], e["card"])].append((peer, e["wall"]))
            elif kind == "over":
                sent.append(e["sent"])
                hands = max(hands, e["hands"])
                if "cpu" in e:
                    cpu.append(e["cpu"])
    setups, after_all_started = [], []
    for hand, by_peer in sorted(dealt.items()):
        if len(by_peer) == players and hand in hand_seen:
            begin = min(starts) if hand == 1 and starts else min(hand_seen[hand])
            setups.append(max(by_peer.values()) - begin)
            if hand > 1 and len(hand_seen[hand]) == players:
                after_all_started.append(max(by_peer.values()) - max(hand_seen[hand]))
    # The player's wait between hands: the last card of a hand played, to every seat holding
    # its cards of the next one (results, then the next hand's whole setup).
    last_card: dict[int, float] = {}
    for (hand, _seat, _card), t in plays.items():
        last_card[hand] = max(t, last_card.get(hand, t))
    between = [
        max(dealt[h].values()) - last_card[h - 1]
        for h in sorted(dealt)
        if h - 1 in last_card and len(dealt[h]) == players
    ]
    between_hops = hops_between_hands(events[0]) if events else []
    hops = critical_path_hops(events[0]) if events else []
    latencies = []
    for key, t in plays.items():
        others = [w for p, w in seen[key] if p != author[key]]
        if len(others) == players - 1:
            latencies.append((max(others) - t) * 1000)
    median_hops = round(statistics.median(hops[1:] or hops)) if hops else None
    median_setup = statistics.median(setups[1:] or setups) if setups else None
    return {
        "players": players,
        "exit_codes": codes,
        "hands": hands,
        "setup_first_hand_s": round(setups[0], 3) if setups else None,
        # The first hand also pays the configuration round and is reported on its own: the
        # median is of the hands after it (of the first, if it was the only one).
        "setup_median_s": round(median_setup, 3) if median_setup is not None else None,
        "setups_s": [round(s, 3) for s in setups],
        "setup_hops": median_hops,
        "setup_hops_first_hand": hops[0] if hops else None,
        "setup_hops_per_hand": hops,
        "setup_per_hop_s": round(median_setup / median_hops, 3)
        if median_setup is not None and median_hops
        else None,
        # The same hands timed from the moment the last seat learned that the hand began: one
        # hop fewer (the start's trip to the others is then outside the interval).
        "setup_after_all_started_median_s": round(statistics.median(after_all_started), 3)
        if after_all_started
        else None,
        "moves": len(latencies),
        "move_latency_median_ms": round(statistics.median(latencies), 1) if latencies else None,
        "move_latency_p95_ms": round(_percentile(latencies, 0.95), 1) if latencies else None,
        "bytes_per_player_per_hand": round(statistics.mean(sent) / hands)
        if sent and hands
        else None,
        "bytes_per_player_per_hand_max": round(max(sent) / hands) if sent and hands else None,
        "between_hands_median_s": round(statistics.median(between), 3) if between else None,
        "between_hands_s": [round(b, 3) for b in between],
        "between_hands_hops": round(statistics.median(between_hops)) if between_hops else None,
        "result_trips_per_hand": result_trips(events[0]) if events else [],
        "cpu_per_seat_per_hand_s": round(statistics.mean(cpu) / hands, 3)
        if cpu and hands
        else None,
    }


def _runs(authors: list[frozenset[int | None]]) -> int:
    """Sequential trips of a stretch of chain elements: each run of elements by one author
    is one trip (they go out together); a parallel round is one trip."""
    return sum(1 for i, a in enumerate(authors) if i == 0 or len(a) > 1 or a != authors[i - 1])


Chain = list[tuple[int | None, frozenset[int | None]]]  # (seq, authors) per chain element


def _add_element(chain: Chain, e: dict[str, Any]) -> None:
    """An accepted element: the frames of a parallel round share one sequence number and
    form one element (with all their authors)."""
    seq, seat = e.get("seq"), e.get("seat")
    if chain and seq is not None and chain[-1][0] == seq:
        chain[-1] = (seq, chain[-1][1] | {seat})
    else:
        chain.append((seq, frozenset({seat})))


def hops_between_hands(events: list[dict[str, Any]]) -> list[int]:
    """Per hand after the first: the sequential trips from the previous hand's last move (an
    ``action`` element) to this seat's cards of this hand, counted as
    :func:`critical_path_hops` counts them (the results, then what of the setup was not
    prepared while the hand before was played, then the deal)."""
    out = []
    chain: Chain = []
    last_action: int | None = None  # index in ``chain`` of the latest move
    for e in events:
        kind = e["ev"]
        if kind == "acc" and not e.get("prepared"):  # a prepared setup is off the path (P-53)
            _add_element(chain, e)
            if e.get("kind") == "action":
                last_action = len(chain) - 1
        elif kind == "dealt" and last_action is not None:
            out.append(_runs([a for _, a in chain[last_action + 1 :]]))
            last_action = None
    return out


def result_trips(events: list[dict[str, Any]]) -> list[int]:
    """Per hand: the sequential trips of its result round (protocol v3 signs it in parallel:
    one; in seat order it was one per seat), counted as :func:`critical_path_hops` counts
    them, over the ``result`` elements after the hand's last move."""
    out = []
    chain: Chain = []
    kinds: list[str] = []  # the kind of each element of ``chain``
    last_action: int | None = None
    for e in events:
        kind = e["ev"]
        if kind == "acc":
            before = len(chain)
            _add_element(chain, e)
            if len(chain) > before:
                kinds.append(str(e.get("kind")))
            if e.get("kind") == "action":
                last_action = len(chain) - 1
        elif kind in ("dealt", "over") and last_action is not None:
            after = range(last_action + 1, len(chain))
            results = [chain[i][1] for i in after if kinds[i] == "result"]
            if results:
                out.append(_runs(results))
            last_action = None
    return out


def critical_path_hops(events: list[dict[str, Any]]) -> list[int]:
    """Per hand: the sequential hops of its setup, from the moment it started to this seat's
    cards: how many times the setup waits for a message through the network.

    The chain is one sequence of elements (every peer accepts the same sequence, the "acc"
    events; the frames of a parallel round share one sequence number and form one element).
    Each run of elements by one author costs one trip to the others, who wait for it; elements
    one seat writes in a row go out together; a parallel round is one trip (its frames go out at
    once, each waits only for the round's head). The runs counted are those of the elements
    accepted between the hand's start and the deal, and the run of the element that started the
    hand (the previous hand's last result: its trip to the others is inside the setup's time).
    The first hand is counted from the table being ready (the "start" event), as it is timed:
    its configuration signatures come first."""
    out = []
    chain: Chain = []
    first: int | None = None  # where the running setup starts in ``chain``
    for e in events:
        kind = e["ev"]
        if kind == "start":
            first = len(chain)
        elif kind == "hand" and first is None:
            first = max(0, len(chain) - 1)  # the element that started the hand
        elif kind == "acc" and not e.get("prepared"):  # prepared during the hand before
            _add_element(chain, e)
        elif kind == "dealt" and first is not None:
            out.append(_runs([a for _, a in chain[first:]]))
            first = None
    return out


def run(args: argparse.Namespace) -> int:
    sizes = args.players or [4, 8]
    results = []
    for players in sizes:
        with tempfile.TemporaryDirectory(prefix="dealerless-bench-") as tmp:
            os.environ.pop("DEALERLESS_HOME", None)
            results.append(
                run_table(
                    args.game,
                    players,
                    args.hands,
                    Path(tmp),
                    args.transport,
                    args.delay_ms / 1000,
                    args.relay_profile,
                    args.relays_only,
                )
            )
        if not args.json:
            r = results[-1]
            extra = ""
            if "relay_events_per_player_per_hand" in r:
                w = r["nostr_writes"]
                extra = (
                    f"; relay received {r['relay_events_per_player_per_hand']} events and "
                    f"{r['relay_bytes_per_player_per_hand']} bytes per player per hand; each "
                    f"seat wrote {w.get('events_per_seat_per_hand')} events a hand "
                    f"(catch-up {w.get('catch_up_share')}), median hand "
                    f"{w.get('hand_time_median_s')} s, refusals {w.get('refusals')}"
                )
            print(
                f"{players} players, {r['hands']} hands: setup first {r['setup_first_hand_s']} s, "
                f"({r['setup_hops_first_hand']} sequential hops), "
                f"median {r['setup_median_s']} s ({r['setup_hops']} hops, "
                f"{r['setup_per_hop_s']} s a hop); move latency median "
                f"{r['move_latency_median_ms']} ms, p95 {r['move_latency_p95_ms']} ms over "
                f"{r['moves']} moves; {r['bytes_per_player_per_hand']} bytes per player per "
                f"hand (max {r['bytes_per_player_per_hand_max']}); between hands (last card to "
                f"every seat's next cards) median {r['between_hands_median_s']} s "
                f"({r['between_hands_hops']} sequential hops, result trips per hand "
                f"{r['result_trips_per_hand']}); CPU "
                f"{r['cpu_per_seat_per_hand_s']} s per seat per hand; exit codes {r['exit_codes']}"
                + extra
            )
    if args.json:
        report = {"game": args.game, "transport": args.transport, "targets": TARGETS}
        print(json.dumps({**report, "tables": results}, indent=1))
    return 0 if all(all(c == 0 for c in r["exit_codes"]) for r in results) else 1
