"""A roll-back leaves the machine as a clean run to the same head leaves it (issue 23: a hand's
field forgotten in one of the places that reset it gave a peer whose state after a roll-back
differed from its state after a clean run). For every head of a running hand, an auditor that
rolls back to it from the hand's last head holds what an auditor fed only up to it holds."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from schedule_sim import Schedule, ScheduledTable

from dealerless.client.protocol_sim import run_game, start_game
from dealerless.protocol.messages import decode_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.hand_deck import HandDeck
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.machine import TableMachine


def auditor(config: TableConfig, records: list[bytes]) -> TableMachine:
    """A machine with no key rebuilt from records, as ``dealerless audit`` builds it (the check
    at the end of a game, TableMachine.confirm, keeps no hand's start: it never rolls back)."""
    return TableMachine.resume(config, None, records)


def _deck(deck: HandDeck) -> tuple[bytes | None, list[list[bytes]]]:
    joint = None if deck.joint is None else deck.joint.encode()
    return joint, [c.to_wire() for c in deck.deck]


def _view(m: TableMachine) -> dict[str, Any]:
    """What the machine holds, copied (the clean machine goes on and changes it in place)."""
    hand = m.this_hand
    rnd = hand.round
    return copy.deepcopy(
        {
            "head": m.head,
            "seq": m.seq,
            "records": list(m.records),
            "state": m.state_hash(),
            "hand": hand.number,
            "phase": hand.phase,
            "participants": hand.participants,
            "round": None if rnd is None else (rnd.seats, rnd.positions, rnd.step, rnd.parallel),
            "round frames": None if rnd is None else sorted(rnd.frames),
            "reveal due": hand.reveal_due,
            "changes": hand.changes,
            "silent": hand.silent_in_hand,
            "requests": [r.frame for r in hand.requests],
            "lost share": hand.lost_share,
            "wrote": hand.wrote_in_hand,
            "deck": None if hand.deck is None else _deck(hand.deck),
            "arbiter": m.arbiter(),
            "engine": m.engine.public_digest(),
            "seat change": m.seat_change,
            "boundary silent": m.boundary_silent,
        }
    )


@pytest.mark.parametrize("seat", [None, 1])
def test_a_roll_back_to_any_head_of_the_hand_is_a_clean_run_to_it(seat: int | None) -> None:
    """An auditor (no key) and a seat of the table (its key shares as the node stored them;
    held, so that it writes nothing of its own)."""
    rng = random.Random(3)
    sim = start_game(make_config("tuppen", 3, {}), rng)
    run_game(sim, rng)
    records = sim.machines[0].records

    def machine(upto: int) -> TableMachine:
        if seat is None:
            return auditor(sim.table, records[:upto])
        key, shares = sim.keys[seat], sim.secrets[seat]
        return TableMachine.resume(sim.table, key, records[:upto], secrets=shares, hold=True)

    # every head of each hand, with the records up to it, and where each hand's records end
    heads: dict[int, dict[bytes, int]] = {}
    ends: dict[int, int] = {}
    clean = auditor(sim.table, [])
    for upto, frame in enumerate(records, 1):
        before, head_before = clean.hand, clean.head
        clean.receive(frame, 0.0)
        if clean.hand != before and before > 0:
            # This record closed the hand's last element (its result round) and started the
            # next hand: the hand's records end at that element's head.
            ends[before] = heads[before][head_before]
        if clean.hand > 0:
            heads.setdefault(clean.hand, {}).setdefault(clean.head, upto)
    ends.setdefault(clean.hand, len(records))
    hand = 2 if 2 in heads else 1  # (a deal may end the game in its first hand)
    last = ends[hand]
    seen = {h: n for h, n in heads[hand].items() if n <= last}
    assert len(seen) > 15  # every head of the hand, from its key commits to its results
    for anchor, upto in seen.items():
        expected = _view(machine(upto))
        rolled = machine(last)
        assert rolled.hand == hand and rolled.chain.can_rollback_to(anchor)
        rolled.rollback_to(anchor)
        view = _view(rolled)
        if seat is not None and expected["round frames"] != view["round frames"]:
            # One difference is by design: a resumed seat takes its own frame of the open
            # round again (stored with its key share before it left), a rolled-back one
            # does not (a certificate at the anchor always follows, and ends that round).
            assert expected["round frames"] == sorted([*view["round frames"], seat])
            view["round frames"] = expected["round frames"]
            if view["arbiter"] == seat:  # the lowest seat that owes a frame: it still owes it
                view["arbiter"] = expected["arbiter"]
        assert view == expected


def _game_with_certificates() -> tuple[TableConfig, list[bytes]]:
    """A finished game's transcript with timeout certificates inside its hands (frames lost
    and caught up late: seats time each other out), from the schedule simulation."""
    for seed in range(60):
        schedule = Schedule(delay=(0.005, 0.2), drop=0.25, catch_up_every=4.0)
        table = ScheduledTable(make_config("limit-tuppen", 3, {"hands": 4}), seed, schedule)
        out = table.run(900.0)
        if out.finished and out.same_transcript and out.certificates >= 3 and min(out.hands) >= 3:
            return table.machines[0].config, list(table.machines[0].records)
    raise AssertionError("no schedule gave a game of 3 hands or more with three certificates")


def _certificate_heads(config: TableConfig, records: list[bytes]) -> set[bytes]:
    """The heads that certificates of the transcript led to."""
    clean, heads = auditor(config, []), set()
    for frame in records:
        clean.receive(frame, 0.0)
        if decode_message(frame, registry=TABLE_REGISTRY).kind == "timeout-vote":
            heads.add(clean.head)
    return heads


# covers: P-48, P-30
def test_a_roll_back_across_hands_replays_the_certificates_on_the_way() -> None:
    """An auditor rolled back from the game's last hand to every head it can reach (up to
    ROLLBACK_HANDS hands before) holds what one fed only up to that head holds, certificates
    on the way included: a replay that skipped them stopped short of the anchor."""
    config, records = _game_with_certificates()
    last_hand_start = None
    clean = auditor(config, [])
    counts: dict[bytes, int] = {}
    for upto, frame in enumerate(records, 1):
        clean.receive(frame, 0.0)
        counts.setdefault(clean.head, upto)
    end = auditor(config, records)
    last_hand_start = end.hand_start_count
    # every head before the last hand that the finished machine can still roll back to
    reachable = [
        (head, upto)
        for head, upto in counts.items()
        if upto < last_hand_start and end.chain.can_rollback_to(head, across_hand=True)
    ]
    crossed = _certificate_heads(config, records)
    assert len(reachable) > 5
    assert any(upto < counts[c] < last_hand_start for c in crossed for _, upto in reachable), (
        "no certificate between a reachable head and the last hand: the test checks nothing"
    )
    for anchor, upto in reachable:
        expected = _view(auditor(config, records[:upto]))
        rolled = auditor(config, records)
        rolled.rollback_to(anchor)
        assert _view(rolled) == expected


def test_a_roll_back_into_a_hand_that_ended_the_segment_voids_its_seat_change() -> None:
    """A segment that ended for a seat change (seat 1 sits out after the hand), rolled back to
    every head of its last hand: the machine holds what one fed only up to that head holds,
    with no seat change (the randomized schedules: a seat change left standing after a roll-back
    made the game's end a boundary at two seats, and the third ended without it)."""
    rng = random.Random(4)
    sim = start_game(make_config("limit-tuppen", 3, {"mode": "cash", "max_buy_in": 10}), rng)
    sim.machines[1].want_change("sit-out")
    run_game(sim, rng)
    records = list(sim.machines[0].records)
    end = auditor(sim.table, records)
    assert end.over and end.seat_change is not None
    clean = auditor(sim.table, [])
    counts: dict[bytes, int] = {}
    for upto, frame in enumerate(records, 1):
        clean.receive(frame, 0.0)
        counts.setdefault(clean.head, upto)
    reachable = [
        (head, upto)
        for head, upto in counts.items()
        if upto < len(records) and end.chain.can_rollback_to(head)
    ]
    assert len(reachable) > 10
    for anchor, upto in reachable:
        expected = _view(auditor(sim.table, records[:upto]))
        rolled = auditor(sim.table, records)
        rolled.rollback_to(anchor)
        assert expected["seat change"] is None
        assert _view(rolled) == expected
