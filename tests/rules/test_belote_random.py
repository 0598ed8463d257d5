"""Belote: randomised complete games, per-seat views, and the exactness of forbidden_cards.

CI runs a bounded number of games. DEALERLESS_HANDS=10000 runs at least that many random hands
(test marked slow).
"""

from __future__ import annotations

import itertools
import os
import random
import time
from collections.abc import Sequence

import pytest
from test_belote_helpers import make_deck, new_engine

from dealerless.client.bots.belote import choose_action
from dealerless.client.simulate import play_game
from dealerless.protocol.cards import DECK, Card, Suit
from dealerless.protocol.rules.base import (
    Action,
    ActionKind,
    Deal,
    Engine,
    HandResult,
    OptionValue,
    TurnUp,
)
from dealerless.protocol.rules.belote import REDEAL_REASON, BeloteEngine
from dealerless.protocol.rules.belote_tricks import legal_cards, obligation
from dealerless.protocol.rules.registry import make_config

OPTION_SETS: list[dict[str, OptionValue]] = [
    {
        "first_lead": lead,
        "overtrump_partner_on_trump_lead": strict,
        "capot": capot,
        "contract_counts_belote": counts,
    }
    for lead, strict, capot, counts in itertools.product(
        ("dealer", "next"), (False, True), ("replace", "add"), (True, False)
    )
]


# --- an independent statement of the play obligations (the oracle) --------------------------

_PLAIN = ["7", "8", "9", "J", "Q", "K", "10", "A"]
_TRUMP = ["7", "8", "Q", "K", "10", "A", "9", "J"]


def _rank(card: Card, trump: Suit) -> int:
    return (_TRUMP if card.suit == trump else _PLAIN).index(card.rank.label)


def oracle_legal(
    plays: Sequence[tuple[int, Card]], seat: int, hand: set[Card], trump: Suit, strict: bool
) -> set[Card]:
    if not plays:
        return set(hand)
    led = plays[0][1].suit
    best_seat, best = plays[0]
    for s, c in plays[1:]:
        higher_same = c.suit == best.suit and _rank(c, trump) > _rank(best, trump)
        if higher_same or (c.suit == trump and best.suit != trump):
            best_seat, best = s, c
    partner = best_seat == (seat + 2) % 4
    follow = {c for c in hand if c.suit == led}
    trumps = {c for c in hand if c.suit == trump}
    if led == trump:
        if not follow:
            return set(hand)
        if partner and not strict:
            return follow
        higher = {c for c in follow if _rank(c, trump) > _rank(best, trump)}
        return higher or follow
    if follow:
        return follow
    if partner or not trumps:
        return set(hand)
    if best.suit == trump:
        higher = {c for c in trumps if _rank(c, trump) > _rank(best, trump)}
        return higher or trumps
    return trumps


def random_trick(rng: random.Random) -> tuple[list[tuple[int, Card]], int, list[Card], Suit]:
    deck = list(DECK)
    rng.shuffle(deck)
    leader = rng.randrange(4)
    n = rng.randrange(4)
    plays = [((leader + i) % 4, deck[i]) for i in range(n)]
    seat = (leader + n) % 4
    return plays, seat, deck[n:], Suit(rng.randrange(4))


@pytest.mark.parametrize("strict", [False, True])
def test_forbidden_cards_are_exactly_the_cards_that_make_a_play_illegal(strict: bool) -> None:
    rng = random.Random(2002 + strict)
    for _ in range(600):
        plays, seat, rest, trump = random_trick(rng)
        card = rest[0]
        forbidden = obligation(
            plays, seat, card, trump, overtrump_partner_on_trump_lead=strict
        ).forbidden
        for other in rest[1:]:
            legal = card in oracle_legal(plays, seat, {card, other}, trump, strict)
            assert legal == (other not in forbidden), (plays, seat, card, other, trump)
        hand = set(rest[: rng.randrange(1, 9)])
        expected = oracle_legal(plays, seat, hand, trump, strict)
        got = legal_cards(plays, seat, hand, trump, overtrump_partner_on_trump_lead=strict)
        assert set(got) == expected and got


# --- per-seat views -------------------------------------------------------------------------


def drive_with_views(options: dict[str, OptionValue], seed: int, abort_rate: float = 0.0) -> int:
    """An all-seeing engine plus one view engine per seat through one complete game; returns
    the number of hands. Checks identical digests after every step and equal own legal moves."""
    rng = random.Random(seed)
    dealer = rng.randrange(4)
    full = new_engine(options, dealer)
    views = [new_engine(options, dealer) for _ in range(4)]
    engines: list[BeloteEngine] = [full, *views]
    hands = 0
    while full.outcome is None:
        hands += 1
        assert hands < 500
        for e in engines:
            e.start_hand()
        deck = list(DECK)
        rng.shuffle(deck)
        while full.hand_running:
            digest = full.public_digest()
            assert all(v.public_digest() == digest for v in views)
            if abort_rate and rng.random() < abort_rate:
                culprit = rng.choice([None, 0, 1, 2, 3])
                results = [e.abort_hand(culprit, "test") for e in engines]
                assert all(r == results[0] for r in results)
                break
            request = full.chance_request()
            if request is not None:
                assert all(v.chance_request() == request for v in views)
                full.apply_chance([deck[p] for p in request.positions])
                for seat, view in enumerate(views):
                    if isinstance(request, TurnUp):
                        view.apply_chance([deck[request.position]])
                    else:
                        assert isinstance(request, Deal)
                        view.apply_chance(
                            [deck[p] if s == seat else None for s, p in request.assignments]
                        )
                continue
            for seat, view in enumerate(views):
                assert view.legal_actions(seat) == full.legal_actions(seat)
                assert view.to_act() == full.to_act()
                for other in range(4):
                    if other != seat:  # a view shows no hidden card of another seat
                        known = {s.card for s in view.hand(other) if s.card is not None}
                        assert known <= ({full.turned.card} if full.turned else set())
            actor = full.to_act()[0]
            action = choose_action(full, actor, rng, True)
            assert action is not None
            if action.kind == ActionKind.PLAY:
                assert action.position is not None
                held = {s.card for s in full.hand(actor)}
                forbidden = full.forbidden_cards(action)
                assert not forbidden & held
                assert all(v.forbidden_cards(action) == forbidden for v in views)
            for e in engines:
                e.apply(action)
        digest = full.public_digest()
        assert all(v.public_digest() == digest for v in views)
        assert all(v.scores() == full.scores() for v in views)
    assert all(v.outcome == full.outcome for v in views)
    return hands


VIEW_GAMES = int(os.environ.get("DEALERLESS_VIEW_GAMES", "2"))


@pytest.mark.parametrize("index", range(len(OPTION_SETS)))
def test_every_seat_view_agrees_with_the_all_seeing_engine(index: int) -> None:
    for game in range(VIEW_GAMES):
        drive_with_views(OPTION_SETS[index], seed=100 * index + game)


def test_views_agree_on_aborted_hands() -> None:
    drive_with_views(OPTION_SETS[0], seed=7, abort_rate=0.01)


# --- random complete games with invariants --------------------------------------------------


def check_hand(engine: Engine, result: HandResult) -> None:
    assert isinstance(engine, BeloteEngine)
    assert result.deltas[0] == result.deltas[2] and result.deltas[1] == result.deltas[3]
    assert min(result.deltas) >= 0
    if result.reason == REDEAL_REASON:
        assert result.deltas == (0, 0, 0, 0) and len(engine.bids) == 8
        return
    played = [c for t in engine.tricks for _, c in t.plays]
    assert len(played) == 32 and set(played) == set(DECK), "every card exactly once"
    details = result.details
    belote = 20 if details["belote_seat"] is not None else 0
    total = result.deltas[0] + result.deltas[1]
    capot = details["capot_team"] is not None
    bonus = 350 if details["solo_capot_seat"] is not None else 252
    if not capot:
        assert total == 162 + belote
    elif engine.capot_mode == "replace":
        assert total == bonus + belote
    else:
        assert total == 162 + bonus + belote
    taker_team = engine.taker % 2 if engine.taker is not None else -1
    if not details["contract_made"]:
        belote_taker = 20 if belote and details["belote_seat"] % 2 == taker_team else 0
        assert result.deltas[taker_team] == belote_taker


def run_random_hands(target_hands: int, seed0: int = 0) -> tuple[int, int]:
    hands = games = 0
    while hands < target_hands:
        options = OPTION_SETS[games % len(OPTION_SETS)]
        config = make_config("belote", 4, options)
        seen_hand: list[int] = []

        def on_step(engine: Engine, _action: Action | None, seen: list[int] = seen_hand) -> None:
            result = engine.hand_result
            if result is not None and result.hand_number not in seen:
                seen.append(result.hand_number)
                check_hand(engine, result)

        record = play_game(config, seed0 + games, on_step=on_step)
        outcome = record.outcome
        assert outcome is not None
        scores = outcome.standings
        assert scores[0] == scores[2] and scores[1] == scores[3]
        assert scores[0] != scores[1] and max(scores) >= 501
        winner = 0 if scores[0] > scores[1] else 1
        assert outcome.winners == (winner, winner + 2)
        totals = [sum(r.deltas[t] for r in record.hands) for t in (0, 1)]
        assert totals == [scores[0], scores[1]]
        hands += len(record.hands)
        games += 1
    return hands, games


HANDS = int(os.environ.get("DEALERLESS_HANDS", "0"))


def test_random_games_over_every_option_set_keep_their_invariants() -> None:
    hands, games = run_random_hands(1500)
    assert games >= len(OPTION_SETS) and hands >= 1500


@pytest.mark.slow
@pytest.mark.skipif(HANDS < 1, reason="set DEALERLESS_HANDS=10000")
def test_many_random_hands() -> None:
    start = time.perf_counter()
    hands, games = run_random_hands(HANDS, seed0=10_000)
    elapsed = time.perf_counter() - start
    print(f"belote: {hands} hands in {games} games, {elapsed:.1f} s")
    assert hands >= HANDS


def test_the_bot_takes_a_strong_hand_and_passes_a_weak_one() -> None:
    hands = {
        0: "AC KC QC JC 10C 9C 8C 7C",
        1: "JH 9H AH AS AD KD QD JD",  # first five: jack, nine, ace of hearts, two aces
        2: "8H 7H KH QH 10H JS 10S 9S",
        3: "8S 7S KS QS 10D 9D 8D 7D",  # first five: nothing in hearts, no ace
    }
    deck = make_deck(0, hands, "8H", 2)
    engine = new_engine()
    engine.start_hand()
    for _ in range(2):
        request = engine.chance_request()
        assert request is not None
        engine.apply_chance([deck[p] for p in request.positions])
    rng = random.Random(1)
    assert choose_action(engine, 1, rng, True) == Action(ActionKind.BID, 1, suit=Suit.HEARTS)
    engine.apply(Action(ActionKind.PASS, 1))
    engine.apply(Action(ActionKind.PASS, 2))
    assert choose_action(engine, 3, rng, True) == Action(ActionKind.PASS, 3)
