"""Requirements of spec/protocol.md that no other test names: the chain of the example
transcript walked from the spec's text alone (genesis head, seq, round heads, seat order), and
the configuration's version."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from dealerless.client.commands.audit import read_transcript
from dealerless.protocol.messages import decode_message
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.kinds import TABLE_REGISTRY

ROOT = Path(__file__).resolve().parents[2]
VECTOR = ROOT / "spec" / "vectors" / "protocol" / "tuppen-2p.dlt"
PARALLEL = {"key-commit", "key-reveal", "shares", "result"}  # protocol v3: results too
SEQUENTIAL_ROUNDS = {"config-sign", "shuffle"}


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def walk() -> list[tuple[str, int, int, list[int]]]:
    return walk_chain()[0]


def walk_chain() -> tuple[list[tuple[str, int, int, list[int]]], set[int]]:
    """(kind, hand, seq, seats) per chain element, checking prev against the spec's heads: a
    hand's setup starts at its own start, or, prepared (§2.9), at SHA-256("dealerless/prepare" ‖
    the start of the hand before) with that start's seq; after a prepared setup's last shuffle
    the head is SHA-256("dealerless/join" ‖ the hand's start ‖ the last shuffle's hash)."""
    config, frames = read_transcript(str(VECTOR))
    head, seq = config.digest(), 0
    starts: dict[int, tuple[bytes, int]] = {}  # hand -> (head, seq) where it started
    hand = 0
    prepared = False
    prepared_hands: set[int] = set()
    out: list[tuple[str, int, int, list[int]]] = []
    i = 0
    while i < len(frames):
        first = decode_message(frames[i], registry=TABLE_REGISTRY)
        if first.hand != hand:  # a hand starts at the head the one before ended on
            hand = first.hand
            starts[hand] = (head, seq)
            prepared = False
            before = starts.get(hand - 1)
            if first.kind == "key-commit" and before is not None and hand >= 2:
                anchor = sha(b"dealerless/prepare" + before[0])
                if first.prev == anchor:  # prepared: set up on from the hand before's start
                    head, seq, prepared = anchor, before[1], True
                    prepared_hands.add(hand)
        elif prepared and first.kind == "shares" and out[-1][0] == "shuffle":
            head = sha(b"dealerless/join" + starts[hand][0] + head)
            seq = max(starts[hand][1], seq)
        assert first.prev == head, f"record {i} is not chained to the head before it"
        assert first.seq == seq, f"record {i}: seq {first.seq}, expected {seq}"
        if first.kind in PARALLEL:
            group = [frames[i]]
            while i + len(group) < len(frames):
                nxt = decode_message(frames[i + len(group)], registry=TABLE_REGISTRY)
                if nxt.prev != head:
                    break
                group.append(frames[i + len(group)])
            msgs = [decode_message(f, registry=TABLE_REGISTRY) for f in group]
            assert {m.seq for m in msgs} == {first.seq}
            head = sha(b"dealerless/round" + b"".join(sha(f) for f in group))
            out.append((first.kind, first.hand, first.seq, [m.seat for m in msgs]))
            i += len(group)
        else:
            head = sha(frames[i])
            out.append((first.kind, first.hand, first.seq, [first.seat]))
            i += 1
        seq += 1
    return out, prepared_hands


# covers: P-2
def test_the_chain_starts_at_the_configuration_hash() -> None:
    config, frames = read_transcript(str(VECTOR))
    assert decode_message(frames[0], registry=TABLE_REGISTRY).prev == config.digest()


# covers: P-6, P-53, P-54
def test_seq_counts_chain_elements_over_the_whole_segment() -> None:
    elements = walk()  # checks each element's seq as the spec counts it (P-6, P-53, P-54)
    assert max(hand for _, hand, _, _ in elements) >= 2, "the vector has more than one hand"
    for hand in {h for _, h, _, _ in elements}:
        seqs = [seq for _, h, seq, _ in elements if h == hand]
        assert len(seqs) == len(set(seqs)), f"hand {hand}: two elements share a seq"
    assert walk_chain()[1], "the vector has a prepared hand (§2.9)"


# covers: P-13, P-16
def test_rounds_are_in_seat_order_and_a_parallel_round_is_one_element() -> None:
    elements = walk()
    for kind, _, _, seats in elements:
        assert seats == sorted(seats), f"{kind} round not in seat order: {seats}"
    assert any(len(seats) > 1 for kind, _, _, seats in elements if kind in PARALLEL)
    # a sequential round is one element per seat, in seat order
    runs: list[list[int]] = []
    previous = None
    for kind, hand, _, seats in elements:
        if kind in SEQUENTIAL_ROUNDS:
            if previous == (kind, hand):
                runs[-1] += seats
            else:
                runs.append(list(seats))
            previous = (kind, hand)
        else:
            previous = None
    assert runs and all(run == sorted(run) for run in runs)


# covers: P-1
def test_a_configuration_of_another_version_is_refused() -> None:
    config, _ = read_transcript(str(VECTOR))
    wire = config.to_wire()
    assert wire["version"] == 4
    for version in (1, 3):
        with pytest.raises(ConfigError, match="version"):
            TableConfig.from_wire({**wire, "version": version})


# covers: P-26, P-27
def test_a_seat_votes_only_after_its_deadline_and_only_against_the_missing_seat() -> None:
    import random

    from dealerless.client.protocol_sim import start_game
    from dealerless.protocol.rules.registry import make_config
    from dealerless.protocol.table.events import TimeoutVoted

    sim = start_game(make_config("limit-tuppen", 3, {"hands": 2}), random.Random(5))

    def allow(sender: int, seat: int, frame: bytes) -> bool:
        kind = decode_message(frame, registry=TABLE_REGISTRY).kind
        return not (sender == 1 and kind == "key-commit")

    sim.bus.allow = allow
    sim.deliver_all()
    assert sim.machines[0].writers() == [1]

    def tick_all() -> list[int]:
        for seat in range(3):
            sim.events[seat].extend(sim.machines[seat].tick(sim.clock))
            sim.flush(seat)
        sim.deliver_all()
        return [e.silent for s in (0, 2) for e in sim.events[s] if isinstance(e, TimeoutVoted)]

    sim.clock += sim.machines[0].timeout * 0.9
    assert tick_all() == [], "a vote before the deadline"
    sim.clock += sim.machines[0].timeout * 0.2
    assert sorted(tick_all()) == [1, 1], "one vote by each other seat, against the silent one"


def _canonical(value: object) -> object:
    if isinstance(value, dict):
        return {k: _canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    return value


# covers: P-19, W-6
def test_the_state_hash_is_recomputed_from_the_head_and_the_public_state() -> None:
    """The formula of protocol.md §2.5, from the spec's text: SHA-256(head ‖ SHA-256(P))."""
    import random

    import msgpack

    from dealerless.client.protocol_sim import run_game, start_game
    from dealerless.protocol.rules.registry import make_config

    sim = start_game(make_config("belote", 4, {"target": 50}), random.Random(3))
    run_game(sim, random.Random(3))
    for machine in sim.machines:
        packed = msgpack.packb(_canonical(machine.engine.public_state()), use_bin_type=True)
        assert machine.state_hash() == sha(machine.head + sha(packed))
