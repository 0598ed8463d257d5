"""Belote (seed 002): one test per rule sentence, plus the decisions in spec/rules/belote.md."""

from __future__ import annotations

import pytest
from test_belote_helpers import (
    OBLIGATIONS,
    TRUMP_LEAD,
    cards,
    feed,
    finish_hand,
    make_deck,
    new_engine,
    play,
    play_action,
    start,
)

from dealerless.protocol.cards import DECK, Card, Rank, Suit
from dealerless.protocol.rules.base import (
    Action,
    ActionKind,
    ConfigError,
    Deal,
    GameConfig,
    IllegalAction,
    TurnUp,
)
from dealerless.protocol.rules.belote import REDEAL_REASON, BeloteEngine, replay
from dealerless.protocol.rules.belote_scoring import score_hand
from dealerless.protocol.rules.belote_tricks import (
    PLAIN_ORDER,
    TRUMP_ORDER,
    card_points,
    legal_cards,
    obligation,
    winning_play,
)
from dealerless.protocol.rules.registry import make_config

PLAIN_DEAL = {
    0: "AC KC QC JC 10C 9C 8C 7C",
    1: "AD KD QD JD 10D 9D 8D 7D",
    2: "AH KH QH JH 10H 9H 8H 7H",
    3: "AS KS QS JS 10S 9S 8S 7S",
}


def illegal(engine: BeloteEngine, action: Action) -> str:
    digest = engine.public_digest()
    history = len(engine.history)
    with pytest.raises(IllegalAction) as info:
        engine.apply(action)
    assert engine.public_digest() == digest, "a refused action must not change the state"
    assert len(engine.history) == history
    return str(info.value)


def bid(engine: BeloteEngine, suit: str | None) -> None:
    seat = engine.to_act()[0]
    if suit is None:
        engine.apply(Action(ActionKind.PASS, seat))
    else:
        engine.apply(Action(ActionKind.BID, seat, suit=Suit.parse(suit)))


def dealt_engine(dealer: int = 0, hands: dict[int, str] | None = None) -> BeloteEngine:
    """A hand dealt up to the bidding (turned-up card 7H unless the hands say otherwise)."""
    engine = new_engine(dealer=dealer)
    engine.start_hand()
    deck = make_deck(dealer, hands or PLAIN_DEAL, "7H", 2)
    feed(engine, deck)
    feed(engine, deck)
    return engine


# --- the game: players, deck, teams, target ------------------------------------------------


def test_belote_is_a_game_for_four_players() -> None:
    with pytest.raises(ConfigError):
        make_config("belote", 3)
    with pytest.raises(ConfigError):
        BeloteEngine(GameConfig("belote", 5, make_config("belote", 4).options))


def test_belote_uses_32_cards_without_twos_to_sixes() -> None:
    engine = new_engine()
    engine.start_hand()
    request = engine.chance_request()
    assert isinstance(request, Deal)
    engine.apply_chance([DECK[p] for p in request.positions])
    up = engine.chance_request()
    assert isinstance(up, TurnUp) and up.position == 20
    engine.apply_chance([DECK[20]])
    bid(engine, "H")
    rest = engine.chance_request()
    assert isinstance(rest, Deal)
    assert sorted((*request.positions, 20, *rest.positions)) == list(range(32))
    assert {c.rank for c in DECK} == set(Rank)  # 7 8 9 10 J Q K A only


def test_partners_sit_opposite_and_score_as_one_team() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    finish_hand(engine)
    result = engine.hand_result
    assert result is not None
    assert result.deltas[0] == result.deltas[2] and result.deltas[1] == result.deltas[3]
    assert engine.scores()[0] == engine.scores()[2]


def test_the_first_team_to_reach_the_target_wins() -> None:
    engine = start(OBLIGATIONS, "8H", 1, options={"target": 501})
    engine.team_scores = [495, 400]
    finish_hand(engine)
    assert engine.hand_result is not None
    assert engine.outcome is not None
    assert max(engine.team_scores) >= 501
    team = 0 if engine.team_scores[0] > engine.team_scores[1] else 1
    assert engine.outcome.winners == (team, team + 2)
    with pytest.raises(IllegalAction, match="game is over"):
        engine.start_hand()


def test_reaching_501_wins_the_game() -> None:
    engine = dealt_engine()
    engine.team_scores = [501, 0]
    engine.abort_hand(None, "test")
    assert engine.outcome is not None and engine.outcome.winners == (0, 2)
    assert engine.outcome.standings == (501, 0, 501, 0)


def test_equal_scores_at_or_over_the_target_play_on() -> None:
    engine = dealt_engine()
    engine.team_scores = [520, 520]
    engine.abort_hand(None, "test")
    assert engine.outcome is None
    engine.start_hand()
    engine.team_scores = [520, 530]
    engine.abort_hand(None, "test")
    assert engine.outcome is not None and engine.outcome.winners == (1, 3)


def test_both_teams_over_the_target_the_higher_score_wins() -> None:
    engine = dealt_engine()
    engine.team_scores = [480, 470]
    engine.abort_hand(0, "test")  # team 1 scores 162: 480 vs 632
    assert engine.outcome is not None and engine.outcome.winners == (1, 3)


# --- dealer ----------------------------------------------------------------------------------


def test_the_first_dealer_is_given_and_the_next_seat_in_play_order_deals_next() -> None:
    engine = new_engine(dealer=2)
    engine.start_hand()
    assert engine.dealer == 2
    engine.abort_hand(None, "test")
    engine.start_hand()
    assert engine.dealer == 3
    engine.abort_hand(None, "test")
    engine.start_hand()
    assert engine.dealer == 0


def test_constructor_does_not_start_a_hand() -> None:
    engine = new_engine()
    assert not engine.hand_running and engine.chance_request() is None and engine.to_act() == ()


# --- deal and turn-up ------------------------------------------------------------------------


def test_each_player_gets_three_cards_then_two_starting_after_the_dealer() -> None:
    engine = new_engine(dealer=1)
    engine.start_hand()
    request = engine.chance_request()
    assert isinstance(request, Deal)
    seats = [s for s, _ in request.assignments]
    assert seats == [2, 2, 2, 3, 3, 3, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 0, 0, 1, 1]
    assert request.positions == tuple(range(20))


def test_a_card_is_turned_up_when_everyone_has_five() -> None:
    engine = new_engine()
    engine.start_hand()
    deck = make_deck(0, PLAIN_DEAL, "7H", 2)
    feed(engine, deck)
    assert all(len(engine.hand(s)) == 5 for s in range(4))
    request = engine.chance_request()
    assert isinstance(request, TurnUp) and request.position == 20
    assert engine.to_act() == ()
    events = engine.apply_chance([deck[20]])
    assert events[0].kind == "turned_up" and events[0].data["card"] == Card.parse("7H").index
    assert engine.public_state()["turned"] == [20, Card.parse("7H").index]


def test_the_turned_up_card_cannot_be_hidden() -> None:
    engine = new_engine()
    engine.start_hand()
    deck = make_deck(0, PLAIN_DEAL, "7H", 2)
    feed(engine, deck)
    with pytest.raises(IllegalAction, match="shown to everyone"):
        engine.apply_chance([None])


def test_a_card_dealt_twice_is_refused() -> None:
    engine = new_engine()
    engine.start_hand()
    deck = make_deck(0, PLAIN_DEAL, "7H", 2)
    feed(engine, deck)
    digest = engine.public_digest()
    with pytest.raises(IllegalAction, match="appears twice"):
        engine.apply_chance([deck[0]])
    assert engine.public_digest() == digest


# --- bidding -------------------------------------------------------------------------------


def test_the_player_after_the_dealer_may_take_the_turned_up_suit_as_trump() -> None:
    engine = dealt_engine(dealer=0)
    assert engine.to_act() == (1,)
    assert engine.legal_actions(1) == [
        Action(ActionKind.BID, 1, suit=Suit.HEARTS),
        Action(ActionKind.PASS, 1),
    ]
    bid(engine, "H")
    assert engine.taker == 1 and engine.trump == Suit.HEARTS


def test_in_the_first_round_only_the_turned_up_suit_may_be_taken() -> None:
    engine = dealt_engine()
    reason = illegal(engine, Action(ActionKind.BID, 1, suit=Suit.SPADES))
    assert "first round only the turned-up suit hearts" in reason and "hand 1" in reason


def test_after_a_pass_the_next_player_may_take_or_pass() -> None:
    engine = dealt_engine()
    bid(engine, None)
    assert engine.to_act() == (2,)
    reason = illegal(engine, Action(ActionKind.BID, 1, suit=Suit.HEARTS))
    assert "not your turn to bid, seat 2 is to bid" in reason
    bid(engine, None)
    bid(engine, "H")
    assert engine.taker == 3


def test_in_the_second_round_the_player_after_the_dealer_names_any_other_suit() -> None:
    engine = dealt_engine(dealer=2)
    for _ in range(4):
        bid(engine, None)
    assert engine.to_act() == (3,)
    suits = [a.suit for a in engine.legal_actions(3) if a.kind == ActionKind.BID]
    assert suits == [Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES]
    reason = illegal(engine, Action(ActionKind.BID, 3, suit=Suit.HEARTS))
    assert "second round the turned-up suit hearts may not be named" in reason
    bid(engine, "S")
    assert engine.trump == Suit.SPADES and engine.taker == 3


def test_in_the_second_round_a_pass_gives_the_next_player_the_choice() -> None:
    engine = dealt_engine()
    for _ in range(5):
        bid(engine, None)
    assert engine.to_act() == (2,)
    bid(engine, None)
    bid(engine, "D")
    assert engine.taker == 3 and engine.trump == Suit.DIAMONDS


def test_the_bidding_ends_as_soon_as_a_trump_is_chosen() -> None:
    engine = dealt_engine()
    bid(engine, "H")
    assert engine.phase == "deal2" and engine.to_act() == ()
    reason = illegal(engine, Action(ActionKind.PASS, 2))
    assert "not possible now" in reason


def test_a_bid_must_name_a_suit_and_a_pass_none() -> None:
    engine = dealt_engine()
    assert "must name the trump suit" in illegal(engine, Action(ActionKind.BID, 1))
    assert "names no suit" in illegal(engine, Action(ActionKind.PASS, 1, suit=Suit.CLUBS))
    assert "belote has no knock" in illegal(engine, Action(ActionKind.KNOCK, 1))


def test_all_passing_twice_ends_the_hand_as_a_redeal() -> None:
    engine = dealt_engine()
    for _ in range(8):
        bid(engine, None)
    result = engine.hand_result
    assert result is not None and not engine.hand_running
    assert result.reason == REDEAL_REASON and result.deltas == (0, 0, 0, 0)
    assert engine.scores() == (0, 0, 0, 0)


def test_after_a_redeal_the_next_seat_deals_a_fresh_hand() -> None:
    engine = dealt_engine(dealer=3)
    for _ in range(8):
        bid(engine, None)
    engine.start_hand()
    assert engine.dealer == 0 and engine.hand_number == 2
    request = engine.chance_request()
    assert isinstance(request, Deal) and request.assignments[0] == (1, 0)


def test_the_taker_takes_the_turned_up_card_and_two_more() -> None:
    engine = dealt_engine(dealer=0)
    bid(engine, None)
    bid(engine, "H")  # seat 2 takes 7H
    rest = engine.chance_request()
    assert isinstance(rest, Deal)
    counts = {s: sum(1 for r, _ in rest.assignments if r == s) for s in range(4)}
    assert counts == {0: 3, 1: 3, 2: 2, 3: 3}
    assert [s for s, _ in rest.assignments][:3] == [1, 1, 1]  # from the dealer's next seat
    assert Card.parse("7H") in [s.card for s in engine.hand(2)]
    assert 20 in engine.public_state()["hands"][2]


def test_the_taker_takes_the_turned_up_card_also_after_naming_another_suit() -> None:
    engine = start(PLAIN_DEAL, "7H", 2, trump="S")
    assert engine.trump == Suit.SPADES
    assert Card.parse("7H") in [s.card for s in engine.hand(2)]
    assert all(len(engine.hand(s)) == 8 for s in range(4))


def test_the_other_players_get_three_more_cards() -> None:
    engine = start(PLAIN_DEAL, "7H", 2)
    assert [len(engine.hand(s)) for s in range(4)] == [8, 8, 8, 8]
    for seat, text in PLAIN_DEAL.items():
        assert sorted(s.card for s in engine.hand(seat) if s.card) == sorted(cards(text))


def test_a_silent_bidder_passes() -> None:
    engine = dealt_engine()
    assert engine.timeout_action(1) == Action(ActionKind.PASS, 1)
    assert engine.timeout_action(2) is None


# --- play: lead, following, trumping -------------------------------------------------------


def test_the_dealer_leads_the_first_trick() -> None:
    engine = start(OBLIGATIONS, "8H", 1, dealer=0)
    assert engine.to_act() == (0,)
    reason = illegal(engine, Action(ActionKind.PLAY, 1, card=Card.parse("AS")))
    assert "not your turn to play, seat 0 is to play" in reason and "trick 1" in reason


def test_with_first_lead_next_the_player_after_the_dealer_leads() -> None:
    engine = start(OBLIGATIONS, "8H", 1, dealer=0, options={"first_lead": "next"})
    assert engine.to_act() == (1,)


def test_the_led_suit_must_be_followed() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    play(engine, "7D", "AH")
    reason = illegal(engine, play_action(engine, "9H"))  # seat 2 holds diamonds
    assert "seat 2: must follow suit diamonds" in reason and "cannot play 9H" in reason
    assert engine.forbidden_cards(play_action(engine, "9H")) == frozenset(
        c for c in DECK if c.suit == Suit.DIAMONDS
    )
    play(engine, "JD")
    assert engine.forbidden_cards(play_action(engine, "AD")) == frozenset()


def test_a_void_player_must_trump() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    play(engine, "AC")
    reason = illegal(engine, play_action(engine, "AS"))
    assert "must follow suit clubs, else trump (hearts)" in reason
    forbidden = engine.forbidden_cards(play_action(engine, "AS"))
    assert forbidden == frozenset(c for c in DECK if c.suit in (Suit.CLUBS, Suit.HEARTS))
    legal = {a.card for a in engine.legal_actions(1)}
    assert legal == set(cards("8H 10H AH"))


def test_a_void_player_need_not_trump_when_the_partner_is_winning() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    play(engine, "7D", "AH", "KD", "AD")  # seat 1 wins with the ace of trumps
    play(engine, "AS", "7S")  # seat 3 is void in spades, partner seat 1 is winning
    assert engine.to_act() == (3,)
    assert engine.can(play_action(engine, "10C"))
    assert {a.card for a in engine.legal_actions(3)} == set(cards("10C JC 9C 8C 7C QH KH"))
    assert engine.forbidden_cards(play_action(engine, "10C")) == frozenset(
        c for c in DECK if c.suit == Suit.SPADES
    )


def test_a_void_player_without_trumps_may_play_any_card() -> None:
    engine = start(PLAIN_DEAL, "7H", 2, trump="S")  # seat 0 clubs, 1 diamonds, 3 spades
    play(engine, "AC")
    assert {a.card for a in engine.legal_actions(1)} == set(cards(PLAIN_DEAL[1]))
    assert engine.forbidden_cards(play_action(engine, "7D")) == frozenset(
        c for c in DECK if c.suit in (Suit.CLUBS, Suit.SPADES)
    )
    play(engine, "7D")
    assert {a.card for a in engine.legal_actions(2)} == set(cards(PLAIN_DEAL[2]))


def test_over_trumping_is_required_when_the_trick_holds_a_trump() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    play(engine, "AC", "10H")  # seat 1 trumps; seat 2 (void in clubs) must over-trump
    reason = illegal(engine, play_action(engine, "7S"))
    assert "must follow suit clubs, else trump (hearts)" in reason
    assert {a.card for a in engine.legal_actions(2)} == set(cards("9H JH"))


def test_a_player_who_cannot_over_trump_must_still_trump_lower() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    play(engine, "AC", "10H", "JH", "7C")  # seat 2 wins and leads
    play(engine, "7S", "QH")  # seat 3 trumps; seat 0 has only the 7 of trumps
    reason = illegal(engine, play_action(engine, "7D"))
    assert "seat 0: must follow suit spades, else trump (hearts): holds 7H" in reason
    assert engine.can(play_action(engine, "7H"))
    forbidden = engine.forbidden_cards(play_action(engine, "7H"))
    assert forbidden == frozenset(c for c in DECK if c.suit == Suit.SPADES) | frozenset(
        cards("KH 10H AH 9H JH")
    )


def test_following_suit_comes_before_over_trumping() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    play(engine, "AC", "10H", "JH")
    assert engine.can(play_action(engine, "7C"))  # seat 3 follows clubs, holds trumps
    reason = illegal(engine, play_action(engine, "QH"))
    assert "must follow suit clubs" in reason


def test_a_player_holding_the_led_suit_may_not_trump() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    play(engine, "AC", "10H", "JH", "7C", "7S", "QH", "7H")
    reason = illegal(engine, play_action(engine, "8H"))
    assert "seat 1: must follow suit spades" in reason


def test_over_trumping_is_required_when_trumps_are_led() -> None:
    engine = start(TRUMP_LEAD, "8H", 1)
    play(engine, "AH", "8H", "7H")  # seat 3 must beat the ace with the jack
    reason = illegal(engine, play_action(engine, "10H"))
    assert "seat 3: must over-trump AH: holds JH" in reason
    assert engine.forbidden_cards(play_action(engine, "10H")) == frozenset(cards("9H JH"))
    assert {a.card for a in engine.legal_actions(3)} == {Card.parse("JH")}


def test_trumps_led_must_be_followed_with_trumps() -> None:
    engine = start(TRUMP_LEAD, "8H", 1)
    play(engine, "AH")
    reason = illegal(engine, play_action(engine, "AS"))
    assert "must follow trumps (hearts)" in reason
    # seat 1 cannot beat the ace: either trump is fine
    assert {a.card for a in engine.legal_actions(1)} == set(cards("8H QH"))


def test_the_partner_exemption_also_covers_over_trumping_when_trumps_are_led() -> None:
    engine = start(TRUMP_LEAD, "8H", 1)
    play(engine, "AH", "8H")  # seat 2's partner (seat 0) is winning
    assert engine.can(play_action(engine, "7H"))
    assert engine.forbidden_cards(play_action(engine, "7H")) == frozenset()


def test_option_over_trump_the_partner_when_trumps_are_led() -> None:
    engine = start(TRUMP_LEAD, "8H", 1, options={"overtrump_partner_on_trump_lead": True})
    play(engine, "AH", "8H")
    reason = illegal(engine, play_action(engine, "7H"))
    assert "seat 2: must over-trump AH: holds 9H" in reason
    assert engine.can(play_action(engine, "9H"))


def test_the_partner_exemption_covers_over_trumping_on_a_plain_lead() -> None:
    hand = cards("JH 7H 7C")
    # seat 1 trumped the diamond lead; seat 3 (its partner) may under-trump or discard
    plays = [(0, Card.parse("AD")), (1, Card.parse("8H")), (2, Card.parse("7D"))]
    assert legal_cards(plays, 3, hand, Suit.HEARTS) == sorted(hand)
    assert obligation(plays, 3, Card.parse("7H"), Suit.HEARTS).forbidden == frozenset(
        c for c in DECK if c.suit == Suit.DIAMONDS
    )
    # seat 2, whose opponent is winning with the trump, must over-trump
    assert legal_cards(plays[:2], 2, hand, Suit.HEARTS) == [Card.parse("JH")]


# --- trick winner and ranking --------------------------------------------------------------


def test_the_highest_trump_wins_the_trick() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    play(engine, "AC", "10H", "JH", "7C")
    assert engine.tricks[0].winner == 2 and engine.leader == 2


def test_without_trumps_the_highest_card_of_the_led_suit_wins() -> None:
    trick = [
        (0, Card.parse("KC")),
        (1, Card.parse("AD")),
        (2, Card.parse("10C")),
        (3, cards("9C")[0]),
    ]
    assert winning_play(trick, Suit.HEARTS) == (2, Card.parse("10C"))


def test_plain_cards_rank_ace_ten_king_queen_jack_nine_eight_seven() -> None:
    assert [r.label for r in reversed(PLAIN_ORDER)] == ["A", "10", "K", "Q", "J", "9", "8", "7"]
    trick = [
        (0, Card.parse("JS")),
        (1, Card.parse("QS")),
        (2, Card.parse("9S")),
        (3, Card.parse("10S")),
    ]
    assert winning_play(trick, Suit.HEARTS)[0] == 3


def test_trumps_rank_jack_nine_ace_ten_king_queen_eight_seven() -> None:
    assert [r.label for r in reversed(TRUMP_ORDER)] == ["J", "9", "A", "10", "K", "Q", "8", "7"]
    trick = [
        (0, Card.parse("AS")),
        (1, Card.parse("9S")),
        (2, Card.parse("10S")),
        (3, Card.parse("KS")),
    ]
    assert winning_play(trick, Suit.SPADES)[0] == 1


def test_the_trick_winner_leads_the_next_trick() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    play(engine, "7D", "AH", "KD", "AD")
    assert engine.to_act() == (1,)


def test_the_hand_ends_after_eight_tricks() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    for _ in range(31):
        engine.apply(engine.legal_actions(engine.to_act()[0])[0])
    assert engine.hand_running and len(engine.tricks) == 7
    engine.apply(engine.legal_actions(engine.to_act()[0])[0])
    assert not engine.hand_running and len(engine.tricks) == 8
    assert all(len(engine.hand(s)) == 0 for s in range(4))
    assert engine.timeout_action(0) is None


# --- scoring --------------------------------------------------------------------------------


def tricks_in_deck_order(
    winners: list[int], seats: dict[str, int] | None = None
) -> list[tuple[list[tuple[int, Card]], int]]:
    """Eight tricks of four cards in deck order (7C 8C 9C 10C | JC QC KC AC | ...), played by
    seats 0..3 unless ``seats`` says who played a card."""
    seats = seats or {}
    out = []
    for i, winner in enumerate(winners):
        group = DECK[4 * i : 4 * i + 4]
        out.append(([(seats.get(str(c), j), c) for j, c in enumerate(group)], winner))
    return out


# With spades as trump the tricks are worth 10 20 10 20 10 20 24 38 (152 in all).


def test_each_team_scores_the_cards_of_the_tricks_it_won() -> None:
    score = score_hand(tricks_in_deck_order([0, 1, 0, 1, 0, 1, 0, 1]), Suit.SPADES, 0)
    assert score.card_points == (54, 98 + 10)
    assert score.points == (0, 162)  # the taker's team did not make more: contract failed


def test_plain_card_points_are_ace_11_ten_10_king_4_queen_3_jack_2() -> None:
    values = [card_points(Card(Suit.CLUBS, r), Suit.SPADES) for r in Rank]
    assert dict(zip([r.label for r in Rank], values, strict=True)) == {
        "7": 0, "8": 0, "9": 0, "10": 10, "J": 2, "Q": 3, "K": 4, "A": 11,
    }  # fmt: skip


def test_trump_points_are_jack_20_nine_14_ace_11_ten_10_king_4_queen_3() -> None:
    values = [card_points(Card(Suit.SPADES, r), Suit.SPADES) for r in Rank]
    assert dict(zip([r.label for r in Rank], values, strict=True)) == {
        "7": 0, "8": 0, "9": 14, "10": 10, "J": 20, "Q": 3, "K": 4, "A": 11,
    }  # fmt: skip
    assert sum(card_points(c, Suit.SPADES) for c in DECK) == 152


def test_the_winner_of_the_last_trick_gets_ten_more() -> None:
    score = score_hand(tricks_in_deck_order([0, 0, 0, 0, 0, 0, 1, 0]), Suit.SPADES, 0)
    assert score.card_points == (128 + 10, 24)
    score = score_hand(tricks_in_deck_order([0, 0, 0, 0, 0, 0, 0, 1]), Suit.SPADES, 0)
    assert score.card_points == (114, 38 + 10)


def test_belote_gives_its_holder_twenty_more() -> None:
    # QS and KS both played by seat 3 (team 1); team 0 takes most tricks.
    seats = {"QS": 3, "KS": 3, "JS": 1, "AS": 2}
    score = score_hand(tricks_in_deck_order([0, 0, 0, 0, 0, 0, 1, 0], seats), Suit.SPADES, 0)
    assert score.belote_seat == 3
    assert score.points == (138, 24 + 20)


def test_belote_needs_king_and_queen_in_one_hand() -> None:
    score = score_hand(tricks_in_deck_order([0, 0, 0, 0, 0, 0, 1, 0]), Suit.SPADES, 0)
    assert score.belote_seat is None  # QS by seat 1, KS by seat 2


def test_belote_is_found_from_the_cards_played() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    events = []
    while engine.hand_running:
        events += engine.apply(engine.legal_actions(engine.to_act()[0])[0])
    assert [e.seat for e in events if e.kind == "belote"] == [3]  # QH and KH of seat 3
    assert engine.hand_result is not None
    assert engine.hand_result.details["belote_seat"] == 3


def test_a_team_taking_every_trick_scores_252() -> None:
    winners = [0, 2, 0, 2, 0, 2, 0, 2]
    score = score_hand(tricks_in_deck_order(winners), Suit.SPADES, 0)
    assert score.capot_team == 0 and score.solo_capot_seat is None
    assert score.points == (252, 0)
    added = score_hand(tricks_in_deck_order(winners), Suit.SPADES, 0, capot="add")
    assert added.points == (162 + 252, 0)


def test_one_player_taking_every_trick_scores_350_for_the_team() -> None:
    score = score_hand(tricks_in_deck_order([1] * 8), Suit.SPADES, 1)
    assert score.solo_capot_seat == 1 and score.points == (0, 350)
    added = score_hand(tricks_in_deck_order([1] * 8), Suit.SPADES, 1, capot="add")
    assert added.points == (0, 162 + 350)


def test_a_failed_contract_gives_the_other_team_all_points_except_belote() -> None:
    seats = {"QS": 0, "KS": 0, "JS": 1, "AS": 3}  # belote for seat 0, the taker
    score = score_hand(tricks_in_deck_order([1, 1, 1, 1, 0, 0, 1, 1], seats), Suit.SPADES, 0)
    assert score.card_points == (30, 132)
    assert not score.contract_made
    assert score.points == (20, 162)  # belote stays with its holder


def test_a_tie_fails_the_contract() -> None:
    # Team 0 takes (seat 0) with 78 card points + 20 belote = 98; team 1 has 84 card points.
    # Without counting belote the takers' 78 is not more than 84: contract failed.
    seats = {"QS": 0, "KS": 0}
    tricks = tricks_in_deck_order([0, 0, 1, 1, 1, 1, 1, 0], seats)
    counted = score_hand(tricks, Suit.SPADES, 0, contract_counts_belote=False)
    assert not counted.contract_made and counted.points == (20, 162)
    # An exact tie fails too: team 0 (takers) 20+14+11+9+27 = 81, team 1 23+28+20+10 = 81.
    tie_tricks = [
        (
            [
                (0, Card.parse("JS")),
                (1, Card.parse("7C")),
                (2, Card.parse("8C")),
                (3, Card.parse("9C")),
            ],
            0,
        ),
        (
            [
                (0, Card.parse("9S")),
                (1, Card.parse("7D")),
                (2, Card.parse("8D")),
                (3, Card.parse("9D")),
            ],
            0,
        ),
        (
            [
                (0, Card.parse("AS")),
                (1, Card.parse("7H")),
                (2, Card.parse("8H")),
                (3, Card.parse("9H")),
            ],
            0,
        ),
        (
            [
                (0, Card.parse("QS")),
                (1, Card.parse("KS")),
                (2, Card.parse("JC")),
                (3, Card.parse("7S")),
            ],
            0,
        ),
        (
            [
                (1, Card.parse("10S")),
                (2, Card.parse("8S")),
                (3, Card.parse("10C")),
                (0, Card.parse("QC")),
            ],
            1,
        ),
        (
            [
                (1, Card.parse("AC")),
                (2, Card.parse("KC")),
                (3, Card.parse("10D")),
                (0, Card.parse("JD")),
            ],
            0,
        ),
        (
            [
                (1, Card.parse("AD")),
                (2, Card.parse("KD")),
                (3, Card.parse("QD")),
                (0, Card.parse("10H")),
            ],
            1,
        ),
        (
            [
                (1, Card.parse("AH")),
                (2, Card.parse("KH")),
                (3, Card.parse("QH")),
                (0, Card.parse("JH")),
            ],
            1,
        ),
    ]
    tie = score_hand(tie_tricks, Suit.SPADES, 0)
    assert tie.card_points[0] == tie.card_points[1] == 81
    assert not tie.contract_made and tie.points == (0, 162)


def test_option_belote_counts_for_the_contract() -> None:
    seats = {"QS": 0, "KS": 0}
    tricks = tricks_in_deck_order([0, 0, 1, 1, 1, 1, 1, 0], seats)
    counted = score_hand(tricks, Suit.SPADES, 0)  # default: 78 + 20 = 98 > 84
    assert counted.contract_made and counted.points == (98, 84)


def test_belote_always_goes_to_its_holder_and_counts_towards_the_game() -> None:
    seats = {"QS": 1, "KS": 1}  # defender seat 1 holds belote; taker seat 0 makes it
    tricks = tricks_in_deck_order([0, 0, 0, 0, 0, 0, 0, 1], seats)
    score = score_hand(tricks, Suit.SPADES, 0)
    assert score.contract_made and score.points == (114, 48 + 20)
    failed = score_hand(tricks_in_deck_order([1] * 7 + [0], seats), Suit.SPADES, 0)
    assert not failed.contract_made and failed.points == (0, 162 + 20)


def test_hand_points_are_added_to_the_team_scores() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    finish_hand(engine)
    result = engine.hand_result
    assert result is not None
    assert engine.scores() == result.deltas
    assert sum(result.details["points"]) in (162, 182, 252, 272, 350, 370)


# --- faults, history, hidden hands ----------------------------------------------------------


def test_abort_scores_162_for_the_honest_team_and_nothing_for_the_culprit() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    result = engine.abort_hand(1, "silent")
    assert result.deltas == (162, 0, 162, 0) and result.reason == "aborted: silent"
    assert not engine.hand_running


def test_abort_adds_the_honest_teams_belote() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    play(engine, "AC", "10H", "JH", "7C", "7S", "QH", "7H", "AS")  # seat 3 played QH
    play(engine, "KH")  # seat 3 leads KH: belote for team 1
    assert engine.abort_hand(0, "cheat").deltas == (0, 182, 0, 182)


def test_abort_without_culprit_scores_nothing() -> None:
    engine = start(OBLIGATIONS, "8H", 1)
    result = engine.abort_hand(None, "network")
    assert result.deltas == (0, 0, 0, 0)
    with pytest.raises(IllegalAction, match="no hand is running"):
        engine.abort_hand(None, "again")


def test_replaying_the_history_gives_the_same_state() -> None:
    engine = start(OBLIGATIONS, "8H", 1, dealer=0)
    finish_hand(engine)
    engine.start_hand()
    copy = replay(engine.config, 0, engine.history)
    assert copy.public_digest() == engine.public_digest()


def test_a_hidden_hand_plays_by_deck_position() -> None:
    deck = make_deck(0, OBLIGATIONS, "8H", 1)
    view = new_engine()  # seat 0's view
    view.start_hand()
    request = view.chance_request()
    assert isinstance(request, Deal)
    view.apply_chance([deck[p] if s == 0 else None for s, p in request.assignments])
    feed(view, deck)
    view.apply(Action(ActionKind.BID, 1, suit=Suit.HEARTS))
    rest = view.chance_request()
    assert isinstance(rest, Deal)
    view.apply_chance([deck[p] if s == 0 else None for s, p in rest.assignments])
    play(view, "AC")
    position = deck.index(Card.parse("10H"))
    assert view.legal_actions(1) == [
        Action(ActionKind.PLAY, 1, card=Card.parse("8H"), position=20)
    ]  # only the publicly known turned-up card
    assert "not in the hand" in illegal(view, Action(ActionKind.PLAY, 1, card=Card.parse("10H")))
    own = deck.index(Card.parse("KC"))
    reason = illegal(view, Action(ActionKind.PLAY, 1, card=Card.parse("QS"), position=own))
    assert "not in the hand" in reason
    # a non-trump while the turned-up trump is known to be held: refused outright
    seat1_hidden = next(s.position for s in view.hand(1) if s.card is None)
    reason = illegal(view, Action(ActionKind.PLAY, 1, card=Card.parse("AS"), position=seat1_hidden))
    assert "else trump (hearts): holds 8H" in reason
    view.apply(Action(ActionKind.PLAY, 1, card=Card.parse("10H"), position=position))
    assert view.current[-1] == (1, Card.parse("10H"))
    reason = illegal(view, Action(ActionKind.PLAY, 2, card=Card.parse("AC"), position=8))
    assert "already seen" in reason


def test_a_capot_against_the_takers_scores_252_for_the_defenders() -> None:
    score = score_hand(tricks_in_deck_order([1, 3] * 4), Suit.SPADES, 0)
    assert score.capot_team == 1 and not score.contract_made
    assert score.points == (0, 252)


@pytest.mark.parametrize(
    ("kind", "extra"),
    [
        (ActionKind.BID, {"amount": 80}),
        (ActionKind.BID, {"position": 3}),
        (ActionKind.BID, {"cards": (Card.parse("7S"),)}),
        (ActionKind.BID, {"card": Card.parse("7S")}),
        (ActionKind.PASS, {"amount": 1}),
        (ActionKind.PASS, {"position": 0}),
        (ActionKind.PASS, {"cards": (Card.parse("7S"),)}),
    ],
)
def test_a_bid_or_pass_with_a_field_it_does_not_carry_is_refused(
    kind: ActionKind, extra: dict[str, object]
) -> None:
    """The wire form allows none of these (spec/rules/wire.md, the schema): a peer built from
    the spec refuses them, so this one must too, naming the field."""
    engine = dealt_engine()
    up = engine.turned.card.suit if engine.turned and engine.turned.card else Suit.CLUBS
    suit = {"suit": up} if kind is ActionKind.BID else {}
    reason = illegal(engine, Action(kind, 1, **suit, **extra))  # type: ignore[arg-type]
    assert f"carries no {next(iter(extra))}" in reason
