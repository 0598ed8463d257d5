"""Parallel rounds (key commits, key reveals, decryption shares, results): every seat writes at the
round's head at once, peers take the frames in any order, and the transcript is the same bytes
everywhere (the round's frames in seat order). A missing frame times out only the seats that did
not write; two frames of one seat in one round are equivocation; a seat that crashes after
writing its frame takes that same frame again when it resumes."""

from __future__ import annotations

import contextlib
import itertools
import random

import pytest

from dealerless.client.protocol_sim import ProtocolGame, ProtocolSimError, run_game, start_game
from dealerless.protocol.crypto import HandDeckContext, PlayerSecret
from dealerless.protocol.messages import SignedMessage, decode_message, sign_message
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import HandEnded, SeatSilent, TimeoutVoted, Violation
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.round_frames import ROUND_LABEL
from dealerless.protocol.table.votes import LONE_VOTER_WAIT, certificate_digest

PARALLEL_KINDS = ("key-commit", "key-reveal", "shares", "result")


def decode(frame: bytes) -> SignedMessage:
    return decode_message(frame, registry=TABLE_REGISTRY)


def rounds_of(records: list[bytes]) -> list[tuple[int, list[bytes]]]:
    """(index of the first record, frames) of every run of records at one head."""
    out: list[tuple[int, list[bytes]]] = []
    for index, frame in enumerate(records):
        message = decode(frame)
        if message.kind not in PARALLEL_KINDS:
            continue
        if out and decode(out[-1][1][0]).prev == message.prev:
            out[-1][1].append(frame)
        else:
            out.append((index, [frame]))
    return out


def played(players: int, seed: int) -> ProtocolGame:
    rng = random.Random(seed)
    sim = start_game(make_config("limit-tuppen", players, {"hands": 1}), rng)
    run_game(sim, rng)
    return sim


# covers: P-5, P-14, P-16
@pytest.mark.parametrize("players", [2, 3, 4])
def test_round_frames_in_every_order_give_one_transcript(players: int) -> None:
    sim = played(players, seed=players)
    records = sim.machines[0].records
    assert all(m.records == records for m in sim.machines)
    groups = rounds_of(records)
    kinds = [decode(g[0]).kind for _, g in groups]
    assert kinds[:3] == ["key-commit", "key-reveal", "shares"]
    for _, frames in groups:
        seats = [decode(f).seat for f in frames]
        assert seats == sorted(seats)  # recorded in seat order
        assert len({decode(f).seq for f in frames}) == 1  # one chain element
    done = 0
    for start, frames in groups[:3]:  # the setup's three rounds, each in every order
        results = set()
        for order in itertools.permutations(frames):
            peer = TableMachine.resume(sim.table, None, records[:start])  # an auditor's view
            assert len(peer.records) == start
            for frame in order:
                peer._receive(frame)
            assert not peer.violations
            assert peer.head == certificate_digest(ROUND_LABEL, frames)
            results.add((tuple(peer.records), peer.state_hash()))
        assert len(results) == 1
        ((taken, _),) = results
        assert list(taken) == records[: start + len(frames)]
        done += 1
    assert done == 3


def hold(sim: ProtocolGame, silent: int, kind: str) -> None:
    """Nobody receives ``silent``'s frame of kind ``kind`` in hand 1 (it went lost)."""

    def allow(src: int, _dst: int, frame: bytes) -> bool:
        message = decode(frame)
        return not (src == silent and message.kind == kind and message.hand == 1)

    sim.bus.allow = allow


# covers: P-27, P-34
@pytest.mark.parametrize(("players", "kind"), [(2, "key-commit"), (3, "key-reveal"), (4, "shares")])
def test_a_missing_round_frame_times_out_only_its_seat(players: int, kind: str) -> None:
    rng = random.Random(20 + players)
    sim = start_game(make_config("limit-tuppen", players, {"hands": 2}), rng)
    silent = 1
    hold(sim, silent, kind)
    sim.deliver_all()
    others = [s for s in range(players) if s != silent]
    for seat in others:
        assert sim.machines[seat].phase == kind
        assert sim.machines[seat].writers() == [silent]  # every other seat has written
    sim.clock += sim.machines[0].timeout + 1
    for seat in range(players):
        sim.events[seat].extend(sim.machines[seat].tick(sim.clock))
        sim.flush(seat)
    sim.deliver_all()
    voted = [e.silent for seat in others for e in sim.events[seat] if isinstance(e, TimeoutVoted)]
    if players == 2:
        # A lone voter (its vote alone is the certificate) waits twice the step (P-26).
        assert voted == []
        sim.clock += (LONE_VOTER_WAIT - 1) * sim.machines[0].timeout
        for seat in range(players):
            sim.events[seat].extend(sim.machines[seat].tick(sim.clock))
            sim.flush(seat)
        sim.deliver_all()
        voted = [
            e.silent for seat in others for e in sim.events[seat] if isinstance(e, TimeoutVoted)
        ]
    assert voted and set(voted) == {silent}
    # At two seats the accused refuses one opponent's word when it wrote in time (§5); with
    # more seats it takes what every other seat signed.
    takers = others if players == 2 else list(range(players))
    for seat in takers:
        silences = [e for e in sim.events[seat] if isinstance(e, SeatSilent)]
        assert [e.seat for e in silences] == [silent], seat
        ended = [e for e in sim.events[seat] if isinstance(e, HandEnded)]
        assert ended and ended[0].silent == silent and ended[0].culprit is None
    assert not [v for v in sim.violations() if v.culprit is not None]
    if players == 2:
        return
    sim.bus.allow = None
    run_game(sim, rng)
    assert all(m.records == sim.machines[0].records for m in sim.machines)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_result_round_is_one_element_in_every_order(players: int) -> None:
    sim = played(players, seed=40 + players)
    records = sim.machines[0].records
    groups = [(i, g) for i, g in rounds_of(records) if decode(g[0]).kind == "result"]
    assert groups and all(len(g) == players for _, g in groups)
    start, frames = groups[0]
    results = set()
    for order in itertools.permutations(frames):
        peer = TableMachine.resume(sim.table, None, records[:start])
        for frame in order:
            peer._receive(frame)
        assert not peer.violations
        assert peer.head == certificate_digest(ROUND_LABEL, frames)
        results.add(tuple(peer.records))
    assert results == {tuple(records[: start + len(frames)])}


@pytest.mark.parametrize("players", [3, 4])
def test_a_missing_result_is_timed_out_and_the_others_sign_again(players: int) -> None:
    """The certificate moves the head: the round starts again there without the silent seat,
    the result stands, the next hand is played and the other seats' transcripts agree."""
    rng = random.Random(50 + players)
    sim = start_game(make_config("limit-tuppen", players, {"hands": 2}), rng)
    silent = players - 1
    others = [s for s in range(players) if s != silent]
    hold(sim, silent, "result")
    with pytest.raises(ProtocolSimError, match="stalled"):
        run_game(sim, rng)
    for seat in others:
        assert sim.machines[seat].phase == "result"
        assert sim.machines[seat].writers() == [silent]
    sim.bus.allow = None
    for _ in range(6):  # the silent seat went on alone: the others time it out as it comes
        sim.clock += sim.machines[0].timeout + 1
        for seat in range(players):
            sim.events[seat].extend(sim.machines[seat].tick(sim.clock))
            sim.flush(seat)
        with contextlib.suppress(ProtocolSimError):  # stalls until the next tick
            run_game(sim, rng)
        if all(sim.machines[s].over for s in others):
            break
    records = sim.machines[0].records
    assert all(sim.machines[s].records == records for s in others)
    assert all(sim.machines[s].engine.outcome is not None for s in others)
    messages = [decode(f) for f in records]
    cert = next(i for i, m in enumerate(messages) if m.kind == "timeout-vote")
    assert messages[cert - 1].kind == "action"  # the first result round never closed
    again = messages[cert + len(others) : cert + 2 * len(others)]
    assert [m.kind for m in again] == ["result"] * len(others)
    assert [m.seat for m in again] == others  # signed again at the certificate's head
    after_certificate = TableMachine.resume(sim.table, None, records[: cert + len(others)]).head
    assert {m.prev for m in again} == {after_certificate}
    silences = [e for e in sim.events[others[0]] if isinstance(e, SeatSilent)]
    assert silences and silences[0].seat == silent
    assert not [v for v in sim.violations() if v.culprit is not None]


# covers: P-15
@pytest.mark.parametrize("players", [3, 4])
def test_two_frames_of_one_seat_in_a_round_are_equivocation(players: int) -> None:
    rng = random.Random(40 + players)
    sim = start_game(make_config("limit-tuppen", players, {"hands": 2}), rng)
    cheat = players - 1
    while True:  # until the cheat's key commitment is on its way
        queued = [(s, i) for s, q in enumerate(sim.bus.queues) for i, f in enumerate(q)]
        found = [
            (s, i)
            for s, i in queued
            if decode(sim.bus.queues[s][i]).kind == "key-commit"
            and decode(sim.bus.queues[s][i]).seat == cheat
            and decode(sim.bus.queues[s][i]).hand == 1  # not hand 2's, prepared (P-53)
        ]
        if len(found) == players - 1:
            break
        assert sim.bus.pending()
        seat, frame = sim.bus.pop()
        sim.events[seat].extend(sim.machines[seat].receive(frame, sim.clock))
        sim.flush(seat)
    genuine = decode(sim.bus.queues[found[0][0]][found[0][1]])
    hctx = HandDeckContext(sim.table.table_id, 1, sim.table.digest())
    twin = sign_message(
        sim.keys[cheat],
        registry=TABLE_REGISTRY,
        table_id=genuine.table_id,
        hand=genuine.hand,
        seq=genuine.seq,
        prev=genuine.prev,
        seat=cheat,
        kind="key-commit",
        body={"commit": PlayerSecret.generate(hctx, cheat).commit().to_wire()},
    ).frame
    victim, index = found[-1]
    sim.bus.queues[victim][index] = twin  # one peer gets another commitment than the rest
    sim.bus.queues[found[0][0]].append(twin)  # and one gets both (a relay passes both on)
    sim.deliver_all()
    honest = [s for s in range(players) if s != cheat]
    for seat in honest:
        caught = [
            v
            for v in sim.events[seat]
            if isinstance(v, Violation) and v.culprit == cheat and "equivocation" in v.reason
        ]
        assert caught, seat
        assert set(caught[0].evidence) == {genuine.frame, twin}
        ended = [e for e in sim.events[seat] if isinstance(e, HandEnded)]
        assert ended and ended[0].culprit == cheat
    heads = {sim.machines[s].head for s in honest}
    assert len(heads) == 1


# covers: P-17
@pytest.mark.parametrize("players", [2, 3, 4])
def test_resume_in_the_middle_of_a_round_takes_the_same_frame(players: int) -> None:
    rng = random.Random(60 + players)
    sim = start_game(make_config("limit-tuppen", players, {"hands": 1}), rng)
    crashed = 0

    def cut_off(src: int, dst: int, frame: bytes) -> bool:
        """The seat's reveal was written and stored, then it crashed: nothing of the round
        went out or came in."""
        return crashed not in (src, dst) or decode(frame).kind != "key-reveal"

    sim.bus.allow = cut_off
    sim.deliver_all()
    machine = sim.machines[crashed]
    mine = machine.pending_round_frame()
    assert mine is not None and decode(mine).kind == "key-reveal"
    assert machine.records == sim.machines[1].records  # the round is open everywhere
    sim.bus.allow = None
    sim.restart(crashed)  # rebuilt from its records and its store (key share + round frame)
    resumed = sim.machines[crashed]
    assert resumed.pending_round_frame() == mine  # the same bytes, not a new signature
    for seat, other in enumerate(sim.machines):  # what a node resends with every announce
        pending = other.pending_round_frame()
        if seat != crashed and pending is not None:
            sim.bus.queues[crashed].append(pending)
    run_game(sim, rng)
    assert all(m.records == sim.machines[0].records for m in sim.machines)
    assert mine in sim.machines[0].records
    assert not sim.violations()


def test_the_silent_seats_own_change_goes_with_its_result() -> None:
    """The seat timed out in the result round asked to sit out in the result it signed, which
    the others never got. It takes their certificate (two others signed it), and with it the
    round without its result: its own request goes too, so every seat ends the segment with
    the same seat changes (it had kept its request and ended a different segment)."""
    rng = random.Random(7)
    sim = start_game(
        make_config("limit-tuppen", 3, {"mode": "cash", "hands": 4, "max_buy_in": 10}), rng
    )
    silent, others = 2, [0, 1]
    sim.machines[silent].want_change("sit-out")
    held: list[tuple[int, bytes]] = []

    def lost_results(src: int, dst: int, frame: bytes) -> bool:
        """Its result reaches nobody; theirs reach it only after the certificate."""
        if decode(frame).kind != "result" or silent not in (src, dst):
            return True
        if src != silent:
            held.append((dst, frame))
        return False

    sim.bus.allow = lost_results
    with pytest.raises(ProtocolSimError, match="stalled"):
        run_game(sim, rng)
    assert sim.machines[silent].writers() == others  # it holds its own result only
    sim.clock += sim.machines[0].timeout + 1
    for seat in range(3):
        sim.events[seat].extend(sim.machines[seat].tick(sim.clock))
        sim.flush(seat)
    sim.deliver_all()  # the votes: the certificate at every seat, the silent one too
    assert any(isinstance(e, SeatSilent) for e in sim.events[silent])
    sim.bus.allow = None
    for dst, frame in held:  # their results at the old head: stale now
        sim.events[dst].extend(sim.machines[dst].receive(frame, sim.clock))
        sim.flush(dst)
    sim.deliver_all()
    # Nobody else asked for a change: the hand is signed without one and hand 2 begins, on
    # one chain at every seat (the old round kept its request and ended the segment there).
    assert [m.seat_change for m in sim.machines] == [None, None, None]
    assert [m.hand for m in sim.machines] == [2, 2, 2]
    assert sim.machines[silent].records == sim.machines[0].records == sim.machines[1].records
