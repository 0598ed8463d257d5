"""Limit / No Limit / Pot Limit Tuppen: one test per rule sentence of seeds 000 and 001 (and
the general Tuppen rules of seed 003 they refer to), plus the project's decisions. See
spec/rules/limit-tuppen.md for the mapping."""

from __future__ import annotations

import pytest
from test_limit_helpers import K, act, autoplay, cards, fulfil, new, play, start

from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ConfigError, IllegalAction
from dealerless.protocol.rules.limit import SPECS, LimitEngine, replay
from dealerless.protocol.rules.limit_laundry import is_dirty_laundry
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.rules.tuppen_tricks import TUPPEN_ORDER, trick_winner

# dealer 0, four seats: the deal and the first lead start at seat 1
HANDS = {
    0: "AS 7S 8S 9S",
    1: "10H JC QC KC",
    2: "7H 8C 9D JD",
    3: "8H 9C 10D QD",
}
GAMES = ("limit-tuppen", "no-limit-tuppen", "pot-limit-tuppen")


def kinds(e: LimitEngine, seat: int) -> set[K]:
    return {a.kind for a in e.legal_actions(seat)}


def refused(e: LimitEngine, action: Action, text: str) -> IllegalAction:
    before = e.public_digest()
    with pytest.raises(IllegalAction) as info:
        e.apply(action)
    assert text in info.value.reason, info.value.reason
    assert e.public_digest() == before  # apply is atomic
    return info.value


def everyone_calls(e: LimitEngine) -> None:
    while e.betting.answering:
        act(e, K.CALL, e.betting.answering[0])


# --- general rules (000 "Allgemeine Regeln", 003) ----------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_two_to_eight_players(game: str) -> None:
    for n in (2, 4, 8):
        assert make_config(game, n).players == n
    for n in (1, 9):
        with pytest.raises(ConfigError):
            make_config(game, n)


def test_played_with_a_piquet_deck_of_32_cards() -> None:
    e = new(players=8)
    e.start_hand()
    request = e.chance_request()
    assert request is not None
    assert sorted(request.positions) == list(range(32))


def test_card_order_is_jack_queen_king_ace_seven_eight_nine_ten() -> None:
    order = cards("JH QH KH AH 7H 8H 9H 10H")
    assert [c.rank for c in order] == list(TUPPEN_ORDER)
    for i, low in enumerate(order):
        for high in order[i + 1 :]:
            assert trick_winner([(0, low), (1, high)], {0, 1}) == 1
    # in a real trick of eight: seat 0 (last to play) wins with the ten
    ranks = ["JH", "QH", "KH", "AH", "7H", "8H", "9H", "10H"]
    hands = dict(zip([1, 2, 3, 4, 5, 6, 7, 0], ranks, strict=True))
    e = start(hands, players=8)
    for seat in [1, 2, 3, 4, 5, 6, 7, 0]:
        play(e, seat, hands[seat])
    assert e.trick.completed[0].winner == 0


def test_must_follow_suit_if_possible() -> None:
    e = start(HANDS)
    play(e, 1, "10H")
    err = refused(e, Action(K.PLAY, 2, card=Card.parse("8C")), "must follow suit hearts")
    assert err.seat == 2 and "trick 1" in err.where
    play(e, 2, "7H")
    play(e, 3, "8H")
    play(e, 0, "AS")  # no hearts: any card


def test_the_winner_of_the_last_trick_takes_the_pot() -> None:
    e = start(HANDS)
    autoplay(e)
    result = e.hand_result
    assert result is not None and result.reason == "last trick"
    winner = e.trick.completed[-1].winner
    assert result.winners == (winner,)
    assert result.deltas == tuple(3 if s == winner else -1 for s in range(4))


# --- dealing (000 "Geben") --------------------------------------------------------------------


def test_dealing_starts_left_of_the_dealer_and_goes_clockwise() -> None:
    e = new(dealer=2)
    e.start_hand()
    request = e.chance_request()
    assert request is not None
    assert [s for s, _ in request.assignments[:4]] == [3, 0, 1, 2]  # type: ignore[union-attr]


def test_cards_are_dealt_one_at_a_time() -> None:
    e = new(dealer=0)
    e.start_hand()
    request = e.chance_request()
    assert request is not None
    assignments = request.assignments  # type: ignore[union-attr]
    assert [s for s, _ in assignments] == [1, 2, 3, 0] * 4
    assert [p for _, p in assignments] == list(range(16))


def test_every_player_gets_four_cards() -> None:
    e = start(HANDS)
    assert [len(e.hand(s)) for s in range(4)] == [4, 4, 4, 4]
    assert [c.card for c in e.hand(1)] == cards(HANDS[1])


# --- course of play (000 "Spielablauf") -------------------------------------------------------


def test_every_player_starts_with_10_chips() -> None:
    e = new()
    assert e.bank.stacks == [10, 10, 10, 10]


def test_everyone_pays_an_ante_of_1_chip_before_the_deal() -> None:
    e = new()
    e.start_hand()
    assert e.chance_request() is not None  # the cards are not dealt yet
    assert e.bank.stacks == [9, 9, 9, 9]
    assert e.betting.pot == 4 and e.betting.contributions == [1, 1, 1, 1]


def test_the_player_left_of_the_dealer_acts_first_with_a_play_or_a_knock() -> None:
    e = start(HANDS, dealer=0)
    assert e.to_act() == (1,)
    assert kinds(e, 1) == {K.PLAY, K.KNOCK}


def test_knocking_only_before_playing_your_card_to_the_trick() -> None:
    e = start(HANDS, knock_timing="any-time")
    play(e, 1, "10H")
    refused(e, Action(K.KNOCK, 1), "before playing your card")
    act(e, K.KNOCK, 3)  # seat 3 has not played yet


def test_after_a_knock_the_other_active_players_may_call_fold_or_raise() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    assert e.to_act() == (2,)
    assert kinds(e, 2) == {K.CALL, K.FOLD, K.RAISE}
    refused(e, Action(K.PLAY, 1, card=Card.parse("10H")), "a knock is being answered")


def test_the_player_left_of_the_knocker_answers_first() -> None:
    e = start(HANDS)
    play(e, 1, "10H")
    play(e, 2, "7H")
    act(e, K.KNOCK, 3)
    assert e.betting.answering == [0, 1, 2]
    refused(e, Action(K.CALL, 1), "seat 0 answers first")


def test_a_knock_bets_1_chip() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    assert e.bank.stacks[1] == 8 and e.betting.pot == 5 and e.betting.current_bet == 1


def test_play_goes_clockwise() -> None:
    e = start(HANDS)
    order = []
    for card in ("10H", "7H", "8H", "AS"):
        seat = e.to_act()[0]
        order.append(seat)
        play(e, seat, card)
    assert order == [1, 2, 3, 0]


def test_a_call_puts_1_chip_in_the_pot() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    assert e.betting.pot == 5 and e.bank.stacks[1] == 8
    act(e, K.CALL, 2)
    assert e.betting.pot == 6 and e.bank.stacks[2] == 8


def test_a_fold_lays_down_the_cards_and_leaves_the_hand() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    act(e, K.FOLD, 2)
    act(e, K.CALL, 3)
    act(e, K.CALL, 0)
    assert 2 not in e.active
    play(e, 1, "10H")
    assert e.to_act() == (3,)  # seat 2 is skipped
    autoplay(e)
    assert e.hand_result is not None and e.hand_result.deltas[2] == -1


def test_a_raise_puts_the_call_plus_1_chip() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    act(e, K.RAISE, 2)
    assert e.bank.stacks[2] == 7 and e.betting.current_bet == 2
    assert e.betting.answering == [3, 0, 1]
    act(e, K.CALL, 3)
    act(e, K.CALL, 0)
    act(e, K.CALL, 1)
    assert e.bank.stacks == [7, 7, 7, 7] and e.betting.pot == 12


def test_a_raise_reopens_the_answers_for_seats_that_called() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    act(e, K.CALL, 2)
    act(e, K.RAISE, 3)
    assert e.betting.answering == [0, 1, 2]
    act(e, K.CALL, 0)
    act(e, K.CALL, 1)
    assert e.to_act() == (2,)
    act(e, K.CALL, 2)
    assert e.to_act() == (1,)  # back to the card play


def test_knock_only_when_it_is_your_turn_by_default() -> None:
    e = start(HANDS)
    assert e.may_act() == (1,)
    refused(e, Action(K.KNOCK, 3), "only when it is your turn")


def test_never_knock_twice_in_a_row_even_across_tricks() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    everyone_calls(e)
    for seat, card in ((1, "10H"), (2, "7H"), (3, "8H"), (0, "AS")):
        play(e, seat, card)
    assert e.to_act() == (1,)  # seat 1 won the trick and leads
    assert K.KNOCK not in kinds(e, 1)
    refused(e, Action(K.KNOCK, 1), "twice in a row")


def test_a_raise_counts_as_a_knock_for_never_twice_in_a_row() -> None:
    e = start(HANDS, dealer=1)  # seat 2 leads
    act(e, K.KNOCK, 2)
    act(e, K.RAISE, 3)
    everyone_calls(e)
    play(e, 2, "7H")
    refused(e, Action(K.KNOCK, 3), "twice in a row")


def test_another_player_may_knock_again_and_you_too_after_them() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    everyone_calls(e)
    play(e, 1, "10H")
    act(e, K.KNOCK, 2)  # another player knocks again
    everyone_calls(e)
    for seat, card in ((2, "7H"), (3, "8H"), (0, "AS")):
        play(e, seat, card)
    assert K.KNOCK in kinds(e, 1)  # seat 1 may knock again: seat 2 knocked after it
    act(e, K.KNOCK, 1)


def test_when_all_others_fold_the_knocker_wins_the_pot_at_once() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    for seat in (2, 3, 0):
        act(e, K.FOLD, seat)
    result = e.hand_result
    assert result is not None and result.reason == "all others folded"
    assert result.winners == (1,) and result.deltas == (-1, 3, -1, -1)
    assert e.bank.stacks == [9, 13, 9, 9]


def test_after_each_hand_the_stack_is_refilled_to_10_in_play_money() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    for seat in (2, 3, 0):
        act(e, K.FOLD, seat)
    start(HANDS, engine=e)
    assert e.bank.stacks == [9, 9, 9, 9]
    assert e.scores() == (-1, 3, -1, -1)


def test_in_cash_mode_the_stacks_carry_over() -> None:
    e = start(HANDS, mode="cash")
    act(e, K.KNOCK, 1)
    for seat in (2, 3, 0):
        act(e, K.FOLD, seat)
    assert e.scores() == (-1, 3, -1, -1)
    start(HANDS, engine=e)
    assert e.bank.stacks == [8, 12, 8, 8]


def test_in_cash_mode_a_broke_seat_buys_back_up_to_the_maximum_buy_in() -> None:
    e = start({}, game="no-limit-tuppen", players=2, mode="cash", max_buy_in=10)
    act(e, K.KNOCK, 1, 9)
    act(e, K.CALL, 0)
    autoplay(e)
    assert e.hand_result is not None
    loser = 1 - e.hand_result.winners[0]
    assert e.bank.stacks[loser] == 0
    start({}, engine=e)
    assert e.bank.bought_in[loser] == 20 and e.bank.stacks[loser] == 9
    assert e.scores()[loser] == -11  # 9 chips left of 20 bought; the ante is in the pot
    assert sum(e.scores()) + e.betting.pot == 0


# --- the folded leader (000 "Sonderfall") -----------------------------------------------------


def _leader_folds() -> LimitEngine:
    e = start(HANDS)
    play(e, 1, "10H")
    play(e, 2, "7H")
    act(e, K.KNOCK, 3)
    act(e, K.CALL, 0)
    act(e, K.FOLD, 1)  # the leader folds
    act(e, K.CALL, 2)
    return e


def test_after_the_leader_folds_the_others_still_follow_the_led_suit() -> None:
    e = _leader_folds()
    refused(e, Action(K.PLAY, 3, card=Card.parse("9C")), "must follow suit hearts")
    play(e, 3, "8H")


def test_cards_of_folded_players_do_not_count() -> None:
    e = _leader_folds()
    play(e, 3, "8H")
    play(e, 0, "AS")
    assert e.trick.completed[0].winner != 1  # the ten of hearts no longer counts


def test_an_active_follower_of_the_led_suit_makes_its_highest_card_win() -> None:
    e = _leader_folds()
    play(e, 3, "8H")
    play(e, 0, "AS")
    assert e.trick.completed[0].winner == 3  # 8H beats 7H


def test_without_an_active_follower_the_next_active_players_suit_decides() -> None:
    hands = {0: "AS 7S 8S 9S", 1: "10H JC QC KC", 2: "8C 9D JD 7D", 3: "9C 10D QD 8D"}
    e = start(hands)
    play(e, 1, "10H")
    act(e, K.KNOCK, 2)
    act(e, K.CALL, 3)
    act(e, K.CALL, 0)
    act(e, K.FOLD, 1)
    play(e, 2, "8C")  # the next active player after the leader: clubs decide
    play(e, 3, "9C")
    play(e, 0, "AS")
    assert e.trick.completed[0].winner == 3


# --- general Tuppen rules from seed 003 -------------------------------------------------------


def test_the_trick_winner_leads_the_next_trick() -> None:
    e = start(HANDS)
    for seat, card in ((1, "10H"), (2, "7H"), (3, "8H"), (0, "AS")):
        play(e, seat, card)
    assert e.to_act() == (1,) and e.trick.leader == 1


def test_played_cards_stay_open_on_the_table() -> None:
    e = start(HANDS)
    play(e, 1, "10H")
    play(e, 2, "7H")
    state = e.public_state()
    assert state["trick"]["current"] == [[1, Card.parse("10H").index], [2, Card.parse("7H").index]]


def test_the_dealer_rotates_clockwise_each_hand() -> None:
    e = start(HANDS, engine=new(dealer=3, hands=3))
    autoplay(e)
    start({}, engine=e)
    assert e.dealer == 0
    autoplay(e)
    start({}, engine=e)
    assert e.dealer == 1 and e.to_act() == (2,)


# --- why Limit Tuppen: hand by hand, zero-sum, tournaments ------------------------------------


def test_the_game_is_played_hand_by_hand_and_is_zero_sum() -> None:
    e = new(hands=3)
    for _ in range(3):
        start({}, engine=e)
        autoplay(e)
        assert sum(e.hand_result.deltas) == 0  # type: ignore[union-attr]
        assert sum(e.scores()) == 0
    assert e.outcome is not None and len(e.results) == 3
    with pytest.raises(IllegalAction, match="game is over"):
        e.start_hand()


def test_in_a_tournament_a_seat_without_chips_is_out() -> None:
    e = start({}, game="no-limit-tuppen", players=3, mode="tournament")
    act(e, K.KNOCK, 1, 9)
    act(e, K.FOLD, 2)
    act(e, K.CALL, 0)
    autoplay(e)
    assert e.hand_result is not None
    loser = 1 if e.hand_result.winners == (0,) else 0
    assert e.bank.stacks[loser] == 0 and e.outcome is None
    e.start_hand()
    assert loser not in e.active
    request = e.chance_request()
    assert request is not None
    assert loser not in {s for s, _ in request.assignments}  # type: ignore[union-attr]
    assert sum(e.bank.stacks) + e.betting.pot == 30


def test_in_a_tournament_the_antes_rise_regularly() -> None:
    e = new(mode="tournament", ante_increase_every=2, starting_chips=20)
    antes = []
    for _ in range(5):
        start({}, engine=e)
        antes.append(e.public_state()["ante"])
        autoplay(e)
    assert antes == [1, 1, 2, 2, 3]


def test_in_a_tournament_a_seat_that_cannot_pay_the_full_ante_pays_what_it_has() -> None:
    e = new(players=2, mode="tournament", starting_chips=3, ante=2, ante_increase_every=1)
    start({}, engine=e)
    autoplay(e)  # winner 5, loser 1
    start({}, engine=e)  # ante 3
    assert e.hand_result is None
    assert sorted(e.ante_paid) == [1, 3]
    seat = e.to_act()[0]
    assert K.KNOCK not in kinds(e, seat)  # the broke seat could not cover any knock
    refused(e, Action(K.KNOCK, seat), "could not cover it")


def test_a_tournament_ends_when_one_seat_has_all_the_chips() -> None:
    e = start({}, game="no-limit-tuppen", players=2, mode="tournament")
    act(e, K.KNOCK, 1, 9)
    act(e, K.CALL, 0)
    autoplay(e)
    assert e.outcome is not None
    assert e.outcome.standings in ((20, 0), (0, 20))
    assert e.outcome.winners == (e.outcome.standings.index(20),)


# --- optional dirty laundry (000 "Optionale Zusatzregel") -------------------------------------

LAUNDRY = {0: "AS 7S 8S 9S", 1: "JC QC KC AC", 2: "7H 8C 9D JD", 3: "8H 9C 10D QD"}
BLUFF = {0: "AS 7S 8S 9S", 1: "10H JC QC KC", 2: "7H 8C 9D JD", 3: "8H 9C 10D QD"}
STOCK = "7D 8D 9H 10S"


def test_dirty_laundry_is_four_face_cards_or_three_and_a_seven() -> None:
    assert is_dirty_laundry(cards("JC QD KH AS"))
    assert is_dirty_laundry(cards("JC QD KH 7S"))
    assert not is_dirty_laundry(cards("JC QD 7H 7S"))
    assert not is_dirty_laundry(cards("JC QD KH 8S"))


def test_dirty_laundry_is_off_by_default() -> None:
    e = start(LAUNDRY)
    assert e.phase == "play" and K.LAUNDRY not in kinds(e, 1)


def test_dirty_laundry_exchange_round_runs_from_the_dealers_left_before_the_first_lead() -> None:
    e = start(LAUNDRY, dirty_laundry=True)
    order = []
    while e.phase == "exchange":
        seat = e.to_act()[0]
        order.append(seat)
        refused(e, Action(K.PLAY, seat, card=e.hand(seat)[0].card), "exchange round")
        act(e, K.PASS, seat)
    assert order == [1, 2, 3, 0] and e.phase == "play" and e.to_act() == (1,)


def test_dirty_laundry_declarer_sets_the_cards_aside_and_draws_four() -> None:
    e = start(LAUNDRY, dirty_laundry=True, stock=STOCK)
    act(e, K.LAUNDRY, 1)
    request = e.chance_request()
    assert request is not None and request.positions == (16, 17, 18, 19)
    fulfil(e)
    assert [s.card for s in e.hand(1)] == cards(STOCK)
    assert e.phase == "check" and e.laundry.checkers == [2, 3, 0]


def test_dirty_laundry_may_be_bluffed() -> None:
    e = start(BLUFF, dirty_laundry=True, stock=STOCK)
    assert K.LAUNDRY in kinds(e, 1)
    act(e, K.LAUNDRY, 1)
    fulfil(e)
    assert [s.card for s in e.hand(1)] == cards(STOCK)


def test_every_other_player_may_check_the_discarded_cards() -> None:
    e = start(LAUNDRY, dirty_laundry=True, stock=STOCK)
    act(e, K.LAUNDRY, 1)
    fulfil(e)
    act(e, K.ACCEPT, 2)
    act(e, K.CHECK, 3)
    request = e.chance_request()
    assert request is not None and request.seat == 1  # type: ignore[union-attr]
    assert request.positions == (0, 4, 8, 12)


def test_true_dirty_laundry_the_checker_pays_1_chip() -> None:
    e = start(LAUNDRY, dirty_laundry=True, stock=STOCK)
    act(e, K.LAUNDRY, 1)
    fulfil(e)
    act(e, K.CHECK, 2)
    fulfil(e)
    assert e.bank.stacks == [9, 9, 8, 9] and e.betting.pot == 5
    assert [s.card for s in e.hand(1)] == cards(STOCK)
    assert e.laundry.outcomes[0]["true"] is True


def test_bluffed_dirty_laundry_the_bluffer_pays_1_chip_and_keeps_the_original_cards() -> None:
    e = start(BLUFF, dirty_laundry=True, stock=STOCK)
    act(e, K.LAUNDRY, 1)
    fulfil(e)
    act(e, K.CHECK, 2)
    fulfil(e)
    assert e.bank.stacks == [9, 8, 9, 9] and e.betting.pot == 5
    assert sorted(s.card for s in e.hand(1) if s.card) == sorted(cards(BLUFF[1]))
    assert e.laundry.outcomes[0]["true"] is False


def test_accepted_dirty_laundry_costs_nothing() -> None:
    e = start(LAUNDRY, dirty_laundry=True, stock=STOCK)
    act(e, K.LAUNDRY, 1)
    fulfil(e)
    for seat in (2, 3, 0):
        act(e, K.ACCEPT, seat)
    assert e.bank.stacks == [9, 9, 9, 9] and e.to_act() == (2,)


def test_no_dirty_laundry_when_the_stock_cannot_give_four_cards() -> None:
    e = start({}, players=8, dirty_laundry=True)
    assert e.phase == "play"


def test_a_seat_without_chips_can_neither_declare_nor_check_dirty_laundry() -> None:
    e = new(
        players=2,
        mode="tournament",
        starting_chips=3,
        ante=2,
        ante_increase_every=1,
        dirty_laundry=True,
    )
    start({}, engine=e)
    autoplay(e)
    start({}, engine=e)  # ante 3: the loser pays its last chip
    broke = e.bank.stacks.index(0)
    rich = 1 - broke
    assert e.laundry.deciding == rich  # the broke seat is skipped
    act(e, K.LAUNDRY, rich)
    fulfil(e)
    assert e.phase == "play"  # nobody could pay for a check: the declaration stands
    assert e.laundry.outcomes[0]["checked_by"] is None


# --- No Limit and Pot Limit -------------------------------------------------------------------


def test_in_no_limit_a_knock_bets_any_amount_up_to_your_stack() -> None:
    e = start({}, game="no-limit-tuppen", players=2)
    assert [a.amount for a in e.legal_actions(1) if a.kind == K.KNOCK] == list(range(1, 10))
    refused(e, Action(K.KNOCK, 1, amount=10), "by 1 to 9 chips")
    refused(e, Action(K.KNOCK, 1), "by 1 to 9 chips")
    act(e, K.KNOCK, 1, 5)
    assert e.bank.stacks[1] == 4 and e.betting.current_bet == 5
    act(e, K.RAISE, 0, 4)
    assert e.bank.stacks[0] == 0 and e.betting.current_bet == 9


def test_every_knock_is_capped_so_that_every_active_seat_can_cover_it() -> None:
    e = start({}, game="no-limit-tuppen", players=2, mode="cash")
    act(e, K.KNOCK, 1, 3)
    act(e, K.FOLD, 0)  # stacks now 9 and 11
    start({}, engine=e)  # dealer 1, seat 0 leads; stacks 8 and 10
    assert e.to_act() == (0,)
    play(e, 0, str(e.hand(0)[0].card))
    amounts = [a.amount for a in e.legal_actions(1) if a.kind == K.KNOCK]
    assert amounts == list(range(1, 9))  # capped by seat 0's stack of 8


def test_no_knock_or_raise_once_an_active_seat_has_no_chips_left() -> None:
    e = start({}, players=2, starting_chips=3)
    act(e, K.KNOCK, 1)
    act(e, K.RAISE, 0)
    assert e.bank.stacks == [0, 1]
    assert kinds(e, 1) == {K.CALL, K.FOLD}
    refused(e, Action(K.RAISE, 1), "could not cover it")


def test_in_limit_a_knock_is_always_one_chip() -> None:
    e = start(HANDS)
    refused(e, Action(K.KNOCK, 1, amount=2), "always 1 chip")


def test_in_pot_limit_a_knock_bets_at_most_the_pot() -> None:
    e = start(HANDS, game="pot-limit-tuppen", mode="cash", max_buy_in=100)
    assert [a.amount for a in e.legal_actions(1) if a.kind == K.KNOCK] == [1, 2, 3, 4]
    refused(e, Action(K.KNOCK, 1, amount=5), "by 1 to 4 chips")
    act(e, K.KNOCK, 1, 4)
    # a raise: at most the pot after the call (8 + 4)
    assert max(a.amount or 0 for a in e.legal_actions(2) if a.kind == K.RAISE) == 12


# --- seed 001: knocking at any time -----------------------------------------------------------


def test_any_time_option_lets_any_active_player_knock_out_of_turn() -> None:
    e = start(HANDS, knock_timing="any-time")
    assert e.to_act() == (1,) and e.may_act() == (0, 1, 2, 3)
    act(e, K.KNOCK, 3)
    assert e.betting.answering == [0, 1, 2]  # from the knocker's left (decision)
    assert e.may_act() == (0,)  # no knock while a knock is answered
    refused(e, Action(K.KNOCK, 2), "being answered")


def test_any_time_option_a_knocker_may_not_knock_twice_in_a_row() -> None:
    e = start(HANDS, knock_timing="any-time")
    act(e, K.KNOCK, 3)
    everyone_calls(e)
    assert 3 not in e.may_act()


# --- errors, faults, hidden information, history ----------------------------------------------


def test_illegal_actions_say_why_and_where() -> None:
    e = new()
    with pytest.raises(IllegalAction, match="no hand is running"):
        e.apply(Action(K.KNOCK, 1))
    e.start_hand()
    err = refused(e, Action(K.KNOCK, 1), "chance step is pending")
    assert err.where == "hand 1, deal"
    fulfil(e, list(Card.from_index(i) for i in range(32)))
    refused(e, Action(K.PLAY, 2, card=e.hand(2)[0].card), "seat 1 is to play")
    refused(e, Action(K.CALL, 2), "no knock to answer")
    refused(e, Action(K.PLAY, 1, card=e.hand(2)[0].card), "not in your hand")
    refused(e, Action(K.BID, 1), "not an action of this game")
    refused(e, Action(K.KNOCK, 1, card=e.hand(1)[0].card), "takes no card")
    refused(e, Action(K.PLAY, 1, card=e.hand(1)[0].card, amount=1), "takes no amount")
    act(e, K.KNOCK, 1)
    refused(e, Action(K.CALL, 3), "seat 2 answers first")
    refused(e, Action(K.CALL, 2, amount=1), "takes no amount")


def test_timeouts_fold_an_answer_pass_the_exchange_accept_a_check_and_abort_a_play() -> None:
    e = start(LAUNDRY, dirty_laundry=True, stock=STOCK)
    assert e.timeout_action(1) == Action(K.PASS, 1)
    assert e.timeout_action(2) is None  # not waited for
    act(e, K.LAUNDRY, 1)
    fulfil(e)
    assert e.timeout_action(2) == Action(K.ACCEPT, 2)
    for seat in (2, 3, 0):
        act(e, K.ACCEPT, seat)
    while e.phase == "exchange":
        act(e, K.PASS, e.to_act()[0])
    assert e.timeout_action(1) is None  # a fold is only an answer to a knock
    act(e, K.KNOCK, 1)
    assert e.timeout_action(2) == Action(K.FOLD, 2)


def test_abort_refunds_the_honest_seats_and_splits_the_culprits_contribution() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    act(e, K.CALL, 2)
    act(e, K.FOLD, 3)
    result = e.abort_hand(2, "bad proof")
    # honest seats get their chips back; seat 2's 2 chips go to seats 0 and 1 (active, honest)
    assert result.deltas == (1, 1, -2, 0) and result.reason == "voided: bad proof"
    assert e.bank.stacks == [11, 11, 8, 10] and not e.hand_running


def test_abort_split_remainder_goes_in_order_from_the_dealers_left() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    everyone_calls(e)
    result = e.abort_hand(0, "silent")
    assert result.deltas == (-2, 1, 1, 0)


def test_abort_without_culprit_returns_every_contribution() -> None:
    e = start(HANDS)
    act(e, K.KNOCK, 1)
    everyone_calls(e)
    result = e.abort_hand(None, "network")
    assert result.deltas == (0, 0, 0, 0) and e.bank.stacks == [10, 10, 10, 10]


def _view(seat: int, game: str = "limit-tuppen", **options: object) -> tuple[LimitEngine, ...]:
    """An all-seeing engine and seat's view engine, dealt HANDS."""
    full = start(HANDS, game=game, **options)  # type: ignore[arg-type]
    view = new(game, 4, 0, **options)  # type: ignore[arg-type]
    view.start_hand()
    deck = full.deck  # type: ignore[attr-defined]
    request = view.chance_request()
    assert request is not None
    view.apply_chance(
        [deck[p] if s == seat else None for s, p in request.assignments]  # type: ignore[union-attr]
    )
    return full, view


def test_a_hidden_hand_play_carries_its_position_and_names_forbidden_cards() -> None:
    full, view = _view(0)
    assert view.legal_actions(1) == [Action(K.KNOCK, 1)]  # seat 0 cannot see seat 1's cards
    position = next(s.position for s in full.hand(1) if s.card == Card.parse("10H"))
    refused(view, Action(K.PLAY, 1, card=Card.parse("10H")), "deck position")
    play_10h = Action(K.PLAY, 1, card=Card.parse("10H"), position=position)
    view.apply(play_10h)
    full.apply(play_10h)
    off_suit = Action(K.PLAY, 2, card=Card.parse("8C"), position=4 * 0 + 1)
    assert view.forbidden_cards(off_suit) == frozenset(cards("7H 8H 9H 10H JH QH KH AH"))
    assert view.can(off_suit) and not full.can(off_suit)  # the proof decides on the view
    refused(view, Action(K.PLAY, 2, card=Card.parse("AS"), position=1), "already seen")
    assert view.public_digest() == full.public_digest()


def test_a_reveal_contradicting_what_a_viewer_saw_is_the_declarers_violation() -> None:
    full = start(BLUFF, dirty_laundry=True, stock=STOCK)
    view = new(players=4, dealer=0, dirty_laundry=True)
    view.start_hand()
    deck = full.deck  # type: ignore[attr-defined]
    request = view.chance_request()
    assert request is not None
    view.apply_chance([deck[p] if s == 2 else None for s, p in request.assignments])  # type: ignore[union-attr]
    for e in (full, view):
        act(e, K.LAUNDRY, 1)
    request = view.chance_request()
    assert request is not None
    view.apply_chance([None] * 4)
    act(view, K.CHECK, 2)
    # seat 1 "reveals" seat 2's own 7H among its discarded cards
    before = view.public_digest()
    with pytest.raises(IllegalAction) as info:
        view.apply_chance(cards("7H JC QC KC"))
    assert info.value.seat == 1 and "twice" in info.value.reason
    assert view.public_digest() == before


def test_the_history_replays_to_the_same_public_state() -> None:
    e = start(LAUNDRY, dirty_laundry=True, stock=STOCK)
    act(e, K.LAUNDRY, 1)
    fulfil(e)
    act(e, K.CHECK, 2)
    fulfil(e)
    while e.phase == "exchange":
        act(e, K.PASS, e.to_act()[0])
    act(e, K.KNOCK, 1)
    everyone_calls(e)
    autoplay(e)
    again = replay(e.config, 0, e.history)
    assert again.public_digest() == e.public_digest()
    assert again.results == e.results


def test_every_option_has_a_documented_default() -> None:
    for spec in SPECS.values():
        names = {o.name: o.default for o in spec.options}
        assert names == {
            "knock_timing": "own-turn",
            "mode": "play-money",
            "starting_chips": 10,
            "ante": 1,
            "hands": 20,
            "max_buy_in": 10,
            "ante_increase_every": 5,
            "dirty_laundry": False,
        }
        assert all(o.description for o in spec.options)
    with pytest.raises(ConfigError):
        LimitEngine(make_config("limit-tuppen", 4, {"ante": 20}))
