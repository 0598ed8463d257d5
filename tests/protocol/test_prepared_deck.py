"""The next hand's deck is prepared while a hand is played (spec/protocol.md §2.9, P-53..P-55):
where its setup is signed, where the hand goes on after it, what a cheat in it costs, and when
a prepared deck is thrown away."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from hostile import HostileTable, decode
from seat_change_sim import next_segment, play_segment

from dealerless.client.bots import bot_for
from dealerless.client.protocol_sim import ProtocolGame, run_game, start_game
from dealerless.protocol.crypto.group import N
from dealerless.protocol.messages import SignedMessage
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.chain import JOIN_LABEL, prepare_anchor
from dealerless.protocol.table.events import HandEnded, HandStarted, SeatSilent
from dealerless.protocol.table.votes import ABORT_LABEL, TIMEOUT_LABEL, certificate_digest

HOSTILE = 1


def bot_for_game(sim: ProtocolGame):  # type: ignore[no-untyped-def]
    return bot_for(sim.table.game.game)


SETUP = ("key-commit", "key-reveal", "shuffle")


def own_prepared(machine: TableMachine, hand: int) -> list[SignedMessage]:
    """The frames ``machine`` wrote of hand ``hand``'s prepared setup (P-53)."""
    return [decode(f) for deck in machine.next_hand.preparations.for_hand(hand) for f in deck.own]


def hand_frames(machine: TableMachine, hand: int) -> list[SignedMessage]:
    return [m for m in map(decode, machine.records) if m.hand == hand]


def hand_start(machine: TableMachine, hand: int) -> bytes:
    """The head hand ``hand`` started at: the last head of the hand before (its result round,
    or the configuration round's last signature before hand 1)."""
    before = hand_frames(machine, hand - 1)
    last = before[-1]
    if last.kind == "config-sign":
        return last.digest
    results = [m for m in before if m.prev == last.prev and m.kind == last.kind]
    assert last.kind == "result", "the hand before ended with its result round"
    h = hashlib.sha256(b"dealerless/round")
    for m in results:
        h.update(hashlib.sha256(m.frame).digest())
    return h.digest()


def assert_result_round_at_the_join(machine: TableMachine, hand: int) -> None:
    """Hand ``hand`` (prepared) ended in its setup by a certificate: its result round is signed
    at the join of the hand's start and the certificate's head, never at that head (P-54; a
    result there would not depend on how the hand before ended)."""
    frames = hand_frames(machine, hand)
    first = next(i for i, m in enumerate(frames) if m.kind in ("timeout-vote", "abort-vote"))
    kind, anchor = frames[first].kind, frames[first].prev
    votes = [m for m in frames[first:] if m.kind == kind and m.prev == anchor]
    assert {m.kind for m in frames[:first]} <= set(SETUP)
    label = TIMEOUT_LABEL if kind == "timeout-vote" else ABORT_LABEL
    head = certificate_digest(label, [m.frame for m in votes])
    join = hashlib.sha256(JOIN_LABEL + hand_start(machine, hand) + head).digest()
    results = [m for m in frames if m.kind == "result"]
    assert results and {m.prev for m in results} == {join}, f"hand {hand}"


def checked_prepared_hands(sim: ProtocolGame) -> int:
    """Check where every hand's setup of a played game is signed (P-53) and where the hand goes
    on after it (P-54); return how many hands had a prepared setup."""
    ref = sim.machines[0]
    hands = {m.hand for m in map(decode, ref.records)}
    first = hand_frames(ref, 1)
    assert {m.prev for m in first if m.kind == "key-commit"} == {hand_start(ref, 1)}
    prepared = 0
    for hand in sorted(hands)[2:]:  # hand 0 is the configuration round, hand 1 draws the dealer
        frames = hand_frames(ref, hand)
        setup = [m for m in frames if m.kind in SETUP]
        commits = [m for m in setup if m.kind == "key-commit"]
        before = [m for m in hand_frames(ref, hand - 1) if m.kind == "key-commit"]
        if {m.seat for m in commits} != {m.seat for m in before}:
            # Other seats are dealt in (one left the game): set up at the hand's own start.
            assert {m.prev for m in commits} == {hand_start(ref, hand)}
            continue
        prepared += 1
        anchor = prepare_anchor(hand_start(ref, hand - 1))
        assert {m.prev for m in commits} == {anchor}, f"hand {hand}"
        # Every setup frame of the hand comes right after the result round of the hand before.
        assert [m.kind for m in frames[: len(setup)]] == [m.kind for m in setup]
        last_shuffle = setup[-1]
        assert last_shuffle.kind == "shuffle"
        after = frames[len(setup)]
        join = hashlib.sha256(JOIN_LABEL + hand_start(ref, hand) + last_shuffle.digest).digest()
        assert after.prev == join and after.kind == "shares", f"hand {hand}"
    assert all(m.records == ref.records for m in sim.machines)
    assert not sim.violations()
    return prepared


# covers: P-53, P-54
def test_the_setup_is_signed_on_from_the_hand_before_and_the_deal_on_the_join() -> None:
    # The deal comes from fresh keys, so a game's length varies: a short Tuppen game may have a
    # single prepared hand. Play games until one had two; every game played is checked whole.
    rng = random.Random(5)
    most = 0
    for _ in range(6):
        sim = start_game(make_config("tuppen", 3), rng)
        run_game(sim, rng)
        most = max(most, checked_prepared_hands(sim))
        if most >= 2:
            break
    assert most >= 2


# covers: P-53
def test_the_setup_is_written_while_the_hand_before_is_played() -> None:
    """Every seat's setup frames of hand 2 leave before hand 1's last card: once hand 1's result
    is signed, only hand 2's deal remains. Its node knows them for frames ahead of the running
    hand (a paced relay sends those after the running hand's moves), and no other."""
    rng = random.Random(6)
    sim = start_game(make_config("tuppen", 3), rng)
    sent_in: dict[bytes, int] = {}  # frame -> the hand its sender was in when it sent it
    ahead: dict[bytes, bool] = {}  # frame -> its sender took it for one of the next hand's
    flush = sim.flush

    def noting(seat: int) -> None:
        machine = sim.machines[seat]
        for frame in machine._outbox:
            sent_in.setdefault(frame, machine.hand)
            ahead.setdefault(frame, machine.frame_ahead(frame))
        flush(seat)

    sim.flush = noting  # type: ignore[method-assign]
    run_game(sim, rng)
    ref = sim.machines[0]
    setup = [m for m in hand_frames(ref, 2) if m.kind in SETUP]
    assert len(setup) == 3 + 3 + 3
    assert all(sent_in[m.frame] == 1 for m in setup)
    results_1 = [m for m in hand_frames(ref, 1) if m.kind == "result"]
    assert all(sent_in[m.frame] == 1 for m in results_1)
    assert all(ahead[m.frame] for m in setup)
    assert not any(ahead[m.frame] for m in hand_frames(ref, 1) if m.frame in ahead)
    assert not any(ahead[m.frame] for m in hand_frames(ref, 2) if m.kind not in SETUP)


def _bad_proof(frame: bytes) -> dict[str, Any]:
    import copy

    body: dict[str, Any] = copy.deepcopy(dict(decode(frame).body))
    scalars = body["shuffle"]["proof"]["s"]
    scalars[0] = ((int.from_bytes(scalars[0], "big") + 1) % N).to_bytes(32, "big")
    return body


def _scores_after(ht: HostileTable, hand: int) -> tuple[int, ...]:
    ends = [e for e in ht.events(ht.honest[0]) if isinstance(e, HandEnded)]
    end = next(e for e in ends if e.result.hand_number == hand)
    return tuple(end.scores)


# covers: P-55
def test_a_bad_prepared_shuffle_sent_during_the_hand_before_convicts_in_its_own_hand() -> None:
    ht = HostileTable(make_config("tuppen", 3), 12, HOSTILE)
    ht.hold_when(lambda m: m.kind == "shuffle" and m.hand == 2, from_hand=2)
    assert ht.play(lambda t: bool(t.held))
    assert ht.ref.hand == 1  # hand 1 is still played
    bad = ht.resign(ht.held[0], body=_bad_proof(ht.held[0]))
    ht.send(bad)
    # Kept, not judged yet: nothing of hand 1 changes for it.
    assert not any(ht.violations(s) for s in ht.honest)
    ht.play(lambda t: False)  # until hand 3 waits for the hostile seat's held frames
    before = _scores_after(ht, 1)
    ht.refused_and_aborted(bad, before, hand=2)
    started = [e.hand for e in ht.events(ht.honest[0]) if isinstance(e, HandStarted)]
    assert started[:2] == [1, 2]
    assert_result_round_at_the_join(ht.ref, 2)


# covers: P-55
def test_a_second_prepared_commit_is_equivocation_in_its_own_hand() -> None:
    ht = HostileTable(make_config("tuppen", 3), 13, HOSTILE)
    ht.hold_when(lambda m: m.kind == "key-commit" and m.hand == 2, from_hand=2)
    assert ht.play(lambda t: bool(t.held))
    genuine = ht.held[0]
    commit = dict(decode(genuine).body["commit"])
    second = ht.resign(genuine, body={"commit": {**commit, "commit": bytes(32)}})
    ht.send(genuine)
    ht.send(second)
    assert not any(ht.violations(s) for s in ht.honest)  # hand 1 goes on untouched
    ht.play(lambda t: False)
    for seat in ht.honest:
        assert any(
            v.culprit == HOSTILE and set(v.evidence) == {genuine, second}
            for v in ht.violations(seat)
        )
    ht.assert_hand_aborted(HOSTILE, 2, _scores_after(ht, 1))
    assert_result_round_at_the_join(ht.ref, 2)


# covers: P-55
def test_a_seat_silent_in_the_prepared_setup_is_silent_only_once_its_hand_started() -> None:
    """The hostile seat plays hand 1 but writes nothing of hand 2's prepared setup. A long
    hand 1 is no silence in hand 2: the step deadline runs from hand 2's start, and only then
    is the seat timed out; the hand ends for silence as any hand does (no cheat)."""
    ht = HostileTable(make_config("tuppen", 3), 14, HOSTILE)
    ht.hold_when(lambda m: m.hand == 2, from_hand=2)
    step = ht.step_timeout_ms / 1000.0
    assert ht.play(lambda t: t.ref.hand == 1 and t.ref.phase == "play")
    ht.sim.clock += 10 * step  # hand 1 takes long; no machine is asked the time meanwhile
    ht.play(lambda t: False)  # hand 1 ends; hand 2 waits for the hostile seat's key commit
    assert ht.ref.hand == 2 and ht.ref.phase == "key-commit"
    assert ht.ref.arbiter() == HOSTILE
    ht.tick(ht.sim.clock + 0.5 * step)
    assert not [e for s in ht.honest for e in ht.events(s) if isinstance(e, SeatSilent)]
    ht.tick_past_deadline()
    for seat in ht.honest:
        silent = [e for e in ht.events(seat) if isinstance(e, SeatSilent)]
        assert [(e.seat, e.hand) for e in silent] == [(HOSTILE, 2)]
        ends = [
            e for e in ht.events(seat) if isinstance(e, HandEnded) and e.result.hand_number == 2
        ]
        assert ends and ends[0].silent == HOSTILE and ends[0].culprit is None
        assert not ht.violations(seat)
    ht.assert_converged()
    assert_result_round_at_the_join(ht.ref, 2)


# covers: P-55
def test_a_seat_that_lost_its_prepared_share_plays_that_hand_blind() -> None:
    """A seat restarts in hand 1 without the key share it made to prepare hand 2 (lost with the
    disk); its key commitment for hand 2 is out there. It writes nothing more of that setup
    (a second commitment would be an equivocation); its own commitment, sent back by a peer,
    tells it the share is lost, and hand 2 is played blind: the others time it out, no cheat."""
    from dealerless.protocol.table.events import ShareMissing

    rng = random.Random(8)
    sim = start_game(make_config("tuppen", 3), rng)
    victim = 2
    while True:  # until the victim's key commitment of hand 2 has left
        sim.deliver_all()
        mine = own_prepared(sim.machines[victim], 2)
        if mine:
            break
        mover = next(s for s, m in enumerate(sim.machines) if m.my_turn_to_act())
        machine = sim.machines[mover]
        action = bot_for_game(sim)(machine.engine, mover, rng, True)
        sim.events[mover].extend(machine.act(action, sim.clock))
        sim.flush(mover)
    sim.deliver_all()
    secrets = {h: s for h, s in sim.secrets[victim].items() if h != 2}  # the share is gone
    old = sim.machines[victim]
    sim.machines[victim] = back = TableMachine.resume(
        sim.table, sim.keys[victim], list(old.records), secrets=secrets, now=sim.clock
    )
    out = [f for f in back.take_outgoing() if decode(f).hand == 2]
    assert out == []  # nothing of hand 2's setup signed again
    for frame in sim.machines[0].prepared_frames():  # a peer's answer to its count
        back.receive(frame, sim.clock)
    assert [f for f in back.take_outgoing() if decode(f).hand == 2] == []
    sim.flush(victim)
    while not all((m.hand >= 2 and m.phase == "play") or m.over for m in sim.machines[:2]):
        sim.deliver_all()
        movers = [s for s, m in enumerate(sim.machines) if m.my_turn_to_act()]
        if movers:
            mover = movers[0]
            machine = sim.machines[mover]
            action = bot_for_game(sim)(machine.engine, mover, rng, True)
            sim.events[mover].extend(machine.act(action, sim.clock))
            sim.flush(mover)
            continue
        sim.clock += sim.table.step_timeout_ms / 1000.0 + 1
        for seat, machine in enumerate(sim.machines):
            sim.events[seat].extend(machine.tick(sim.clock))
            sim.flush(seat)
        if sim.machines[0].hand > 2:
            break
    assert any(isinstance(e, ShareMissing) and e.hand == 2 for e in sim.events[victim])
    assert not [v for v in sim.violations() if v.culprit is not None]


# covers: P-55
def test_a_seat_change_between_hands_throws_the_prepared_deck_away() -> None:
    """Hand 2 was prepared while hand 1 was played; a seat asked for a change, so hand 2 is the
    first hand of the next segment: it sets up at its own start with new key shares."""
    rng = random.Random(3)
    sim = start_game(make_config("limit-tuppen", 3, {"mode": "cash"}), rng)
    play_segment(sim, rng, {0: "reseat"})
    assert all(m.over and m.hand == 1 for m in sim.machines)
    prepared = [m for machine in sim.machines for m in own_prepared(machine, 2)]
    commits = {m.seat: m for m in prepared if m.kind == "key-commit" and m.hand == 2}
    assert set(commits) == {0, 1, 2}, "hand 2 was prepared during hand 1"
    second = next_segment(sim, rng)
    play_segment(second, rng, {})
    records = [decode(f) for f in second.machines[0].records]
    config_end = [m for m in records if m.kind == "config-sign"][-1]
    new_commits = [m for m in records if m.kind == "key-commit" and m.hand == 2]
    assert {m.prev for m in new_commits} == {config_end.digest}  # at the segment's start
    for m in new_commits:
        assert m.body["commit"] != commits[m.seat].body["commit"]  # a new key share
    assert not [m for m in records if m.frame in {c.frame for c in commits.values()}]
