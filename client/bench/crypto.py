"""``dealerless bench crypto``: speed of the mental-poker deck (CPU time, one process).

Measures one scalar multiplication, the 32-card shuffle proof (prove / verify / ratio to 32
scalar multiplications / bytes), a DLEQ decryption share, non-membership proofs for a 4- and an
8-card hand, and a complete hand setup for 2, 4 and 8 players (joint key, one shuffle per
player verified by every other player, private deal of 4 cards to each player with every share
verified by every other player). Times are ``time.process_time`` medians over ``--rounds``.

``table_setup_*`` is what a table spends: the real table machines (signatures, encoding, rules),
from the signed configuration to the first decision of hand 1. ``hand_setup_*`` is the crypto
calls of the product's deal path alone: every shuffle checked on its own when it arrives and one
batched share message per seat and round (spec/crypto.md §6.1, §7.1). Two variants are
measured beside it so the choice is known: ``per_card_hand_setup_*`` with one proof per share
(the product's path before the share rounds were batched) and ``batched_hand_setup_*`` with one
check of the whole shuffle round (appendix A.1, which the product does not use).
``shuffle_round_check_*`` is what a seat spends on that batched round check once the last
shuffle is in (the seat that shuffled first, which checks every other shuffle), against
``shuffle_verify_ms``: what the product spends then (the last shuffle alone).
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import statistics
import time
from collections.abc import Callable
from typing import Any

import msgpack

from dealerless.protocol.crypto import (
    Ciphertext,
    HandDeckContext,
    NonMembershipMessage,
    PlayerSecret,
    Point,
    ShareBatchMessage,
    ShareMessage,
    ShuffleMessage,
    initial_deck,
    joint_key,
    make_nonmembership,
    make_share,
    make_share_batch,
    make_shuffle,
    recover_card,
    verify_key_reveal,
    verify_nonmembership_message,
    verify_share,
    verify_share_batch,
    verify_shuffle_message,
    verify_shuffle_round,
)
from dealerless.protocol.crypto.generators import card_points, g, g_table, h_table, shuffle_bases
from dealerless.protocol.crypto.group import N

HELP = "mental-poker deck: scalar mult, shuffle proof, shares, non-membership, hand setup"

TARGET_SHUFFLE_RATIO = 25.0
TARGET_SETUP_4P_MS = 150.0
TARGET_PROOF_BYTES = 8192


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--rounds", type=int, default=5, help="repetitions (median is reported)")


def _median_ms(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times) * 1e3


def _per_op_us(fn: Callable[[], object], ops: int, rounds: int) -> float:
    return _median_ms(fn, rounds) * 1e3 / ops


class _NodeClock:
    """Accumulates CPU time per seat: ``with clock(seat): ...``."""

    def __init__(self, n: int) -> None:
        self.per_seat = [0.0] * n
        self._seat = 0
        self._t0 = 0.0

    def __call__(self, seat: int) -> _NodeClock:
        self._seat = seat
        return self

    def __enter__(self) -> None:
        self._t0 = time.process_time()

    def __exit__(self, *exc: object) -> None:
        self.per_seat[self._seat] += time.process_time() - self._t0


def hand_setup(
    n_players: int, shuffles: str = "each", shares: str = "batch", cards_each: int = 4
) -> dict[str, float]:
    """Run a full hand setup for ``n_players`` in this process; return CPU ms figures.

    Every node's work is done here: each seat's shuffle is verified by each other seat and
    each deal share by each seat other than its author. ``shuffles``: ``each`` (every shuffle
    checked on its own, the product) or ``round`` (each node checks the whole round in one
    batch); ``shares``: ``batch`` (one batched-proof message per seat, the product) or
    ``card`` (one proof per share). ``total`` sums all nodes; ``max_per_node`` is the busiest
    node (what one machine spends when nodes run in parallel).
    """
    hctx = HandDeckContext(secrets.token_bytes(16), 1)
    clock = _NodeClock(n_players)
    t_start = time.process_time()
    players = []
    for s in range(n_players):
        with clock(s):
            players.append(PlayerSecret.generate(hctx, s))
    commits, reveals = [], []
    for p in players:
        with clock(p.seat):
            commits.append(p.commit())
            reveals.append(p.reveal())
    keys = [p.y for p in players]
    for v in range(n_players):
        with clock(v):
            for s in range(n_players):
                if s != v:
                    verify_key_reveal(hctx, commits[s], reveals[s])
            y = joint_key(keys)
    deck0 = deck = initial_deck(y)
    msgs = []
    for s in range(n_players):
        with clock(s):
            msg = make_shuffle(players[s], y, deck)
        msgs.append(msg)
        deck = list(msg.deck)
    seats = list(range(n_players))
    for v in range(n_players):
        with clock(v):
            if shuffles == "round":
                deck = verify_shuffle_round(hctx, y, deck0, msgs, seats, own_seat=v)
            else:
                d = deck0
                for s, msg in enumerate(msgs):
                    if s != v:
                        verify_shuffle_message(hctx, y, d, msg, s)
                    d = list(msg.deck)
    owners = {pos: pos % n_players for pos in range(cards_each * n_players)}
    if shares == "batch":  # one share message per seat covering every position dealt to another
        shares_of: dict[int, list[Point]] = {pos: [] for pos in owners}
        for s in range(n_players):
            mine = sorted(p for p, o in owners.items() if o != s)
            with clock(s):
                batch = make_share_batch(players[s], mine, deck, "deal")
            for v in range(n_players):
                if v != s:
                    with clock(v):
                        got = verify_share_batch(hctx, keys[s], deck, batch, s, mine, "deal")
            for position, share_point in got.items():
                shares_of[position].append(share_point)
        for pos, owner in owners.items():
            with clock(owner):
                recover_card(players[owner], pos, deck[pos], shares_of[pos])
    else:
        for pos, owner in owners.items():
            card_shares = []
            for s in range(n_players):
                if s == owner:
                    continue
                with clock(s):
                    share = make_share(players[s], pos, deck[pos], "deal")
                for v in range(n_players):
                    if v != s:
                        with clock(v):
                            verify_share(hctx, keys[s], pos, deck[pos], share, s, "deal")
                card_shares.append(share.share)
            with clock(owner):
                recover_card(players[owner], pos, deck[pos], card_shares)
    total = time.process_time() - t_start
    return {"total_cpu_ms": total * 1e3, "max_per_node_cpu_ms": max(clock.per_seat) * 1e3}


def shuffle_round_check(n_players: int, rounds: int) -> float:
    """CPU ms of the batched check of a whole shuffle round by the seat that shuffled first
    (it checks the ``n_players - 1`` shuffles after its own), once the last one is in."""
    hctx = HandDeckContext(secrets.token_bytes(16), 1)
    players = [PlayerSecret.generate(hctx, s) for s in range(n_players)]
    y = joint_key([p.y for p in players])
    deck0 = deck = initial_deck(y)
    msgs = []
    for p in players:
        msgs.append(make_shuffle(p, y, deck))
        deck = list(msgs[-1].deck)
    seats = list(range(n_players))
    return _median_ms(
        lambda: verify_shuffle_round(hctx, y, deck0, msgs, seats, own_seat=0), rounds
    )


def table_setup(n_players: int, seed: int = 0) -> dict[str, float]:
    """The product's own deal path: ``n_players`` real table machines (Tuppen) in this process,
    from the table being ready (the configuration signed) to the first decision of hand 1:
    key commits and reveals, every shuffle, the deal's share round, with every frame signed,
    encoded, decoded and checked by every other seat. CPU ms summed over all seats and of the
    busiest seat."""
    from dealerless.client.protocol_sim import start_game
    from dealerless.protocol.rules.registry import make_config
    from dealerless.protocol.table.steps import Phase

    rng = random.Random(seed)  # noqa: S311 - the table id and delivery order only
    sim = start_game(make_config("tuppen", n_players, {}), rng)
    per_seat = [0.0] * n_players
    ready = False
    while sim.bus.pending():
        seat, frame = sim.bus.pop()
        t0 = time.process_time()
        sim.events[seat].extend(sim.machines[seat].receive(frame, sim.clock))
        sim.flush(seat)
        per_seat[seat] += time.process_time() - t0
        if not ready and all(m.phase is not Phase.CONFIG for m in sim.machines):
            ready = True
            per_seat = [0.0] * n_players
        if all(m.phase is Phase.PLAY for m in sim.machines):
            break
    return {"total_cpu_ms": sum(per_seat) * 1e3, "max_per_node_cpu_ms": max(per_seat) * 1e3}


def _bench_nonmember(
    hctx: HandDeckContext,
    players: list[PlayerSecret],
    deck: list[Ciphertext],
    hand_size: int,
    rounds: int,
) -> tuple[float, float, int]:
    """Seat 0 holds positions 0..hand_size-1 and proves none is among 8 cards it lacks."""
    positions = list(range(hand_size))
    others: dict[int, Point] = {}
    held = set()
    for p in positions:
        others[p] = make_share(players[1], p, deck[p]).share
        held.add(recover_card(players[0], p, deck[p], [others[p]]))
    forbidden = [c for c in range(32) if c not in held][:8]
    proofs: list[NonMembershipMessage] = []

    def prove() -> None:
        proofs[:] = [
            make_nonmembership(players[0], p, deck[p], others[p], forbidden, "bench")
            for p in positions
        ]

    def verify() -> None:
        for p, m in zip(positions, proofs, strict=True):
            verify_nonmembership_message(
                hctx, players[0].y, p, deck[p], others[p], forbidden, m, 0, "bench"
            )

    return _median_ms(prove, rounds), _median_ms(verify, rounds), len(forbidden)


def measure(rounds: int) -> dict[str, Any]:
    # one-time start-up: hash-to-curve of all generators and card points, g and h tables
    t0 = time.process_time()
    card_points()
    shuffle_bases(32)
    g_table().mul(1)
    h_table().mul(1)
    res: dict[str, Any] = {"rounds": rounds, "deck_size": 32}
    res["startup_generators_and_tables_ms"] = (time.process_time() - t0) * 1e3
    base = g() * secrets.randbelow(N)
    ks = [secrets.randbelow(N - 1) + 1 for _ in range(200)]
    res["scalar_mult_us"] = _per_op_us(lambda: [base * k for k in ks], len(ks), rounds)
    res["fixed_base_g_mult_us"] = _per_op_us(
        lambda: [g_table().mul(k) for k in ks], len(ks), rounds
    )
    hctx = HandDeckContext(b"bench-table", 1)
    players = [PlayerSecret.generate(hctx, s) for s in range(2)]
    y = joint_key([p.y for p in players])
    deck = initial_deck(y)
    msgs: list[ShuffleMessage] = []

    def prove_shuffle() -> None:
        msgs.append(make_shuffle(players[0], y, deck))

    res["shuffle_prove_ms"] = _median_ms(prove_shuffle, rounds)
    msg = msgs[-1]
    res["shuffle_verify_ms"] = _median_ms(
        lambda: verify_shuffle_message(hctx, y, deck, msg, 0), rounds
    )
    mult32_ms = 32 * res["scalar_mult_us"] / 1e3
    res["shuffle_prove_plus_verify_over_32_mults"] = (
        res["shuffle_prove_ms"] + res["shuffle_verify_ms"]
    ) / mult32_ms
    res["shuffle_proof_bytes"] = msg.proof.size_bytes()
    res["shuffle_proof_msgpack_bytes"] = len(msgpack.packb(msg.proof.to_wire()))
    res["shuffle_message_msgpack_bytes"] = len(msgpack.packb(msg.to_wire()))
    deck = list(msg.deck)
    # DLEQ decryption share
    reps = 20
    shares: list[ShareMessage] = []

    def prove_shares() -> None:
        shares[:] = [make_share(players[1], 0, deck[0]) for _ in range(reps)]

    res["share_prove_us"] = _per_op_us(prove_shares, reps, rounds)
    share = shares[-1]
    res["share_verify_us"] = _per_op_us(
        lambda: [verify_share(hctx, players[1].y, 0, deck[0], share, 1) for _ in range(reps)],
        reps,
        rounds,
    )
    positions12 = list(range(12))
    batches: list[ShareBatchMessage] = []

    def prove_batch() -> None:
        batches[:] = [make_share_batch(players[1], positions12, deck)]

    res["share_batch_12pos_prove_ms"] = _median_ms(prove_batch, rounds)
    res["share_batch_12pos_verify_ms"] = _median_ms(
        lambda: verify_share_batch(hctx, players[1].y, deck, batches[0], 1, positions12), rounds
    )
    for hand_size in (4, 8):
        prove_ms, verify_ms, n_forbidden = _bench_nonmember(hctx, players, deck, hand_size, rounds)
        res[f"nonmember_{hand_size}card_prove_ms"] = prove_ms
        res[f"nonmember_{hand_size}card_verify_ms"] = verify_ms
        res[f"nonmember_{hand_size}card_forbidden"] = n_forbidden
    variants = (
        ("", "each", "batch"),  # the product
        ("per_card_", "each", "card"),
        ("batched_", "round", "batch"),
    )
    for n in (2, 4, 8):
        for prefix, shuffles, share_form in variants:
            runs = [hand_setup(n, shuffles, share_form) for _ in range(max(1, min(rounds, 3)))]
            key = f"{prefix}hand_setup_{n}p"
            res[f"{key}_total_cpu_ms"] = statistics.median(r["total_cpu_ms"] for r in runs)
            res[f"{key}_max_node_cpu_ms"] = statistics.median(
                r["max_per_node_cpu_ms"] for r in runs
            )
        tables = [table_setup(n, seed) for seed in range(max(1, min(rounds, 3)))]
        res[f"table_setup_{n}p_total_cpu_ms"] = statistics.median(r["total_cpu_ms"] for r in tables)
        res[f"table_setup_{n}p_max_node_cpu_ms"] = statistics.median(
            r["max_per_node_cpu_ms"] for r in tables
        )
        res[f"hand_setup_{n}p_total_in_scalar_mults"] = (
            res[f"hand_setup_{n}p_total_cpu_ms"] * 1e3 / res["scalar_mult_us"]
        )
        if n > 2:
            res[f"shuffle_round_check_{n}p_ms"] = shuffle_round_check(n, rounds)
    res["targets"] = {
        "shuffle_ratio_max": TARGET_SHUFFLE_RATIO,
        "shuffle_ratio_ok": res["shuffle_prove_plus_verify_over_32_mults"] <= TARGET_SHUFFLE_RATIO,
        "hand_setup_4p_ms_max": TARGET_SETUP_4P_MS,
        "hand_setup_4p_total_ok": res["hand_setup_4p_total_cpu_ms"] < TARGET_SETUP_4P_MS,
        "hand_setup_4p_per_node_ok": res["hand_setup_4p_max_node_cpu_ms"] < TARGET_SETUP_4P_MS,
        "shuffle_proof_bytes_max": TARGET_PROOF_BYTES,
        "shuffle_proof_bytes_ok": res["shuffle_proof_msgpack_bytes"] < TARGET_PROOF_BYTES,
    }
    return res


def run(args: argparse.Namespace) -> int:
    if args.rounds < 1:
        print("--rounds must be at least 1")
        return 2
    res = measure(args.rounds)
    if args.json:
        print(json.dumps(res, indent=2, sort_keys=True))
    else:
        for key, value in res.items():
            if isinstance(value, float):
                print(f"{key:48s} {value:10.2f}")
            else:
                print(f"{key:48s} {value}")
    return 0
