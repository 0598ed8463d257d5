"""Fair play against a coalition (issue 11): votes without evidence, instant timeouts, timeouts
against a seat that did not have to write, votes anchored at the first head of a hand, and
random well-signed votes from k of n seats. The colluders' own machines play on honestly; the
test signs extra votes with their keys and hands them to the honest machines.

In every case no honest seat is charged, the honest seats agree, and an auditor agrees too.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from dealerless.client.bots import bot_for
from dealerless.client.protocol_sim import Bus, ProtocolGame, make_table, run_game, start_game
from dealerless.protocol.messages import decode_message, sign_message
from dealerless.protocol.rules.base import GameConfig
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.audit import audit_records
from dealerless.protocol.table.events import (
    HandEnded,
    LocalProtocolError,
    SeatSilent,
    Violation,
)
from dealerless.protocol.table.kinds import TABLE_REGISTRY

GAMES = {
    ("tuppen", 2): make_config("tuppen", 2),
    ("tuppen", 3): make_config("tuppen", 3),
    ("limit-tuppen", 3): make_config("limit-tuppen", 3, {"hands": 3}),
    ("belote", 4): make_config("belote", 4, {"target": 150}),
}


def forge(
    sim: ProtocolGame,
    voter: int,
    kind: str,
    body: dict[str, object],
    at: TableMachine,
    head: bytes | None = None,
) -> bytes:
    """A vote signed with a colluder's real key at a head of the honest machine ``at``."""
    prev = at.head if head is None else head
    return sign_message(
        sim.keys[voter],
        table_id=sim.table.table_id,
        hand=at.hand,
        seq=at.seq_after(prev),
        prev=prev,
        seat=voter,
        kind=kind,
        body=body,
        registry=TABLE_REGISTRY,
    ).frame


def abort_vote(
    sim: ProtocolGame,
    voter: int,
    culprit: int,
    at: TableMachine,
    evidence: Iterable[bytes] = (),
    head: bytes | None = None,
) -> bytes:
    anchor = at.head if head is None else head
    body = {"culprit": culprit, "anchor": anchor, "reason": b"I say so", "evidence": list(evidence)}
    return forge(sim, voter, "abort-vote", body, at, anchor)


def timeout_vote(
    sim: ProtocolGame, voter: int, silent: int, at: TableMachine, head: bytes | None = None
) -> bytes:
    anchor = at.head if head is None else head
    return forge(sim, voter, "timeout-vote", {"silent": silent, "head": anchor}, at, anchor)


def give(sim: ProtocolGame, seats: Iterable[int], frames: Iterable[bytes]) -> None:
    batch = list(frames)
    for seat in seats:
        for frame in batch:
            sim.events[seat].extend(sim.machines[seat].receive(frame, sim.clock))
        sim.flush(seat)
    sim.deliver_all()


def to_move(sim: ProtocolGame, seat: int, rng: random.Random) -> bool:
    """Play on (bots) until ``seat`` must choose a rules move; False if the game ended."""
    bot = bot_for(sim.table.game.game)
    for _ in range(5_000):
        sim.deliver_all()
        machine = sim.machines[seat]
        if machine.over:
            return False
        if machine.my_turn_to_act():
            return True
        mover = next((s for s, m in enumerate(sim.machines) if m.my_turn_to_act()), None)
        if mover is None:
            return False
        m = sim.machines[mover]
        sim.events[mover].extend(m.act(bot(m.engine, mover, rng, True), sim.clock))
        sim.flush(mover)
    raise AssertionError("too many moves")


def charged(sim: ProtocolGame, seat: int, honest: Iterable[int]) -> list[str]:
    """Every way an honest peer's machine charged ``seat``: a violation, an abort naming it,
    a silence certificate."""
    out = []
    for h in honest:
        for e in sim.events[h]:
            if isinstance(e, Violation) and e.culprit == seat:
                out.append(f"seat {h}: violation {e.reason}")
            elif isinstance(e, HandEnded) and seat in (e.culprit, e.silent):
                out.append(f"seat {h}: hand {e.result.hand_number} {e.result.reason}")
            elif isinstance(e, SeatSilent) and e.seat == seat:
                out.append(f"seat {h}: silent in {e.phase}")
    return out


def assert_fair_end(sim: ProtocolGame, honest: list[int]) -> None:
    for seat in honest:
        assert not charged(sim, seat, honest), charged(sim, seat, honest)
    hashes = {sim.machines[s].state_hash() for s in honest}
    assert len(hashes) == 1, "honest peers diverged"
    report = audit_records(sim.table, sim.machines[honest[0]].records)
    assert report.ok, report.failure


# ---------------------------------------------------------------- votes without evidence


# covers: P-36
@pytest.mark.parametrize("key", list(GAMES))
def test_every_other_seat_voting_an_abort_without_evidence_convicts_nobody(
    key: tuple[str, int],
) -> None:
    """n-1 colluders (at 2 seats: the one opponent) vote to abort against the last seat, with
    no evidence and with the victim's own valid frames as 'evidence': the certificate is
    complete, and still the victim's machine and an auditor refuse it."""
    game = GAMES[key]
    rng = random.Random(11)
    sim = start_game(game, rng)
    victim = game.players - 1
    colluders = [s for s in range(game.players) if s != victim]
    assert to_move(sim, victim, rng)
    machine = sim.machines[victim]
    before, hand = machine.state_hash(), machine.hand
    own = [f for f in machine.records if sim.keys[victim].peer_id.raw in f][-1:]
    votes = [abort_vote(sim, c, victim, machine) for c in colluders]
    votes += [abort_vote(sim, c, victim, machine, own, head=machine.head) for c in colluders]
    give(sim, [victim], votes)
    assert machine.state_hash() == before and machine.hand == hand
    assert not [e for e in sim.events[victim] if isinstance(e, HandEnded) and e.aborted]
    # The colluders' version of the transcript (the victim's chain plus the certificate) does
    # not audit: a certificate with nothing proven does not replay.
    forged = audit_records(sim.table, [*machine.records, *sorted(votes[: len(colluders)])])
    assert not forged.ok
    run_game(sim, rng)
    assert_fair_end(sim, [victim])
    # Every voter without evidence signed a false claim, which the victim reports.
    blamed = {e.culprit for e in sim.events[victim] if isinstance(e, Violation)}
    assert blamed == set(colluders)


# covers: P-36
def test_a_bystander_does_not_join_an_abort_it_did_not_verify() -> None:
    """3 seats: one hostile seat votes against a seat that is not even the one to move; the
    honest bystander does not join, and in Limit Tuppen nobody's chips move."""
    game = GAMES[("limit-tuppen", 3)]
    rng = random.Random(12)
    sim = start_game(game, rng)
    hostile, victim, bystander = 0, 1, 2
    assert to_move(sim, bystander, rng)
    chips = sim.machines[victim].engine.scores()
    head = sim.machines[bystander].head
    own = [f for f in sim.machines[victim].records if sim.keys[victim].peer_id.raw in f][-1:]
    give(sim, [victim, bystander], [abort_vote(sim, hostile, victim, sim.machines[bystander], own)])
    assert bystander not in sim.machines[bystander].votes.abort.get((victim, head), {})
    assert sim.machines[victim].engine.scores() == chips
    run_game(sim, rng)
    assert_fair_end(sim, [victim, bystander])


# ---------------------------------------------------------------- timeouts


# covers: P-29
@pytest.mark.parametrize("players", [2, 3])
def test_an_instant_timeout_is_not_taken_before_the_own_deadline(players: int) -> None:
    """Every other seat votes the victim silent at clock 0 of its move: the victim takes
    nothing before its own deadline. At 2 seats (one opponent's word) its move in time refutes
    the votes for good; with two or more others signing, their view decides after the
    deadline, and it costs the victim only the bounded settlement of silence, never a cheat."""
    game = GAMES[("tuppen", players)]
    rng = random.Random(13)
    sim = start_game(game, rng)
    victim = 0
    colluders = [s for s in range(players) if s != victim]
    assert to_move(sim, victim, rng)
    machine = sim.machines[victim]
    head = machine.head
    give(sim, [victim], [timeout_vote(sim, c, victim, machine) for c in colluders])
    sim.clock += machine.timeout / 2
    assert machine.tick(sim.clock) == [] and machine.head == head
    move = bot_for(game.game)(machine.engine, victim, rng, True)
    assert move is not None
    sim.events[victim].extend(machine.act(move, sim.clock))
    sim.flush(victim)
    assert machine.moved_in_time(head, victim) and machine.head != head
    assert not [e for e in sim.events[victim] if isinstance(e, SeatSilent)]  # before: nothing
    # Past the deadline of the head the votes name (not yet of the next one).
    sim.clock = machine.step_since + 0.7 * machine.timeout
    sim.events[victim].extend(machine.tick(sim.clock))
    silent = [e for e in sim.events[victim] if isinstance(e, SeatSilent)]
    if players == 2:
        assert not silent
        sim.clock = 0.0
        run_game(sim, rng)
        assert_fair_end(sim, [victim])
    else:
        assert [e.seat for e in silent] == [victim]
        assert not [e for e in sim.events[victim] if isinstance(e, Violation)]
        assert not [
            e for e in sim.events[victim] if isinstance(e, HandEnded) and e.culprit == victim
        ]


# covers: P-29
def test_the_accused_takes_a_real_timeout_once_its_own_deadline_passed() -> None:
    """The check above is a deadline, not immunity: a victim that does not move by its own
    deadline takes the certificate (the bounded settlement, never a cheat)."""
    game = GAMES[("tuppen", 2)]
    rng = random.Random(14)
    sim = start_game(game, rng)
    assert to_move(sim, 0, rng)
    machine = sim.machines[0]
    give(sim, [0], [timeout_vote(sim, 1, 0, machine)])
    sim.clock += machine.timeout + 1
    sim.events[0].extend(machine.tick(sim.clock))
    assert [e for e in sim.events[0] if isinstance(e, SeatSilent) and e.seat == 0]
    assert not [e for e in sim.events[0] if isinstance(e, Violation) and e.culprit == 0]


# covers: P-28
def test_timeout_votes_against_a_seat_that_need_not_write_count_for_nothing() -> None:
    game = GAMES[("tuppen", 3)]
    rng = random.Random(15)
    sim = start_game(game, rng)
    assert to_move(sim, 1, rng)
    victim = 2  # not the one to move
    machine = sim.machines[victim]
    give(sim, [victim], [timeout_vote(sim, c, victim, machine) for c in (0, 1)])
    sim.clock += 2 * machine.timeout
    sim.events[victim].extend(machine.tick(sim.clock))
    assert not [e for e in sim.events[victim] if isinstance(e, SeatSilent) and e.seat == victim]
    sim.clock = 0.0
    run_game(sim, rng)
    assert_fair_end(sim, [victim])


def test_votes_anchored_at_the_first_head_of_a_hand_do_not_undo_it() -> None:
    """The losers hold back their result signatures and vote, at the first head of the hand,
    that the winner was silent and that it cheated: the result stands for the winner."""
    game = GAMES[("tuppen", 3)]
    rng = random.Random(16)
    sim = start_game(game, rng)
    held: list[tuple[int, bytes]] = []

    def hold_results(src: int, dst: int, frame: bytes) -> bool:
        if decode_message(frame, registry=TABLE_REGISTRY).kind == "result":
            held.append((src, frame))
            return False
        return True

    sim.bus.allow = hold_results  # nobody's result signature gets through for now
    bot = bot_for(game.game)
    ref = sim.machines[0]
    sim.deliver_all()
    while ref.phase != "result":
        mover = next(s for s, m in enumerate(sim.machines) if m.my_turn_to_act())
        m = sim.machines[mover]
        sim.events[mover].extend(m.act(bot(m.engine, mover, rng, True), sim.clock))
        sim.flush(mover)
        sim.deliver_all()
    result = ref.engine.hand_result
    assert result is not None
    winner = result.winners[0] if result.winners else 0
    machine = sim.machines[winner]
    mark = machine.chain.hand_mark
    first = mark.head if mark is not None else machine.head
    others = [s for s in range(3) if s != winner]
    own = next(f for f in machine.records if sim.keys[winner].peer_id.raw in f)
    votes = [timeout_vote(sim, c, winner, machine, head=first) for c in others]
    votes += [abort_vote(sim, c, winner, machine, [own], head=first) for c in others]
    give(sim, [winner], votes)
    assert not [e for e in sim.events[winner] if isinstance(e, HandEnded) and e.aborted]
    sim.bus.allow = None
    for src, frame in held:
        sim.bus.broadcast(src, [frame])
    run_game(sim, rng)
    assert_fair_end(sim, [winner])


# ---------------------------------------------------------------- random coalitions


def _random_vote(
    sim: ProtocolGame, rng: random.Random, colluders: list[int], at: TableMachine
) -> bytes:
    heads = [at.head, *at.chain.hand_heads(), bytes(rng.randbytes(32))]
    head = rng.choice(heads)
    voter = rng.choice(colluders)
    accused = rng.choice([s for s in range(sim.table.players) if s != voter])
    if head not in at.history:
        hand, seq = at.hand, rng.randrange(200)
    else:
        hand, seq = at.hand, at.seq_after(head) if at.can_rollback_to(head) else at.seq
    if rng.random() < 0.5:
        kind, body = "timeout-vote", {"silent": accused, "head": head}
    else:
        pool = [f for f in at.records if sim.keys[accused].peer_id.raw in f]
        evidence = rng.sample(pool, min(len(pool), rng.randrange(3)))
        if rng.random() < 0.3:
            evidence.append(rng.randbytes(rng.randrange(1, 300)))
        body = {"culprit": accused, "anchor": head, "reason": b"random", "evidence": evidence[:2]}
        kind = "abort-vote"
    return sign_message(
        sim.keys[voter],
        table_id=sim.table.table_id,
        hand=hand,
        seq=seq,
        prev=head,
        seat=voter,
        kind=kind,
        body=body,
        registry=TABLE_REGISTRY,
    ).frame


COALITIONS = [(key, k) for key in GAMES for k in range(1, GAMES[key].players)]


@pytest.mark.parametrize(("key", "k"), COALITIONS)
def test_random_well_signed_votes_from_k_of_n_seats_never_charge_an_honest_seat(
    key: tuple[str, int], k: int
) -> None:
    game: GameConfig = GAMES[key]
    rng = random.Random(1000 + 10 * game.players + k)
    sim = start_game(game, rng)
    colluders = rng.sample(range(game.players), k)
    honest = [s for s in range(game.players) if s not in colluders]
    bot = bot_for(game.game)
    for _ in range(5_000):
        sim.deliver_all()
        if all(sim.machines[s].over for s in honest):
            break
        if rng.random() < 0.4:
            target = rng.choice(honest)
            votes = [_random_vote(sim, rng, colluders, sim.machines[target])]
            give(sim, honest, votes)
        sim.clock += rng.random()  # time passes, never past a deadline
        for seat in honest:
            sim.events[seat].extend(sim.machines[seat].tick(sim.clock))
            sim.flush(seat)
        mover = next((s for s, m in enumerate(sim.machines) if m.my_turn_to_act()), None)
        if mover is None:
            continue
        m = sim.machines[mover]
        try:
            sim.events[mover].extend(m.act(bot(m.engine, mover, rng, True), sim.clock))
        except LocalProtocolError:
            continue
        sim.flush(mover)
    assert all(sim.machines[s].over for s in honest), "the honest seats did not finish"
    assert_fair_end(sim, honest)


# covers: P-3
def test_the_first_dealer_is_drawn_from_the_joint_key_not_the_configuration() -> None:
    """The host chooses the table id (so the configuration digest): the first dealer follows
    from the first hand's joint key, to which every seat committed before any revealed."""
    from dealerless.protocol.table.dealer import first_dealer

    game = GAMES[("tuppen", 3)]
    dealers = set()
    table, keys = make_table(game, table_id=bytes(16))  # one configuration, dealt 8 times
    for seed in range(8):
        rng = random.Random(seed)
        machines = [TableMachine(table, k, now=0.0) for k in keys]
        sim = ProtocolGame(table, keys, machines, Bus(3, rng), [[] for _ in keys])
        for s in range(3):
            sim.flush(s)
        sim.deliver_all()
        m = sim.machines[0]
        assert m.deck is not None and m.deck.joint is not None
        assert m.engine.dealer == first_dealer(table, m.deck.joint.encode())
        assert {s.engine.dealer for s in sim.machines} == {m.engine.dealer}
        dealers.add(m.engine.dealer)
    assert len(dealers) > 1  # not fixed by the configuration (all alike: 1 in 3^7)
