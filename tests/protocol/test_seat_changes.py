"""Seats that change between hands (spec/protocol.md §9): the chain of segments, the plan that
follows from it, the next host's configuration and every check on it, and the audit across
changes. Real keys, deck and signatures among in-memory peers."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from seat_change_sim import next_segment, play_segment, start

from dealerless.client.protocol_sim import ProtocolGame
from dealerless.protocol.messages import decode_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.audit import audit_records
from dealerless.protocol.table.events import (
    LocalProtocolError,
    SeatsChanging,
    SegmentStarted,
    Violation,
)
from dealerless.protocol.table.hand_cycle import SIT_OUT_AFTER
from dealerless.protocol.table.kinds import TABLE_REGISTRY

CASH = {"mode": "cash", "hands": 4, "max_buy_in": 10}


def chips(ledgers: list[dict[str, int]]) -> int:
    """Cash mode: what the chips at and away from the table owe to the buy-ins (0 = conserved)."""
    return sum(x["stack"] - x["bought_in"] for x in ledgers)


# covers: P-47
def test_a_seat_stands_up_a_newcomer_sits_down_and_the_audit_follows_the_chain() -> None:
    rng = random.Random(7)
    sim = start(make_config("limit-tuppen", 3, CASH), rng)
    play_segment(sim, rng, {2: "stand", 0: "reseat"})
    change = sim.machines[1].seat_change
    assert isinstance(change, SeatsChanging) and change.hand == 1
    assert dict(change.changes) == {0: "reseat", 2: "stand"}
    assert all(m.over and m.seat_change == change for m in sim.machines)
    leaver = sim.table.seats[2].key
    second = next_segment(sim, rng, newcomers=[("dora", 7)])
    config = second.table
    assert [s.key for s in config.seats[:2]] == [s.key for s in sim.table.seats[:2]]
    assert config.seats[2].name == "dora"
    assert config.carry is not None and config.carry.hands == 1
    assert [d.key for d in config.carry.left] == [leaver]
    assert dict(config.carry.ledgers[2]) == {"stack": 7, "bought_in": 7, "net": 0}
    # The joint key and shuffles of the new segment are among exactly its seats.
    play_segment(second, rng, {})
    last = second.machines[0]
    assert last.engine.outcome is not None and last.hand == 4
    assert last.first_hand == 2
    ledgers = [last.engine.seat_ledger(s) for s in range(3)]
    left = [dict(d.ledger) for d in config.carry.left]
    assert chips(ledgers + left) == 0
    report = audit_records(sim.table, list(sim.machines[0].records))
    assert report.ok, report.failure
    assert report.complete and [h.hand for h in report.hands] == [1, 2, 3, 4]
    assert len(report.segments) == 1


# covers: P-43
def test_a_seat_sits_out_and_comes_back_with_its_chips() -> None:
    rng = random.Random(3)
    sim = start(make_config("limit-tuppen", 3, CASH), rng)
    play_segment(sim, rng, {1: "sit-out"})
    away_key = sim.table.seats[1].key
    kept = sim.machines[0].engine.seat_ledger(1)
    second = next_segment(sim, rng)
    assert [d.key for d in second.table.carry.away] == [away_key]  # type: ignore[union-attr]
    assert second.table.players == 2
    play_segment(second, rng, {0: "reseat"})
    third = next_segment(second, rng, returning=[(away_key, sim.keys[1])])
    assert third.table.seats[2].key == away_key
    assert third.table.carry is not None and third.table.carry.away == ()
    assert third.table.carry.ledgers[2] == tuple(sorted(kept.items()))
    play_segment(third, rng, {})
    report = audit_records(sim.table, list(sim.machines[0].records))
    assert report.ok and report.complete, report.failure
    assert len(report.segments) == 2


def test_a_seat_that_sits_out_follows_the_table_and_the_same_machine_plays_again() -> None:
    """Sitting out, a seat's machine follows the table as an observer (its transcript stays the
    whole chain); seated again, that machine plays on with its kept chips."""
    rng = random.Random(3)
    sim = start(make_config("limit-tuppen", 3, CASH), rng)
    play_segment(sim, rng, {1: "sit-out"})
    away, away_key = sim.machines[1], sim.table.seats[1].key
    away.follow_away = True
    kept = sim.machines[0].engine.seat_ledger(1)
    second = next_segment(sim, rng, followers=[away])
    assert away.sitting_out and away.seat is None and not away.left_table
    with pytest.raises(LocalProtocolError):
        away.want_change("reseat")  # no seat in this segment: nothing to sign
    play_segment(second, rng, {0: "reseat"})
    host = second.machines[0]
    for frame in host.records[len(away.records) :]:
        assert not [e for e in away.receive(frame, 0.0) if isinstance(e, Violation)]
    assert away.records == host.records and away.over
    third = next_segment(second, rng, returning=[(away_key, sim.keys[1])], followers=[away])
    assert third.machines[2] is away and away.seat == 2 and not away.sitting_out
    assert third.machines[2].engine.seat_ledger(2) == kept
    play_segment(third, rng, {})
    assert away.records == third.machines[0].records
    report = audit_records(sim.table, list(away.records))
    assert report.ok and report.complete, report.failure
    assert len(report.segments) == 2


def test_pottuppen_keeps_the_pot_at_the_table_and_balances_with_their_seats() -> None:
    rng = random.Random(5)
    sim = start(make_config("pottuppen", 3, {"hands": 3}), rng)
    play_segment(sim, rng, {1: "stand"})
    pot = sim.machines[0].engine.table_ledger()
    second = next_segment(sim, rng)
    assert second.table.carry is not None and dict(second.table.carry.table) == pot
    play_segment(second, rng, {})
    report = audit_records(sim.table, list(sim.machines[0].records))
    assert report.ok and report.complete, report.failure
    engine = second.machines[0].engine
    left = sum(dict(d.ledger)["balance"] for d in second.table.carry.left)
    assert sum(engine.seat_ledger(s)["balance"] for s in range(2)) + left == 0


# covers: P-42
def test_a_game_with_fixed_seats_refuses_a_seat_change() -> None:
    from dealerless.protocol.table.events import LocalProtocolError

    rng = random.Random(1)
    sim = start(make_config("tuppen", 2, {}), rng)
    with pytest.raises(LocalProtocolError, match="keeps its seats"):
        sim.machines[0].want_change("stand")
    with pytest.raises(LocalProtocolError, match="no seat change"):
        sim.machines[0].want_change("leave")


def test_a_newcomer_that_never_signs_sits_out_and_the_table_re_forms_without_it() -> None:
    rng = random.Random(9)
    sim = start(make_config("limit-tuppen", 3, CASH), rng)
    play_segment(sim, rng, {0: "reseat"})
    second = next_segment(sim, rng, newcomers=[("ghost", 5)])
    ghost = second.table.players - 1
    second.bus.allow = lambda sender, to, frame: sender != ghost  # its frames never arrive
    for _ in range(4):  # deadlines pass: the others vote the silent newcomer out
        if second.machines[0].seat_change is not None:
            break  # at the boundary: the next host signs at once (a node does)
        second.clock += 61.0
        for seat, machine in enumerate(second.machines):
            if seat != ghost:
                second.events[seat].extend(machine.tick(second.clock))
                second.flush(seat)
        second.deliver_all()
    host = second.machines[0]
    assert host.seat_change is not None and host.seat_change.silent == ghost
    assert host.hand == 1  # no hand was played in the segment that never started
    plan = host.seat_plan()
    assert [d.name for d in plan.away] == ["ghost"]  # it keeps its buy-in for a later seat
    assert dict(plan.away[0].ledger) == {"stack": 5, "bought_in": 5, "net": 0}
    third = next_segment(second, rng)
    assert [s.name for s in third.table.seats] == [s.name for s in sim.table.seats]
    play_segment(third, rng, {})
    report = audit_records(sim.table, list(sim.machines[0].records))
    assert report.ok and report.complete, report.failure
    assert not report.caught and len(report.segments) == 2


def test_a_seats_score_follows_from_its_ledger_in_every_mode() -> None:
    from dealerless.protocol.rules.registry import new_engine

    for mode in ("cash", "play-money", "tournament"):
        engine = new_engine(make_config("limit-tuppen", 3, {"mode": mode}), 0)
        engine.start_hand()
        for seat in range(3):
            assert engine.ledger_score(engine.seat_ledger(seat)) == engine.scores()[seat]
    engine = new_engine(make_config("pottuppen", 3, {}), 0)
    engine.start_hand()
    assert [engine.ledger_score(engine.seat_ledger(s)) for s in range(3)] == list(engine.scores())


def _tick_until(sim: ProtocolGame, until: Callable[[], bool]) -> None:
    """Let the step deadlines pass (every machine ticks) until ``until()``."""
    for _ in range(40):
        sim.deliver_all()
        if until():
            return
        sim.clock += 61.0
        for seat, machine in enumerate(sim.machines):
            sim.events[seat].extend(machine.tick(sim.clock))
            sim.flush(seat)
    raise AssertionError("the table never got there")


def _hand_of(frame: bytes) -> int:
    return decode_message(frame, registry=TABLE_REGISTRY).hand


# covers: P-43
def test_a_seat_silent_in_fewer_hands_than_three_in_a_row_keeps_its_seat() -> None:
    rng = random.Random(12)
    sim = start(make_config("limit-tuppen", 3, CASH), rng)
    # Seat 2 signs the configuration, then nothing of it arrives (a hub drops it).
    sim.bus.allow = lambda sender, to, frame: sender != 2 or _hand_of(frame) == 0
    host = sim.machines[0]
    _tick_until(sim, lambda: host.hand == SIT_OUT_AFTER)
    # Hands lost in a row below the limit (a hub dropping frames for a while): still seated.
    assert host.seat_change is None and 2 in host.participants
    _tick_until(sim, lambda: host.over)
    assert host.hand == SIT_OUT_AFTER
    assert host.seat_change is not None and host.seat_change.silent == 2
    plan = host.seat_plan()
    assert [d.key for d in plan.away] == [sim.table.seats[2].key] and plan.stays == (0, 1)
    caught = [e for evs in sim.events[:2] for e in evs if getattr(e, "culprit", None) == 2]
    assert not caught  # silence is nobody's violation


def test_the_host_silent_in_the_hand_a_seat_stands_up_sits_out_and_the_next_seat_hosts() -> None:
    """The host dies in the hand in which another seat asked to stand up: that hand ends for
    its silence, the segment ends for the change anyway, and the host sits out there (were it
    the next host, nobody would sign the next configuration); the next seat hosts."""
    rng = random.Random(13)
    sim = start(make_config("limit-tuppen", 4, CASH), rng)
    sim.machines[1].want_change("stand")
    # The host signs the configuration, then nothing of it arrives (it is gone).
    sim.bus.allow = lambda sender, to, frame: sender != 0 or _hand_of(frame) == 0
    second = sim.machines[2]
    _tick_until(sim, lambda: second.over)
    assert second.hand == 1 and second.seat_change is not None
    assert second.seat_change.silent == 0 and dict(second.seat_change.changes) == {1: "stand"}
    plan = second.seat_plan()
    assert plan.stays == (2, 3) and plan.host == sim.table.seats[2].key
    assert [d.key for d in plan.away] == [sim.table.seats[0].key]
    assert [d.key for d in plan.left] == [sim.table.seats[1].key]
    config = second.next_segment()
    assert [s.key for s in config.seats] == [s.key for s in sim.table.seats[2:]]
    caught = [e for evs in sim.events[1:] for e in evs if getattr(e, "culprit", None) == 0]
    assert not caught  # silence is nobody's violation


# covers: P-45
def test_a_next_host_silent_at_the_boundary_is_timed_out_and_the_next_seat_hosts() -> None:
    """The next host dies between the last result and its next configuration: every other
    seat that stays votes it silent at the segment's last head, the certificate is one chain
    element, that seat sits out with its chips, and the next seat that stays signs."""
    rng = random.Random(14)
    sim = start(make_config("limit-tuppen", 4, CASH), rng)
    play_segment(sim, rng, {1: "stand"})
    dead, second, third = sim.machines[0], sim.machines[2], sim.machines[3]
    assert second.seat_plan().host == sim.table.seats[0].key
    sim.bus.allow = lambda sender, to, frame: sender != 0  # it sends nothing any more
    late = dead.next_segment()  # signed, but lost on its way (it comes too late)
    late_frames = dead.take_outgoing()
    sim.clock += second.timeout / 2
    for seat in (2, 3):
        assert not sim.machines[seat].tick(sim.clock)  # not yet silent on anyone's clock
    sim.clock += second.timeout
    sim.events[2].extend(second.tick(sim.clock))
    sim.flush(2)
    sim.deliver_all()
    assert second.seat_plan().host == sim.table.seats[0].key  # one vote is no certificate
    sim.events[3].extend(third.tick(sim.clock))
    sim.flush(3)
    sim.deliver_all()
    for machine in (second, third):
        assert machine.boundary_silent == (0,)
        plan = machine.seat_plan()
        assert plan.host == sim.table.seats[2].key and plan.stays == (2, 3)
        assert [d.key for d in plan.away] == [sim.table.seats[0].key]
    assert second.records == third.records
    assert not [e for evs in sim.events for e in evs if getattr(e, "culprit", None) == 0]
    for frame in late_frames:  # after the certificate: stale, nobody's violation
        assert not [e for e in third.receive(frame, sim.clock) if isinstance(e, Violation)]
    assert third.over and third.config != late
    config = second.next_segment()
    started = [e for f in second.take_outgoing() for e in third.receive(f, sim.clock)]
    assert [e.seated for e in started if isinstance(e, SegmentStarted)] == [True]
    assert third.config == config and [s.key for s in config.seats] == [
        sim.table.seats[2].key,
        sim.table.seats[3].key,
    ]
    assert config.carry is not None and config.carry.records == second.chain_count - 1
    report = audit_records(sim.table, list(third.records))
    assert report.ok, report.failure
    (change,) = report.to_json()["seat_changes"]  # the auditor follows the certificate too
    assert [s["name"] for s in change["seats"]] == ["bot2", "bot3"]
