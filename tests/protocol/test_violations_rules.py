"""Negative tests of the table protocol: moves the rules forbid, false claims (Tupp, dirty
laundry) and silence at every step kind (timeout certificates)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hostile import HostileTable, decode

from dealerless.protocol.cards import Suit
from dealerless.protocol.crypto import decode_point, encode_point, g
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.events import (
    ActionApplied,
    HandEnded,
    HandSigned,
    SeatSilent,
    TableNotStarted,
    Violation,
)
from dealerless.protocol.table.hand_deck import OPEN

HOSTILE = 1


def reach(
    until: Callable[[HostileTable], bool],
    game: str = "tuppen",
    players: int = 3,
    *,
    first_seed: int = 0,
    tries: int = 40,
) -> HostileTable:
    for seed in range(first_seed, first_seed + tries):
        ht = HostileTable(make_config(game, players), seed, HOSTILE)
        if ht.play(until):
            return ht
    raise AssertionError("situation not reached")


def send_refused(ht: HostileTable, frame: bytes) -> None:
    ht.hold_now()
    before, hand = ht.scores(), ht.ref.hand
    ht.send(frame)
    ht.refused_and_aborted(frame, before, hand=hand)


def illegal_for_ref(ht: HostileTable, action: Action) -> str:
    try:
        ht.ref.engine.verify(action)
    except Exception as exc:
        return str(exc)
    raise AssertionError(f"{action} is legal")


# ---------------------------------------------------------------- moves the rules forbid


def _act_hostile(ht: HostileTable, action: Action) -> None:
    me = ht.machines[HOSTILE]
    ht.sim.events[HOSTILE].extend(me.act(action, ht.clock))
    ht.sim.flush(HOSTILE)
    ht.pump()


@pytest.mark.parametrize("game", ["tuppen", "limit-tuppen"])
def test_knocking_twice_in_a_row(game: str) -> None:
    def knock_of(engine: Engine) -> Action | None:
        return next((a for a in engine.legal_actions(HOSTILE) if a.kind is ActionKind.KNOCK), None)

    for seed in range(60):
        ht = HostileTable(make_config(game, 3), seed, HOSTILE)
        if not ht.play(lambda t: t.hostile_to_act() and knock_of(t.ref.engine) is not None):
            continue
        knock = knock_of(ht.machines[HOSTILE].engine)
        assert knock is not None
        _act_hostile(ht, knock)
        if not ht.play(lambda t: t.hostile_to_act() or t.ref.phase != "play"):
            continue
        if not ht.hostile_to_act() or ht.ref.hand != 1:
            continue
        if ht.ref.engine.can(knock) or "twice" not in illegal_for_ref(ht, knock):
            continue
        send_refused(ht, ht.craft_action(knock))
        return
    raise AssertionError("situation not reached")


def _max_amount(engine: Engine, kind: ActionKind) -> int | None:
    amounts = [a.amount for a in engine.legal_actions(HOSTILE) if a.kind is kind and a.amount]
    return max(amounts) if amounts else None


# covers: W-9
@pytest.mark.parametrize(
    ("game", "kind", "why"),
    [
        ("no-limit-tuppen", ActionKind.KNOCK, "more than the stack allows"),
        ("pot-limit-tuppen", ActionKind.KNOCK, "more than the pot limit"),
        ("pottuppen", ActionKind.BET, "more than the pot"),
    ],
)
def test_betting_past_the_limit(game: str, kind: ActionKind, why: str) -> None:
    ht = reach(lambda t: t.hostile_to_act() and _max_amount(t.ref.engine, kind) is not None, game)
    top = _max_amount(ht.ref.engine, kind)
    assert top is not None
    action = Action(kind, HOSTILE, amount=top + 1)
    assert not ht.ref.engine.can(action), why
    send_refused(ht, ht.craft_action(action))


# covers: W-3
def test_knock_with_an_amount_in_limit_tuppen() -> None:
    """Limit Tuppen's knock has a fixed size: a knock naming an amount is refused."""
    ht = reach(
        lambda t: (
            t.hostile_to_act()
            and any(a.kind is ActionKind.KNOCK for a in t.ref.engine.legal_actions(HOSTILE))
        ),
        "limit-tuppen",
    )
    action = Action(ActionKind.KNOCK, HOSTILE, amount=10**6)
    assert not ht.ref.engine.can(action)
    send_refused(ht, ht.craft_action(action))


def test_belote_bid_out_of_turn() -> None:
    ht = reach(
        lambda t: (
            t.ref.phase == "play"
            and t.ref.arbiter() not in (None, HOSTILE)
            and any(
                a.kind is ActionKind.BID for a in t.ref.engine.legal_actions(t.ref.arbiter() or 0)
            )
        ),
        "belote",
        4,
    )
    bid = next(
        a for a in ht.ref.engine.legal_actions(ht.ref.arbiter() or 0) if a.kind is ActionKind.BID
    )
    frame = ht.craft_action(Action(ActionKind.BID, HOSTILE, suit=bid.suit))
    send_refused(ht, frame)


def test_belote_bid_of_a_suit_the_rules_do_not_offer() -> None:
    ht = reach(
        lambda t: (
            t.hostile_to_act()
            and any(a.kind is ActionKind.BID for a in t.ref.engine.legal_actions(HOSTILE))
        ),
        "belote",
        4,
    )
    offered = {a.suit for a in ht.ref.engine.legal_actions(HOSTILE) if a.kind is ActionKind.BID}
    bid = next(Action(ActionKind.BID, HOSTILE, suit=s) for s in Suit if s not in offered)
    assert not ht.ref.engine.can(bid)
    send_refused(ht, ht.craft_action(bid))


# covers: W-2
def test_action_naming_another_seat_inside_the_body() -> None:
    ht = reach(lambda t: t.hostile_to_act())
    action = next(a for a in ht.ref.engine.legal_actions(HOSTILE) if a.kind is not ActionKind.PLAY)
    forged = Action(action.kind, 2, action.card, action.amount, action.suit, action.cards)
    send_refused(ht, ht.craft("action", {"action": forged.to_wire()}))


# covers: P-24
def test_card_play_carrying_proofs_on_a_non_play_move() -> None:
    ht = reach(lambda t: t.hostile_to_act())
    action = next(a for a in ht.ref.engine.legal_actions(HOSTILE) if a.kind is not ActionKind.PLAY)
    frame = ht.craft("action", {"action": action.to_wire(), "nonmember": []})
    send_refused(ht, frame)


# ---------------------------------------------------------------- false claims


def _reveal_frame(ht: HostileTable) -> bytes:
    due = ht.ref.this_hand.reveal_due
    assert due is not None and due.seat == HOSTILE
    deck = ht.machines[HOSTILE].deck
    assert deck is not None
    return ht.craft("reveal", {"batch": deck.make_share_batch(due.positions, OPEN)})


# covers: P-20
def test_false_tupp_claim_is_refused_when_the_reveal_shows_no_four_of_a_kind() -> None:
    tupp = Action(ActionKind.TUPP, HOSTILE)
    ht = reach(
        lambda t: (
            t.hostile_to_act()
            and t.ref.engine.can(tupp)  # a claim the public cannot refute yet ...
            and not t.machines[HOSTILE].engine.can(tupp)  # ... but false
        )
    )
    ht.hold_now()
    before, hand = ht.scores(), ht.ref.hand
    claim = ht.craft_action(tupp)
    ht.send(claim)  # a legal claim as far as the public knows: accepted
    assert ht.ref.phase == "reveal" and ht.ref.this_hand.reveal_due is not None
    # the hostile machine must follow the chain to make its reveal shares
    ht.deliver(HOSTILE, claim)
    reveal = _reveal_frame(ht)
    ht.send(reveal)
    ht.refused_and_aborted(reveal, before, hand=hand)
    assert any("Tupp" in v.reason for v in ht.violations(ht.honest[0]))


def _laundry_checked(ht: HostileTable) -> bool:
    """Drive to: the hostile seat declared dirty laundry and an honest seat checked it."""
    laundry = Action(ActionKind.LAUNDRY, HOSTILE)
    if not ht.play(lambda t: t.hostile_to_act() and t.ref.engine.can(laundry)):
        return False
    _act_hostile(ht, laundry)
    for _ in range(5):
        arbiter = ht.ref.arbiter()
        if ht.ref.phase == "reveal":
            return True
        if ht.ref.phase != "play" or arbiter is None or arbiter == HOSTILE:
            return False
        check = Action(ActionKind.CHECK, arbiter)
        machine = ht.machines[arbiter]
        if not machine.engine.can(check):
            return False
        ht.sim.events[arbiter].extend(machine.act(check, ht.clock))
        ht.sim.flush(arbiter)
        ht.pump()
    return ht.ref.phase == "reveal"


def _at_laundry_check() -> HostileTable:
    for seed in range(60):
        ht = HostileTable(make_config("tuppen", 3), seed, HOSTILE)
        ht.hold_when(lambda m: m.kind == "reveal")
        if _laundry_checked(ht):
            assert (
                ht.ref.this_hand.reveal_due is not None
                and ht.ref.this_hand.reveal_due.seat == HOSTILE
            )
            return ht
    raise AssertionError("situation not reached")


# covers: P-33
def test_dirty_laundry_claim_that_refuses_to_be_checked_times_out_and_aborts() -> None:
    ht = _at_laundry_check()
    before, hand = ht.scores(), ht.ref.hand
    ht.tick_past_deadline()
    ht.assert_hand_aborted(HOSTILE, hand, before)


# covers: W-5
def test_dirty_laundry_reveal_with_a_wrong_share_is_refused() -> None:
    ht = _at_laundry_check()
    genuine = ht.held[0]
    batch = dict(decode(genuine).body["batch"])
    shares = list(batch["shares"])
    # another valid point in place of the first share, the proof unchanged
    shares[0] = encode_point(decode_point(shares[0]) + g())
    batch["shares"] = shares
    before, hand = ht.scores(), ht.ref.hand
    frame = ht.resign(genuine, body={"batch": batch})
    ht.send(frame)
    ht.refused_and_aborted(frame, before, hand=hand)
    for seat in ht.honest:
        reasons = [v.reason for v in ht.violations(seat) if frame in v.evidence]
        assert any("do not verify" in r for r in reasons), reasons


# ---------------------------------------------------------------- silence at every step


# covers: P-33
@pytest.mark.parametrize("kind", ["key-commit", "key-reveal", "shuffle", "shares"])
def test_silence_at_a_deck_step_aborts_the_hand(kind: str) -> None:
    ht = HostileTable(make_config("tuppen", 3), 21, HOSTILE)
    ht.hold_when(lambda m: m.kind == kind)
    ht.play(lambda t: False)
    assert ht.ref.arbiter() == HOSTILE
    before, hand = ht.scores(), ht.ref.hand
    ht.tick_past_deadline()
    ht.assert_hand_aborted(HOSTILE, hand, before)
    assert not any(v.culprit not in (None, HOSTILE) for s in ht.honest for v in ht.violations(s))


# covers: P-33
def test_silence_at_the_config_signature_means_the_table_does_not_start() -> None:
    ht = HostileTable(make_config("tuppen", 3), 22, HOSTILE)
    ht.hold_when(lambda m: m.kind == "config-sign")
    ht.play(lambda t: False)
    assert ht.ref.phase == "config"
    ht.tick_past_deadline()
    for seat in ht.honest:
        assert ht.machines[seat].over
        assert any(isinstance(e, TableNotStarted) for e in ht.events(seat))
        assert any(isinstance(e, SeatSilent) and e.seat == HOSTILE for e in ht.events(seat))
        assert not ht.violations(seat), "silence is not a violation"
    ht.assert_converged()
    ht.audit()


# covers: P-33
def test_silence_at_the_result_signature_lets_the_result_stand() -> None:
    ht = HostileTable(make_config("tuppen", 3), 23, HOSTILE)
    ht.hold_when(lambda m: m.kind == "result")
    ht.play(lambda t: False)
    assert ht.ref.phase == "result"
    after_hand = ht.scores()
    ht.tick_past_deadline()
    for seat in ht.honest:
        assert any(isinstance(e, HandSigned) and e.hand == 1 for e in ht.events(seat))
        assert ht.machines[seat].hand == 2
    assert ht.scores() == after_hand
    ht.assert_converged()
    ht.audit()


def _timeout_fold_situation(game: str, players: int) -> HostileTable:
    """The hostile seat owes a move for which the rules have a timeout action."""
    for seed in range(60):
        ht = HostileTable(make_config(game, players), 30 + seed, HOSTILE)
        if ht.play(
            lambda t: t.hostile_to_act() and t.ref.engine.timeout_action(HOSTILE) is not None
        ):
            return ht
    raise AssertionError("situation not reached")


# covers: P-33
@pytest.mark.parametrize(
    ("game", "players"), [("tuppen", 3), ("limit-tuppen", 3), ("pottuppen", 3), ("belote", 4)]
)
def test_silence_where_the_rules_have_a_timeout_action(game: str, players: int) -> None:
    ht = _timeout_fold_situation(game, players)
    ht.hold_now()
    expected = ht.ref.engine.timeout_action(HOSTILE)
    ht.tick_past_deadline()
    for seat in ht.honest:
        applied = [e for e in ht.events(seat) if isinstance(e, ActionApplied) and e.by_timeout]
        assert applied and applied[-1].action == expected
        assert not [v for v in ht.violations(seat) if v.culprit == HOSTILE]
    ht.assert_converged()
    ht.audit()


# covers: P-33
@pytest.mark.parametrize(("game", "players"), [("tuppen", 3), ("belote", 4)])
def test_silence_on_a_card_play_aborts_the_hand(game: str, players: int) -> None:
    ht = reach(
        lambda t: (
            t.hostile_to_act()
            and t.ref.engine.timeout_action(HOSTILE) is None
            and any(
                a.kind is ActionKind.PLAY for a in t.machines[HOSTILE].engine.legal_actions(HOSTILE)
            )
        ),
        game,
        players,
    )
    ht.hold_now()
    before, hand = ht.scores(), ht.ref.hand
    ht.tick_past_deadline()
    ht.assert_hand_aborted(HOSTILE, hand, before)
    for seat in ht.honest:
        ends = [e for e in ht.events(seat) if isinstance(e, HandEnded) and e.aborted]
        assert ends[-1].silent == HOSTILE and ends[-1].culprit is None
        assert not ht.violations(seat), "silence is not a violation"


# covers: P-29
def test_timeout_vote_before_the_deadline_is_not_counted() -> None:
    """A hostile peer's early timeout vote against an honest arbiter changes nothing alone."""
    ht = reach(lambda t: t.ref.phase == "play" and t.ref.arbiter() not in (None, HOSTILE))
    ht.hold_now()
    arbiter = ht.ref.arbiter()
    vote = ht.craft("timeout-vote", {"silent": arbiter, "head": ht.ref.head})
    hashes = ht.honest_hashes()
    ht.send(vote)
    assert ht.honest_hashes() == hashes
    assert not any(isinstance(e, Violation) for s in ht.honest for e in ht.events(s))


# covers: P-36
def test_abort_vote_against_an_honest_seat_changes_nothing() -> None:
    ht = reach(lambda t: t.ref.phase == "play" and t.ref.arbiter() not in (None, HOSTILE))
    ht.hold_now()
    victim = ht.honest[0]
    vote = ht.craft(
        "abort-vote",
        {"culprit": victim, "anchor": ht.ref.head, "reason": b"lies", "evidence": []},
    )
    hashes = ht.honest_hashes()
    ht.send(vote)
    assert ht.honest_hashes() == hashes


def _cap_reason(t: HostileTable) -> Action | None:
    """A knock or raise of the hostile seat refused only because of the cap."""
    if not t.hostile_to_act():
        return None
    for kind in (ActionKind.RAISE, ActionKind.KNOCK):
        action = Action(kind, HOSTILE)
        if not t.ref.engine.can(action) and "could not cover" in illegal_for_ref(t, action):
            return action
    return None


def test_knock_or_raise_past_the_cap_in_limit_tuppen() -> None:
    """With 2 chips each the cap (what every active seat can still cover) is soon 0."""
    for seed in range(40):
        ht = HostileTable(make_config("limit-tuppen", 3, {"starting_chips": 2}), seed, HOSTILE)
        if ht.play(lambda t: _cap_reason(t) is not None, max_moves=300):
            action = _cap_reason(ht)
            assert action is not None
            send_refused(ht, ht.craft_action(action))
            return
    raise AssertionError("situation not reached")


# ---------------------------------------------------------------- signatures of the table


def test_config_signature_for_another_configuration_means_the_table_does_not_start() -> None:
    ht = HostileTable(make_config("tuppen", 3), 24, HOSTILE)
    ht.hold_when(lambda m: m.kind == "config-sign")
    ht.play(lambda t: False)
    frame = ht.resign(ht.held[0], body={"config_hash": bytes(32)})
    ht.send(frame)
    ht.assert_refused(frame, HOSTILE)
    for seat in ht.honest:
        assert ht.machines[seat].over and ht.machines[seat].hand == 0
    ht.assert_converged()
    ht.audit()


# covers: P-21, W-7, W-8
@pytest.mark.parametrize("field", ["result", "state"])
def test_result_signature_for_another_result_is_refused_and_the_result_stands(field: str) -> None:
    ht = HostileTable(make_config("tuppen", 3), 25, HOSTILE)
    ht.hold_when(lambda m: m.kind == "result")
    ht.play(lambda t: False)
    assert ht.ref.phase == "result"
    after_hand = ht.scores()
    body = dict(decode(ht.held[0]).body)
    body[field] = bytes(32)
    frame = ht.resign(ht.held[0], body=body)
    ht.send(frame)
    ht.assert_refused(frame, HOSTILE)
    for seat in ht.honest:
        assert any(isinstance(e, HandSigned) and e.hand == 1 for e in ht.events(seat))
        assert ht.machines[seat].hand == 2
        assert not ht.aborted_results(seat)
    assert ht.scores() == after_hand
    ht.assert_converged()
    ht.audit()
