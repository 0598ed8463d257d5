"""The strong Belote bot (issue 28): its fast rules agree with the rules modules, its exact
endgame search is exact, it bids what its hand can win, reads the bids, plays legal moves
deterministically, and the normal level keeps its card play."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from belote_positions import trick_positions

from dealerless.client.bots import (
    belote_endgame,
    belote_normal,
    belote_sampled_play,
    belote_strong,
    belote_strong_play,
    bot_for,
)
from dealerless.client.bots.belote import hand_value
from dealerless.client.bots.belote_bidding import choose_bid, take_gain
from dealerless.client.bots.belote_endgame import card_values, solve
from dealerless.client.bots.belote_fast import (
    FastRules,
    Position,
    belote_team,
    hand_diff,
    legal,
    make_rules,
)
from dealerless.client.bots.belote_inference import bid_weight
from dealerless.client.bots.belote_inference import hand_value as fast_hand_value
from dealerless.client.bots.belote_playout import play_to_end, policy
from dealerless.client.simulate import play_game
from dealerless.protocol.cards import DECK, Card, Suit
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.belote import BeloteEngine
from dealerless.protocol.rules.belote_scoring import score_hand
from dealerless.protocol.rules.belote_tricks import legal_cards
from dealerless.protocol.rules.registry import make_config

# search nodes of one decision: about 6,700 at most in a game (the exact last three tricks on
# 24 deals, the last two of every playout; seed 21): a slip in the pruning shows up here
NODE_BOUND = 20_000


def ids(text: str) -> list[int]:
    return [Card.parse(t).index for t in text.split()]


def test_fast_obligations_and_hand_value_agree_with_the_rules_module() -> None:
    for trump, plays, seat, hand in trick_positions(random.Random(7), 2000):
        for partner_rule in (False, True):
            rules = make_rules(int(trump), 0, overtrump_partner=partner_rule)
            expected = legal_cards(
                plays, seat, hand, trump, overtrump_partner_on_trump_lead=partner_rule
            )
            fast_plays = [(s, c.index) for s, c in plays]
            got = legal([c.index for c in hand], fast_plays, seat, rules)
            assert sorted(got) == sorted(c.index for c in expected)
        assert fast_hand_value([c.index for c in hand], int(trump)) == hand_value(hand, trump)


def test_fast_scoring_agrees_with_score_hand_capots_and_failed_contracts_included() -> None:
    rng = random.Random(8)
    for _ in range(1500):
        deck = list(DECK)
        rng.shuffle(deck)
        trump = Suit(rng.randrange(4))
        taker = rng.randrange(4)
        capot = rng.choice(["replace", "add"])
        counts = rng.random() < 0.5
        # winners drawn from few seats, so capots (team and solo) come up often
        takers_of_tricks = rng.choice([[0], [1, 3], [0, 2], [0, 1, 2, 3], [2, 3]])
        tricks = []
        seat_tricks = [0, 0, 0, 0]
        team_points = [0, 0]
        rules = make_rules(int(trump), taker, capot=capot, counts_belote=counts)
        for t in range(8):
            plays = [(s, deck[4 * t + s]) for s in range(4)]
            winner = rng.choice(takers_of_tricks)
            tricks.append((plays, winner))
            seat_tricks[winner] += 1
            team_points[winner % 2] += sum(rules.points[c.index] for _, c in plays)
        hands = [[deck[4 * t + s].index for t in range(8)] for s in range(4)]
        expected = score_hand(tricks, trump, taker, capot=capot, contract_counts_belote=counts)
        for team in (0, 1):
            got = hand_diff(
                team_points, seat_tricks, tricks[-1][1], belote_team(hands, rules), rules, team
            )
            assert got == expected.points[team] - expected.points[1 - team]


def _minimax(pos: Position, rules: FastRules, team: int) -> int:
    if not pos.hands[pos.to_play]:
        return pos.diff(rules, team)
    values = []
    for card in legal(pos.hands[pos.to_play], pos.plays, pos.to_play, rules):
        child = pos.copy()
        child.play(card, rules)
        values.append(_minimax(child, rules, team))
    return max(values) if pos.to_play % 2 == team else min(values)


def _random_position(rng: random.Random, plays_done: int) -> tuple[Position, FastRules]:
    deck = list(range(32))
    rng.shuffle(deck)
    rules = make_rules(rng.randrange(4), rng.randrange(4))
    hands = [deck[8 * s : 8 * s + 8] for s in range(4)]
    pos = Position([list(h) for h in hands], [], rng.randrange(4), [0, 0], [0] * 4, None)
    pos.belote = belote_team(hands, rules)
    for _ in range(plays_done):
        pos.play(rng.choice(legal(pos.hands[pos.to_play], pos.plays, pos.to_play, rules)), rules)
    return pos, rules


def test_the_endgame_search_is_exact_and_leaves_the_position_as_it_was() -> None:
    rng = random.Random(9)
    for _ in range(60):
        pos, rules = _random_position(rng, 20 + rng.randrange(5))
        team = pos.to_play % 2
        before = pos.copy()
        assert solve(pos, rules, team) == _minimax(pos.copy(), rules, team)
        assert [sorted(h) for h in pos.hands] == [sorted(h) for h in before.hands]
        assert (pos.plays, pos.to_play, pos.team_points, pos.seat_tricks) == (
            before.plays,
            before.to_play,
            before.team_points,
            before.seat_tricks,
        )
        cards = legal(pos.hands[pos.to_play], pos.plays, pos.to_play, rules)
        for card, value in zip(cards, card_values(pos, rules, team, cards), strict=True):
            child = pos.copy()
            child.play(card, rules)
            assert value == _minimax(child, rules, team)


def test_the_playout_policy_plays_legal_cards_to_the_end_of_the_hand() -> None:
    rng = random.Random(10)
    for _ in range(200):
        pos, rules = _random_position(rng, rng.randrange(12))
        start = pos.copy()
        while pos.hands[pos.to_play]:
            card = policy(pos, rules)
            assert card in legal(pos.hands[pos.to_play], pos.plays, pos.to_play, rules)
            pos.play(card, rules)
        assert sum(pos.seat_tricks) == 8
        assert play_to_end(start.copy(), rules, 0) == pos.diff(rules, 0)
        tail = start.copy()
        while tail.plays or tail.tricks_left() > 2:
            tail.play(policy(tail, rules), rules)
        assert play_to_end(start, rules, 0, exact_tricks=2) == solve(tail, rules, 0)


def test_the_strong_bidder_takes_a_strong_hand_and_passes_a_weak_one() -> None:
    # the taker's six cards: five of its own and the turned-up card
    spades = int(Suit.SPADES)
    strong = ids("JS 9S AS AH AD 7S")
    weak = ids("7S 8H 9D QC 8C 10H")
    assert take_gain(strong, spades, 1, 0, False) > 50
    assert take_gain(weak, spades, 1, 0, False) < -50
    assert choose_bid(strong, [spades], 1, 0, False) == spades
    assert choose_bid(weak, [spades], 1, 0, False) is None
    # second round: of the suits it may name, the one its hand is strong in
    hearts_hand = ids("JH 9H AH 10H AD 7S")
    others = [s for s in range(4) if s != spades]
    assert choose_bid(hearts_hand, others, 1, 0, True) == int(Suit.HEARTS)


def _bidding_engine(first_five: str, turned: str) -> BeloteEngine:
    """Dealer 0; seat 1 (the first to speak) holds ``first_five``."""
    mine = [Card.parse(t) for t in first_five.split()]
    up = Card.parse(turned)
    rest = [c for c in DECK if c not in mine and c != up]
    random.Random(3).shuffle(rest)
    deck = [*mine[:3], *rest[:9], *mine[3:], *rest[9:15], up, *rest[15:]]
    engine = BeloteEngine(make_config("belote", 4, {}), first_dealer=0)
    engine.start_hand()
    while (request := engine.chance_request()) is not None:
        engine.apply_chance([deck[p] for p in request.positions])
    return engine


def test_the_strong_bot_bids_through_the_engine() -> None:
    strong = bot_for("belote", "strong")
    engine = _bidding_engine("JS 9S AH AD KC", "7S")
    action = strong(engine, 1, random.Random(0), True)
    assert action is not None and action.kind == ActionKind.BID and action.suit == Suit.SPADES
    engine = _bidding_engine("7H 8D 9C QC 8H", "7S")
    action = strong(engine, 1, random.Random(0), True)
    assert action is not None and action.kind == ActionKind.PASS


def test_a_take_makes_deals_where_the_taker_holds_the_top_trumps_likelier() -> None:
    rng = random.Random(11)
    turned = Card.parse("7S").index
    bids: Sequence[tuple[int, int | None]] = [(1, None), (2, int(Suit.SPADES))]
    strong_taker = [*ids("JS 9S AS AH AD 8S KC"), turned]
    weak_taker = [*ids("7H 8D 9C QC 8H 7D 7C"), turned]
    others = [c for c in range(32) if c not in strong_taker]
    holdings_strong = [others[0:8], others[8:16], strong_taker, others[16:24]]
    others = [c for c in range(32) if c not in weak_taker]
    holdings_weak = [others[0:8], others[8:16], weak_taker, others[16:24]]
    strong_weight = sum(bid_weight(holdings_strong, bids, turned, 2, 0, rng) for _ in range(50))
    weak_weight = sum(bid_weight(holdings_weak, bids, turned, 2, 0, rng) for _ in range(50))
    assert strong_weight > 10 * weak_weight


def test_strong_decisions_are_legal_and_the_same_for_the_same_seed() -> None:
    config = make_config("belote", 4, {"target": 200})
    lineup = ["strong", "normal", "strong", "basic"]
    first = play_game(config, 5, lineup=lineup)  # play_game applies (so checks) every move
    again = play_game(config, 5, lineup=lineup)
    assert first.outcome is not None and again.outcome is not None
    assert [h.deltas for h in first.hands] == [h.deltas for h in again.hands]
    assert [h.reason for h in first.hands] == [h.reason for h in again.hands]
    assert first.outcome.winners == again.outcome.winners


def test_the_normal_level_keeps_the_sampled_deal_card_play() -> None:
    assert belote_normal.choose_card is belote_sampled_play.choose_card
    assert belote_sampled_play.PLAYOUT_BUDGET == 96
    assert (belote_sampled_play.MIN_DEALS, belote_sampled_play.MAX_DEALS) == (4, 24)


def test_a_short_series_the_strong_team_wins_against_random_seats() -> None:
    config = make_config("belote", 4, {"target": 300})
    wins = 0
    for game in range(4):
        lineup = ["strong", "random"] * 2 if game % 2 == 0 else ["random", "strong"] * 2
        record = play_game(config, 100 + game, lineup=lineup)
        assert record.outcome is not None
        wins += lineup[record.outcome.winners[0]] == "strong"
    assert wins >= 3


def test_the_belote_in_hand_turns_a_borderline_take() -> None:
    # the same three small trumps and side cards: king and queen together (20 more points for
    # the team wherever they fall) are worth taking; king and eight are not
    spades = int(Suit.SPADES)
    with_belote = ids("KS QS 7S AH 8D 9C")
    without = ids("KS 8S 7S AH 8D 9C")
    assert (
        take_gain(with_belote, spades, 1, 0, False) - take_gain(without, spades, 1, 0, False) > 20
    )
    assert choose_bid(with_belote, [spades], 1, 0, False) == spades
    assert choose_bid(without, [spades], 1, 0, False) is None


def test_the_position_counts_the_dealer_leads_and_its_partner_speaks_last() -> None:
    hearts = int(Suit.HEARTS)
    hand = ids("JH 8H 7H AD 8C 7S")
    first_speaker = take_gain(hand, hearts, 1, 0, False)
    assert take_gain(hand, hearts, 0, 0, False) > first_speaker  # the dealer leads
    assert take_gain(hand, hearts, 2, 0, False) > first_speaker  # speaks last, knows more
    assert take_gain(hand, hearts, 1, 0, True) < first_speaker  # everyone passed once


def test_a_decision_s_work_stays_bounded_over_a_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """Speed lives in `dealerless bench bots`; here the work a decision may do: at most
    PLAYOUT_BUDGET playouts, and the exact endgame (three tricks, EXACT_DEALS deals) within a
    node count that a slip in its pruning or a deeper search would exceed."""
    playouts = [0]
    nodes = [0]
    worst = {"playouts": 0, "nodes": 0}
    real_play_to_end = belote_strong_play.play_to_end
    real_value = belote_endgame._Search.value

    def counting_play_to_end(pos: Position, rules: FastRules, team: int, tail: int = 0) -> int:
        playouts[0] += 1
        return real_play_to_end(pos, rules, team, tail)

    def counting_value(self: belote_endgame._Search, alpha: int, beta: int) -> int:
        nodes[0] += 1
        return real_value(self, alpha, beta)

    real_choose = belote_strong_play.choose_card

    def measured(engine: Engine, seat: int, rng: random.Random) -> Action:
        playouts[0] = nodes[0] = 0
        action = real_choose(engine, seat, rng)
        worst["playouts"] = max(worst["playouts"], playouts[0])
        worst["nodes"] = max(worst["nodes"], nodes[0])
        return action

    monkeypatch.setattr(belote_strong_play, "play_to_end", counting_play_to_end)
    monkeypatch.setattr(belote_endgame._Search, "value", counting_value)
    monkeypatch.setattr(belote_strong, "choose_card", measured)
    record = play_game(make_config("belote", 4, {"target": 300}), 21, lineup=["strong"] * 4)
    assert record.outcome is not None
    assert 0 < worst["playouts"] <= belote_strong_play.PLAYOUT_BUDGET
    assert 0 < worst["nodes"] <= NODE_BOUND
