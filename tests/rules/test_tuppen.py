"""Classic Tuppen (seed 003, first part): one test per rule sentence, plus the decisions.

The mapping rule sentence -> test is in spec/rules/tuppen.md. Hands are set up with a fixed
deck (see test_tuppen_support.start). Seat numbers: with dealer 2 of 3 seats, seat 0 is left
of the dealer, receives the first card and leads.
"""

from __future__ import annotations

import itertools

import pytest
from test_tuppen_support import PLAIN, Table, cards, new, start

from dealerless.protocol.cards import DECK, Card, Rank, Suit, cards_of_suit
from dealerless.protocol.rules.base import Action, ActionKind, ConfigError, Deal, IllegalAction
from dealerless.protocol.rules.registry import make_config, new_engine
from dealerless.protocol.rules.tuppen_exchange import is_true_laundry
from dealerless.protocol.rules.tuppen_tricks import TUPPEN_ORDER

K = ActionKind

# A plain three-seat hand: seat 0 wins tricks 1-3 with tens, seat 2 wins the last with 10S.
HANDS_3 = {0: "10C 10D 10H JS", 1: "7C 7D 7H QS", 2: "8C 8D 8H 10S"}
FIRST_THREE = ("0:10C", "1:7C", "2:8C", "0:10D", "1:7D", "2:8D", "0:10H", "1:7H", "2:8H")
LAST = ("0:JS", "1:QS", "2:10S")


def plain3(scores: list[int] | None = None, **options: object) -> Table:
    opts = {**PLAIN, **options}
    return start(new(3, dealer=2, scores=scores, **opts), HANDS_3)


def raises(table: Table, action: Action, reason: str, seat: int | None = None) -> IllegalAction:
    before = table.engine.public_digest()
    with pytest.raises(IllegalAction) as info:
        table.engine.apply(action)
    assert reason in info.value.reason, info.value.reason
    if seat is not None:
        assert info.value.seat == seat
    assert table.engine.public_digest() == before, "apply must be atomic"
    return info.value


# --- general rules ----------------------------------------------------------------------------


def test_piquet_deck_of_32_cards_is_dealt_from_the_top() -> None:
    engine = new(8, **PLAIN)
    engine.start_hand()
    request = engine.chance_request()
    assert isinstance(request, Deal)
    assert sorted(request.positions) == list(range(32))  # eight seats use the whole piquet deck


@pytest.mark.parametrize(("low", "high"), list(itertools.pairwise(TUPPEN_ORDER)))
def test_rank_order_jack_queen_king_ace_seven_eight_nine_ten(low: Rank, high: Rank) -> None:
    lo, hi = Card(Suit.HEARTS, low), Card(Suit.HEARTS, high)
    fill = [c for c in cards("7C 8C 9C 10C 7D 8D") if c not in (lo, hi)]
    hands = {0: f"{lo} {fill[0]} {fill[1]} {fill[2]}", 1: f"{hi} {fill[3]} {fill[4]} {fill[5]}"}
    table = start(new(2, dealer=1, **PLAIN), hands)
    table.plays(f"0:{lo}", f"1:{hi}")
    assert table.hand_state["trick"]["tricks"][0]["winner"] == 1


def test_must_follow_suit_when_possible() -> None:
    table = plain3()
    table.play(0, "10C")
    raises(table, Action(K.PLAY, 1, card=Card.parse("QS")), "must follow suit clubs", 1)


def test_a_player_who_cannot_follow_may_play_any_card() -> None:
    hands = {0: "10C 10D 10H 9S", 1: "7D 7H QS KS", 2: "8C 8D 8H 10S"}
    table = start(new(3, dealer=2, **PLAIN), hands)
    table.play(0, "10C")
    legal = {a.card for a in table.engine.legal_actions(1) if a.kind == K.PLAY}
    assert legal == set(cards("7D 7H QS KS"))
    table.play(1, "KS")


def test_the_last_trick_wins_the_hand() -> None:
    table = plain3()
    table.plays(*FIRST_THREE)  # seat 0 wins tricks 1-3
    table.plays(*LAST)
    result = table.engine.hand_result
    assert result is not None and result.winners == (2,) and result.reason == "last trick"


def test_dealing_starts_left_of_dealer_and_goes_clockwise() -> None:
    engine = new(4, dealer=1, **PLAIN)
    engine.start_hand()
    request = engine.chance_request()
    assert isinstance(request, Deal)
    assert [s for s, _ in request.assignments[:4]] == [2, 3, 0, 1]


def test_cards_are_dealt_one_at_a_time() -> None:
    engine = new(3, dealer=2, **PLAIN)
    engine.start_hand()
    request = engine.chance_request()
    assert isinstance(request, Deal)
    assert list(request.assignments[:6]) == [(0, 0), (1, 1), (2, 2), (0, 3), (1, 4), (2, 5)]


def test_each_player_gets_four_cards() -> None:
    table = plain3()
    for seat in range(3):
        assert len(table.engine.hand(seat)) == 4
    assert table.engine.hand(0)[0].card == Card.parse("10C")


def test_player_left_of_dealer_leads_the_first_trick() -> None:
    table = plain3()
    assert table.engine.to_act() == (0,)
    raises(table, Action(K.PLAY, 1, card=Card.parse("7C")), "not your turn", 1)


def test_play_goes_clockwise() -> None:
    table = plain3()
    table.play(0, "10C")
    assert table.engine.to_act() == (1,)
    table.play(1, "7C")
    assert table.engine.to_act() == (2,)


def test_highest_card_wins_the_trick_and_leads_next() -> None:
    table = plain3()
    table.plays("0:JS", "1:QS", "2:10S")
    assert table.engine.to_act() == (2,)


def test_played_cards_stay_open_on_the_table() -> None:
    table = plain3()
    table.plays("0:10C", "1:7C")
    trick = table.hand_state["trick"]
    assert trick["current"] == [[0, Card.parse("10C").index], [1, Card.parse("7C").index]]


def test_winner_of_the_fourth_trick_wins_the_round() -> None:
    test_the_last_trick_wins_the_hand()


def test_winner_deals_the_next_hand() -> None:
    table = plain3()
    table.plays(*FIRST_THREE, *LAST)
    assert table.engine.dealer == 2
    table.engine.start_hand()
    request = table.engine.chance_request()
    assert isinstance(request, Deal) and request.assignments[0][0] == 0


# --- penalty points and knocking ----------------------------------------------------------------


def test_losers_get_penalty_points_and_ten_is_out() -> None:
    table = plain3(scores=[9, 0, 0], poverty=False)
    table.plays(*FIRST_THREE, *LAST)
    assert table.engine.scores() == (10, 1, 0)
    table.engine.start_hand()
    request = table.engine.chance_request()
    assert isinstance(request, Deal)
    assert {s for s, _ in request.assignments} == {1, 2}  # seat 0 is out, not dealt


def test_each_loser_gets_one_point_normally() -> None:
    table = plain3()
    table.plays(*FIRST_THREE, *LAST)
    assert table.engine.hand_result is not None
    assert table.engine.hand_result.deltas == (1, 1, 0)


def test_knock_is_allowed_at_any_time_in_the_play_phase() -> None:
    table = plain3()
    table.play(0, "10C")
    assert 2 in table.engine.may_act() and table.engine.to_act() == (1,)
    table.act(K.KNOCK, 2)  # out of turn, mid-trick
    assert table.hand_state["stake"] == 2
    assert table.engine.to_act() == (0,)


def test_no_knock_before_the_play_phase() -> None:
    table = start(new(3, dealer=2), HANDS_3)
    assert table.phase == "exchange"
    raises(table, Action(K.KNOCK, 0), "only allowed in the play phase", 0)


def test_others_answer_a_knock_in_order_from_the_knockers_left() -> None:
    table = plain3()
    table.act(K.KNOCK, 1)
    assert table.engine.to_act() == (2,)
    raises(table, Action(K.CALL, 0), "seat 2 answers first", 0)
    raises(table, Action(K.PLAY, 0, card=Card.parse("10C")), "must first answer the knock", 0)
    table.act(K.CALL, 2)
    assert table.engine.to_act() == (0,)
    table.act(K.CALL, 0)
    assert table.engine.to_act() == (0,)  # back to the play: seat 0 leads


def test_callers_and_the_knocker_who_lose_get_two() -> None:
    table = plain3()
    table.act(K.KNOCK, 0)
    table.act(K.CALL, 1)
    table.act(K.CALL, 2)
    table.plays(*FIRST_THREE, *LAST)
    assert table.engine.hand_result is not None
    assert table.engine.hand_result.deltas == (2, 2, 0)


def test_folding_after_a_knock_costs_one_and_leaves_the_hand() -> None:
    table = plain3()
    table.act(K.KNOCK, 0)
    table.act(K.FOLD, 1)
    table.act(K.CALL, 2)
    assert table.hand_state["active"] == [0, 2]
    raises(table, Action(K.KNOCK, 1), "folded", 1)
    table.plays("0:10C", "2:8C", "0:10D", "2:8D", "0:10H", "2:8H", "0:JS", "2:10S")
    assert table.engine.hand_result is not None
    assert table.engine.hand_result.deltas == (2, 1, 0)


def test_another_player_may_knock_again() -> None:
    table = plain3()
    table.act(K.KNOCK, 0)
    table.act(K.CALL, 1)
    table.act(K.CALL, 2)
    table.play(0, "10C")
    table.act(K.KNOCK, 1)
    assert table.hand_state["stake"] == 3
    assert table.engine.to_act() == (2,)


def test_losing_after_a_reknock_costs_three() -> None:
    table = plain3()
    table.act(K.KNOCK, 0)
    table.act(K.CALL, 1)
    table.act(K.CALL, 2)
    table.act(K.KNOCK, 2)
    table.act(K.CALL, 0)
    table.act(K.CALL, 1)
    table.plays(*FIRST_THREE, *LAST)
    assert table.engine.hand_result is not None
    assert table.engine.hand_result.deltas == (3, 3, 0)


def test_passing_after_a_reknock_costs_the_stake_before_it() -> None:
    table = plain3()
    table.act(K.KNOCK, 0)
    table.act(K.CALL, 1)
    table.act(K.CALL, 2)
    table.act(K.KNOCK, 2)
    table.act(K.FOLD, 0)
    table.act(K.CALL, 1)
    assert table.hand_state["folded"] == [[0, 2]]
    # seat 1 leads now (seat 0 folded before leading)
    assert table.engine.to_act() == (1,)
    table.plays("1:QS", "2:10S", "2:8C", "1:7C", "2:8D", "1:7D", "2:8H", "1:7H")
    assert table.engine.hand_result is not None
    assert table.engine.hand_result.deltas == (2, 3, 0)


def test_knock_cap_where_a_loss_would_reach_ten() -> None:
    table = plain3(scores=[4, 0, 0])
    knocker = 1
    for stake in range(2, 7):
        table.act(K.KNOCK, knocker)
        for seat in table.engine.public_state()["hand"]["answer_queue"][:]:
            table.act(K.CALL, seat)
        assert table.hand_state["stake"] == stake
        knocker = 2 if knocker == 1 else 1
    raises(table, Action(K.KNOCK, knocker), "could take seat 0 (4 points) past 10", knocker)


def test_at_the_cap_the_hand_is_played_out() -> None:
    table = plain3(scores=[8, 0, 0])
    table.act(K.KNOCK, 1)
    table.act(K.CALL, 2)
    table.act(K.CALL, 0)
    assert table.engine.legal_actions(2) == []  # not its turn, and no knock past the cap
    assert K.KNOCK not in {a.kind for a in table.engine.legal_actions(0)}
    table.plays(*FIRST_THREE, *LAST)
    assert table.engine.scores() == (10, 2, 0)


def test_knock_cap_counts_only_seats_still_in_the_hand() -> None:
    table = plain3(scores=[7, 0, 0])
    table.act(K.KNOCK, 1)  # stake 2 (7 + 2 <= 10)
    table.act(K.CALL, 2)
    table.act(K.CALL, 0)
    table.act(K.KNOCK, 2)  # stake 3 (7 + 3 = 10)
    table.act(K.FOLD, 0)
    table.act(K.CALL, 1)
    table.act(K.KNOCK, 1)  # stake 4: seat 0 folded and cannot lose more
    assert table.hand_state["stake"] == 4


def test_nobody_knocks_twice_in_a_row() -> None:
    table = plain3()
    table.act(K.KNOCK, 0)
    table.act(K.CALL, 1)
    table.act(K.CALL, 2)
    raises(table, Action(K.KNOCK, 0), "nobody may knock twice in a row", 0)


def test_a_player_may_knock_several_times_per_hand() -> None:
    table = plain3()
    table.act(K.KNOCK, 0)
    table.act(K.CALL, 1)
    table.act(K.CALL, 2)
    table.act(K.KNOCK, 1)
    table.act(K.CALL, 2)
    table.act(K.CALL, 0)
    table.act(K.KNOCK, 0)
    assert table.hand_state["stake"] == 4


def test_when_all_others_fold_the_knocker_wins() -> None:
    table = plain3()
    table.act(K.KNOCK, 1)
    table.act(K.FOLD, 2)
    table.act(K.FOLD, 0)
    result = table.engine.hand_result
    assert result is not None and result.winners == (1,) and result.reason == "all others folded"
    assert result.deltas == (1, 0, 1)
    assert table.engine.dealer == 1


def test_game_ends_when_one_player_is_left_under_ten() -> None:
    table = plain3(scores=[9, 9, 3], poverty=False)
    table.plays(*FIRST_THREE, *LAST)
    outcome = table.engine.outcome
    assert outcome is not None and outcome.winners == (2,) and outcome.standings == (10, 10, 3)
    with pytest.raises(Exception, match="game is over"):
        table.engine.start_hand()


# --- poverty ----------------------------------------------------------------------------------


def test_poverty_a_player_with_nine_points_is_poor() -> None:
    table = plain3(scores=[0, 9, 0])
    assert table.phase == "poverty"
    assert table.hand_state["poor"] == [1]
    assert table.hand_state["stake"] == 2


def test_poverty_the_others_decide_after_seeing_their_cards() -> None:
    table = plain3(scores=[0, 9, 0])
    assert table.engine.to_act() == (0,)  # in order from the dealer's left, the poor seat skipped
    table.act(K.CALL, 0)
    assert table.engine.to_act() == (2,)
    raises(table, Action(K.CALL, 1), "seat 2 answers first", 1)


def test_poverty_folding_costs_one() -> None:
    table = plain3(scores=[0, 9, 0])
    table.act(K.FOLD, 0)
    table.act(K.CALL, 2)
    table.plays("1:QS", "2:10S", "2:8C", "1:7C", "2:8D", "1:7D", "2:8H", "1:7H")
    assert table.engine.hand_result is not None
    assert table.engine.hand_result.deltas == (1, 2, 0)


def test_poverty_playing_along_and_losing_costs_two() -> None:
    table = plain3(scores=[0, 0, 9])
    table.act(K.CALL, 0)
    table.act(K.CALL, 1)
    table.plays(*FIRST_THREE, *LAST)
    assert table.engine.hand_result is not None
    assert table.engine.hand_result.deltas == (2, 2, 0)


def test_poverty_when_all_others_fold_the_poor_seat_wins() -> None:
    table = plain3(scores=[0, 9, 0])
    table.act(K.FOLD, 0)
    table.act(K.FOLD, 2)
    result = table.engine.hand_result
    assert result is not None and result.winners == (1,) and result.deltas == (1, 0, 1)


def test_poverty_hand_allows_no_knocking() -> None:
    table = plain3(scores=[0, 9, 0])
    table.act(K.CALL, 0)
    table.act(K.CALL, 2)
    raises(table, Action(K.KNOCK, 0), "past 10", 0)


def test_poverty_off_a_nine_point_seat_plays_a_normal_hand() -> None:
    table = plain3(scores=[0, 9, 0], poverty=False)
    assert table.phase == "play"
    assert table.hand_state["stake"] == 1


# --- Tupp ---------------------------------------------------------------------------------------

TUPP_HANDS = {0: "10C 10D 10H JS", 1: "QC QD QH QS", 2: "8C 8D 8H 10S"}


def test_tupp_four_of_a_kind_is_claimed_at_once() -> None:
    table = start(new(3, dealer=2), TUPP_HANDS)
    assert table.phase == "exchange" and table.engine.to_act() == (0,)
    assert 1 in table.engine.may_act()
    table.act(K.TUPP, 1)  # out of turn, before the first lead
    assert table.engine.hand_result is not None


def test_tupp_wins_at_once_and_the_others_get_three() -> None:
    table = start(new(3, dealer=2), TUPP_HANDS)
    table.act(K.TUPP, 1)
    result = table.engine.hand_result
    assert result is not None and result.winners == (1,) and result.reason == "tupp"
    assert result.deltas == (3, 0, 3)
    assert table.engine.dealer == 1


def test_tupp_claim_without_four_of_a_kind_is_illegal() -> None:
    table = start(new(3, dealer=2), TUPP_HANDS)
    raises(table, Action(K.TUPP, 0), "is not four of a kind", 0)


def test_false_tupp_claim_is_exposed_by_the_reveal_naming_the_claimant() -> None:
    engine = new(3, dealer=2)
    table = start(engine, HANDS_3, deal=False)
    view = new(3, dealer=2)  # seat 2's view
    view.start_hand()
    request = engine.chance_request()
    assert isinstance(request, Deal)
    dealt = [table.deck[p] for p in request.positions]
    view.apply_chance(
        [c if s == 2 else None for (s, _), c in zip(request.assignments, dealt, strict=True)]
    )
    view.apply(Action(K.TUPP, 0))  # the view cannot know: the claim is accepted for now
    reveal = view.chance_request()
    assert reveal is not None
    with pytest.raises(IllegalAction) as info:
        view.apply_chance([table.deck[p] for p in reveal.positions])
    assert info.value.seat == 0 and "false Tupp claim" in info.value.reason


def test_tupp_must_be_claimed_before_playing_a_card() -> None:
    hands = {0: "QC QD QH QS", 1: "7C 7D 7H 8S", 2: "8C 8D 8H 10S"}
    table = start(new(3, dealer=2, **PLAIN), hands)
    table.play(0, "QC")
    raises(table, Action(K.TUPP, 0), "before playing a card", 0)


def test_tupp_off_a_dealt_tupp_cannot_be_claimed() -> None:
    table = start(new(3, dealer=2, tupp=False, tupp_attempt=False), TUPP_HANDS)
    raises(table, Action(K.TUPP, 1), "not played at this table", 1)


# --- Tupp attempt -----------------------------------------------------------------------------

ATTEMPT_HANDS = {0: "QC QD QH 7S", 1: "7C 7D 7H 8S", 2: "8C 8D 8H 10S"}


def _attempt(table: Table, seat: int = 0, three: str = "QC QD QH", fourth: str = "7S") -> None:
    table.act(K.TUPP_ATTEMPT, seat, cards=three, position=table.position_of(fourth))


def test_tupp_attempt_exchanges_the_fourth_card() -> None:
    table = start(new(3, dealer=2, dirty_laundry=False), ATTEMPT_HANDS, stock="9S")
    _attempt(table)
    assert sorted(s.card for s in table.engine.hand(0) if s.card) == sorted(cards("9S QC QD QH"))
    assert table.engine.to_act() == (1,)  # the exchange round goes on
    assert sorted(table.hand_state["revealed"]) == sorted(
        [table.position_of(c), Card.parse(c).index] for c in ("QC", "QD", "QH")
    )


def test_tupp_attempt_that_completes_four_of_a_kind_wins() -> None:
    table = start(new(3, dealer=2), ATTEMPT_HANDS, stock="QS")
    _attempt(table)
    table.act(K.TUPP, 0)
    result = table.engine.hand_result
    assert result is not None and result.reason == "tupp" and result.deltas == (0, 3, 3)


def test_tupp_after_attempt_is_allowed_with_the_tupp_option_off() -> None:
    table = start(new(3, dealer=2, tupp=False), ATTEMPT_HANDS, stock="QS")
    raises(table, Action(K.TUPP, 1), "only after a Tupp attempt", 1)
    _attempt(table)
    table.act(K.TUPP, 0)
    assert table.engine.hand_result is not None and table.engine.hand_result.winners == (0,)


def test_only_one_tupp_attempt_per_hand() -> None:
    table = start(new(3, dealer=2, dirty_laundry=False), ATTEMPT_HANDS, stock="9S")
    _attempt(table)
    raises(
        table,
        Action(K.TUPP_ATTEMPT, 0, cards=tuple(cards("QC QD QH")), position=12),
        "only one Tupp attempt per hand",
        0,
    )


def test_tupp_attempt_allows_no_bluffing() -> None:
    table = start(new(3, dealer=2), ATTEMPT_HANDS, stock="9S")
    pos = table.position_of("QH")
    raises(
        table,
        Action(K.TUPP_ATTEMPT, 0, cards=tuple(cards("QC QD 7S")), position=pos),
        "not three of a kind (no bluffing)",
        0,
    )
    raises(
        table,
        Action(K.TUPP_ATTEMPT, 0, cards=tuple(cards("KC KD KH")), position=pos),
        "not among",
        0,
    )


def test_tupp_attempt_reveal_contradicting_the_claim_names_the_seat() -> None:
    engine = new(3, dealer=2)
    table = start(engine, ATTEMPT_HANDS, stock="9S", deal=False)
    view = new(3, dealer=2)  # seat 1's view
    view.start_hand()
    request = engine.chance_request()
    assert isinstance(request, Deal)
    dealt = [table.deck[p] for p in request.positions]
    view.apply_chance(
        [c if s == 1 else None for (s, _), c in zip(request.assignments, dealt, strict=True)]
    )
    claim = tuple(cards("KC KD KH"))  # seat 0 does not hold these
    view.apply(Action(K.TUPP_ATTEMPT, 0, cards=claim, position=table.position_of("7S")))
    reveal = view.chance_request()
    assert reveal is not None
    before = view.public_digest()
    with pytest.raises(IllegalAction) as info:
        view.apply_chance([table.deck[p] for p in reveal.positions])
    assert info.value.seat == 0 and "Tupp attempt claimed" in info.value.reason
    assert view.public_digest() == before


def test_tupp_attempt_keeps_the_fourth_card_face_down() -> None:
    table = start(new(3, dealer=2), ATTEMPT_HANDS, stock="9S")
    raises(
        table,
        Action(K.TUPP_ATTEMPT, 0, card=Card.parse("7S"), cards=tuple(cards("QC QD QH"))),
        "face down",
        0,
    )
    _attempt(table)
    assert Card.parse("7S").index not in [c for _, c in table.hand_state["revealed"]]


# --- dirty laundry ----------------------------------------------------------------------------

LAUNDRY_TRUE = {0: "JC QC KC 7D", 1: "7C 8C 9C 10C", 2: "8D 9D 10D JD"}
LAUNDRY_BLUFF = {0: "JC QC 9H 10H", 1: "7C 8C 9C 10C", 2: "8D 9D 10D JD"}
STOCK = "10S 9S 8S 7S"


@pytest.mark.parametrize(
    ("hand", "true"),
    [("JC QD KH AS", True), ("JC QD KH 7S", True), ("JC QD 7H 7S", False), ("JC QD KH 8S", False)],
)
def test_dirty_laundry_is_four_pictures_or_three_and_a_seven(hand: str, true: bool) -> None:
    assert is_true_laundry(cards(hand)) is true


def test_dirty_laundry_exchanges_all_four_cards() -> None:
    table = start(new(3, dealer=2), LAUNDRY_TRUE, stock=STOCK)
    table.act(K.LAUNDRY, 0)
    assert table.phase == "check" and table.engine.hand(0) == ()
    table.act(K.ACCEPT, 1)
    table.act(K.ACCEPT, 2)
    assert sorted(s.card for s in table.engine.hand(0) if s.card) == sorted(cards("7S 8S 9S 10S"))
    assert table.engine.scores() == (0, 0, 0)
    assert table.engine.to_act() == (1,)  # the exchange round goes on


def test_dirty_laundry_bluff_is_allowed() -> None:
    table = start(new(3, dealer=2), LAUNDRY_BLUFF, stock=STOCK)
    table.act(K.LAUNDRY, 0)
    table.act(K.ACCEPT, 1)
    table.act(K.ACCEPT, 2)
    assert sorted(s.card for s in table.engine.hand(0) if s.card) == sorted(cards("7S 8S 9S 10S"))


def test_any_other_player_may_check_the_laundry() -> None:
    table = start(new(3, dealer=2), LAUNDRY_TRUE, stock=STOCK)
    table.act(K.LAUNDRY, 0)
    raises(table, Action(K.CHECK, 2), "seat 1 decides first", 2)
    raises(table, Action(K.CHECK, 0), "seat 1 decides first", 0)
    table.act(K.ACCEPT, 1)
    table.act(K.CHECK, 2)
    assert table.engine.scores() == (0, 0, 1)


def test_checking_true_laundry_costs_the_checker_one() -> None:
    table = start(new(3, dealer=2), LAUNDRY_TRUE, stock=STOCK)
    table.act(K.LAUNDRY, 0)
    table.act(K.CHECK, 1)
    assert table.engine.scores() == (0, 1, 0)
    assert sorted(s.card for s in table.engine.hand(0) if s.card) == sorted(cards("7S 8S 9S 10S"))
    revealed = {c for _, c in table.hand_state["revealed"]}
    assert revealed == {c.index for c in cards("JC QC KC 7D")}  # now public
    assert table.engine.to_act() == (1,)  # first check ends the check round


def test_a_checked_bluff_costs_the_bluffer_one_and_keeps_the_cards() -> None:
    table = start(new(3, dealer=2), LAUNDRY_BLUFF, stock=STOCK)
    table.act(K.LAUNDRY, 0)
    table.act(K.CHECK, 1)
    assert table.engine.scores() == (1, 0, 0)
    assert sorted(s.card for s in table.engine.hand(0) if s.card) == sorted(cards("JC QC 9H 10H"))
    assert table.hand_state["stock_next"] == 12  # nothing drawn


def test_laundry_points_count_in_the_hand_result() -> None:
    table = start(new(3, dealer=2, tupp_attempt=False), LAUNDRY_BLUFF, stock=STOCK)
    table.act(K.LAUNDRY, 0)
    table.act(K.CHECK, 1)
    table.act(K.PASS, 1)
    table.act(K.PASS, 2)
    table.act(K.KNOCK, 1)
    table.act(K.FOLD, 2)
    table.act(K.FOLD, 0)
    assert table.engine.hand_result is not None
    assert table.engine.hand_result.deltas == (2, 0, 1)


def test_exchange_round_goes_from_the_dealers_left_once_each() -> None:
    table = start(new(3, dealer=0), {1: "7C 8C 9C 10C", 2: "7D 8D 9D 10D", 0: "7H 8H 9H 10H"})
    order = []
    while table.phase == "exchange":
        (seat,) = table.engine.to_act()
        order.append(seat)
        table.act(K.PASS, seat)
    assert order == [1, 2, 0]
    assert table.phase == "play"


def test_eight_players_have_no_stock_so_no_exchange() -> None:
    engine = new(8, dealer=7)
    engine.start_hand()
    request = engine.chance_request()
    assert request is not None
    engine.apply_chance([DECK[p] for p in request.positions])
    assert engine.public_state()["hand"]["phase"] == "play"
    with pytest.raises(IllegalAction, match="only allowed in the exchange round"):
        engine.apply(Action(K.LAUNDRY, 0))


def test_laundry_needs_four_cards_in_the_stock() -> None:
    engine = new(7, dealer=6, tupp_attempt=True)  # stock of 4: one laundry, then attempts only
    engine.start_hand()
    request = engine.chance_request()
    assert request is not None
    engine.apply_chance([DECK[p] for p in request.positions])
    engine.apply(Action(K.LAUNDRY, 0))
    for seat in range(1, 7):
        engine.apply(Action(K.ACCEPT, seat))
    draw = engine.chance_request()
    assert draw is not None and draw.positions == (28, 29, 30, 31)
    engine.apply_chance([DECK[p] for p in draw.positions])
    # the stock is empty: nobody else can exchange, play starts
    assert engine.public_state()["hand"]["phase"] == "play"


# --- winning with a jack ----------------------------------------------------------------------

JACK_HANDS = {0: "10C 10D 10H JS", 1: "7C 7D 7H 8H"}


def test_winning_the_last_trick_with_a_jack_takes_one_point_off() -> None:
    table = start(new(2, dealer=1, scores=[3, 0], **PLAIN), JACK_HANDS)
    table.plays("0:10C", "1:7C", "0:10D", "1:7D", "0:10H", "1:7H", "0:JS", "1:8H")
    assert table.engine.hand_result is not None
    assert table.engine.hand_result.deltas == (-1, 1)
    assert table.engine.scores() == (2, 1)


def test_jack_win_never_takes_penalties_below_zero() -> None:
    table = start(new(2, dealer=1, **PLAIN), JACK_HANDS)
    table.plays("0:10C", "1:7C", "0:10D", "1:7D", "0:10H", "1:7H", "0:JS", "1:8H")
    assert table.engine.scores() == (0, 1)


def test_jack_win_off_gives_nothing() -> None:
    table = start(new(2, dealer=1, scores=[3, 0], jack_win=False, **PLAIN), JACK_HANDS)
    table.plays("0:10C", "1:7C", "0:10D", "1:7D", "0:10H", "1:7H", "0:JS", "1:8H")
    assert table.engine.scores() == (3, 1)


# --- folding mid-trick, hidden hands, faults, config --------------------------------------------


def test_folded_leaders_card_stays_but_does_not_count() -> None:
    hands = {0: "10H 10D 10C JC", 1: "7S 7D 7C QC", 2: "8S 8D 8C KC"}
    table = start(new(3, dealer=2, **PLAIN), hands)
    table.plays("0:10H", "1:7S")
    table.act(K.KNOCK, 2)
    table.act(K.FOLD, 0)
    table.act(K.CALL, 1)
    table.play(2, "8S")
    trick = table.hand_state["trick"]
    assert trick["tricks"][0]["winner"] == 2
    assert trick["tricks"][0]["plays"][0] == [0, Card.parse("10H").index]


def test_a_trick_completed_by_a_fold_is_closed() -> None:
    table = plain3()
    table.plays("0:10C", "1:7C")
    table.act(K.KNOCK, 0)
    table.act(K.CALL, 1)
    table.act(K.FOLD, 2)
    assert table.hand_state["trick"]["tricks"][0]["winner"] == 0
    assert table.engine.to_act() == (0,)


def test_hidden_play_needs_a_position_and_an_unseen_card() -> None:
    engine = new(3, dealer=2, **PLAIN)
    table = start(engine, HANDS_3, deal=False)
    view = new(3, dealer=2, **PLAIN)  # seat 1's view
    view.start_hand()
    request = engine.chance_request()
    assert isinstance(request, Deal)
    dealt = [table.deck[p] for p in request.positions]
    table.fulfil()
    view.apply_chance(
        [c if s == 1 else None for (s, _), c in zip(request.assignments, dealt, strict=True)]
    )
    with pytest.raises(IllegalAction, match="must give the deck position"):
        view.verify(Action(K.PLAY, 0, card=Card.parse("10C")))
    with pytest.raises(IllegalAction, match="already seen"):
        view.verify(Action(K.PLAY, 0, card=Card.parse("7C"), position=0))  # seat 1 holds 7C
    with pytest.raises(IllegalAction, match="not in the hand"):
        view.verify(Action(K.PLAY, 0, card=Card.parse("9C"), position=1))  # seat 1's position
    play = Action(K.PLAY, 0, card=Card.parse("10C"), position=table.position_of("10C"))
    view.apply(play)
    engine.apply(play)
    assert view.public_digest() == engine.public_digest()


def test_forbidden_cards_are_the_led_suit_when_not_following() -> None:
    table = plain3()
    table.play(0, "JS")
    off = Action(K.PLAY, 1, card=Card.parse("7C"))
    assert table.engine.forbidden_cards(off) == cards_of_suit(Suit.SPADES)
    on = Action(K.PLAY, 1, card=Card.parse("QS"))
    assert table.engine.forbidden_cards(on) == frozenset()


def test_timeout_actions() -> None:
    table = start(new(3, dealer=2), LAUNDRY_TRUE, stock=STOCK)
    assert table.engine.timeout_action(0) == Action(K.PASS, 0)
    assert table.engine.timeout_action(1) is None
    table.act(K.LAUNDRY, 0)
    assert table.engine.timeout_action(1) == Action(K.ACCEPT, 1)
    table.act(K.ACCEPT, 1)
    table.act(K.ACCEPT, 2)
    table.act(K.PASS, 1)
    table.act(K.PASS, 2)
    assert table.engine.timeout_action(0) is None  # to lead: no fold possible
    table.act(K.KNOCK, 1)
    assert table.engine.timeout_action(2) == Action(K.FOLD, 2)
    poverty = plain3(scores=[0, 9, 0])
    assert poverty.engine.timeout_action(0) == Action(K.FOLD, 0)


def test_abort_gives_the_culprit_the_stake_and_others_nothing() -> None:
    table = start(new(3, dealer=2, tupp_attempt=False), LAUNDRY_BLUFF, stock=STOCK)
    table.act(K.LAUNDRY, 0)
    table.act(K.CHECK, 1)  # seat 0 got 1 point for the bluff
    table.act(K.PASS, 1)
    table.act(K.PASS, 2)
    table.act(K.KNOCK, 1)
    result = table.engine.abort_hand(2, "silent")
    assert result.deltas == (0, 0, 2) and result.winners == ()
    assert table.engine.scores() == (0, 0, 2)
    assert table.engine.dealer == 0
    assert not table.engine.hand_running


def test_abort_without_culprit_scores_nothing() -> None:
    table = plain3()
    result = table.engine.abort_hand(None, "network failure")
    assert result.deltas == (0, 0, 0)
    assert table.engine.dealer == 0


def test_options_have_documented_defaults_and_player_range() -> None:
    config = make_config("tuppen", 4)
    assert dict(config.options) == {
        "poverty": True,
        "tupp": True,
        "tupp_attempt": True,
        "dirty_laundry": True,
        "jack_win": True,
    }
    with pytest.raises(ConfigError):
        make_config("tuppen", 9)
    assert new_engine(config).hand_running is False


def test_illegal_chance_is_refused_atomically() -> None:
    engine = new(3, dealer=2, **PLAIN)
    engine.start_hand()
    before = engine.public_digest()
    with pytest.raises(IllegalAction, match="appears twice"):
        engine.apply_chance([Card.parse("7C")] * 12)
    with pytest.raises(IllegalAction, match="12 cards expected"):
        engine.apply_chance([Card.parse("7C")])
    assert engine.public_digest() == before


def test_actions_from_a_seat_out_of_the_game_are_refused() -> None:
    engine = new(3, dealer=2, scores=[10, 0, 0], **PLAIN)
    table = start(engine, {1: "7C 8C 9C 10C", 2: "7D 8D 9D 10D"})
    raises(table, Action(K.KNOCK, 0), "out of the game", 0)


def test_tupp_after_a_knock_costs_every_other_seat_three_folded_or_not() -> None:
    table = start(new(3, dealer=2, **PLAIN), TUPP_HANDS)
    table.act(K.KNOCK, 0)
    table.act(K.CALL, 1)
    table.act(K.FOLD, 2)
    table.act(K.TUPP, 1)  # seat 1 has not played a card yet
    result = table.engine.hand_result
    assert result is not None and result.deltas == (3, 0, 3)
