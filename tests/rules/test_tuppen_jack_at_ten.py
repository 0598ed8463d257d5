"""Classic Tuppen: a seat that reaches 10 penalty points during a hand is out, even if it then
wins the last trick with a jack (seed 003; spec/rules/tuppen.md decision 4 and J3)."""

from __future__ import annotations

from test_tuppen_support import Table, new, start

from dealerless.protocol.rules.base import ActionKind

K = ActionKind

# Dealer 1: seat 2 acts first and leads. Seat 0's laundry is true; seat 2 (at 9) checks it and
# gets the point that takes it to 10, then leads spades nobody can follow and takes the last
# trick with the jack of spades.
HANDS = {0: "JC QC KC 7D", 1: "7C 8C 9C 10C", 2: "7S 8S 9S JS"}
STOCK = "7H 8H 9H 10H"


def laundry_table(points: int) -> Table:
    engine = new(3, dealer=1, scores=[0, 0, points], tupp_attempt=False, poverty=False)
    return start(engine, HANDS, stock=STOCK)


def test_a_seat_that_reached_ten_stays_out_after_a_jack_win() -> None:
    table = start(
        new(3, dealer=1, scores=[0, 0, 9], tupp_attempt=False, poverty=False), HANDS, stock=STOCK
    )
    table.act(K.PASS, 2)
    table.act(K.LAUNDRY, 0)
    table.act(K.ACCEPT, 1)
    table.act(K.CHECK, 2)  # a true laundry: the checker gets the point
    assert table.engine.scores() == (0, 0, 10)
    while table.phase == "exchange":
        (seat,) = table.engine.to_act()
        table.act(K.PASS, seat)
    table.plays("2:9S", "0:7H", "1:7C", "2:8S", "0:8H", "1:8C", "2:7S", "0:9H", "1:9C")
    table.plays("2:JS", "0:10H", "1:10C")
    result = table.engine.hand_result
    assert result is not None and result.winners == (2,)
    assert "jack_win" not in result.details
    assert table.engine.scores()[2] == 10
    assert 2 not in table.engine.in_game()


def test_the_jack_still_takes_a_point_off_below_ten() -> None:
    table = start(
        new(3, dealer=1, scores=[0, 0, 8], tupp_attempt=False, poverty=False), HANDS, stock=STOCK
    )
    table.act(K.PASS, 2)
    table.act(K.LAUNDRY, 0)
    table.act(K.ACCEPT, 1)
    table.act(K.CHECK, 2)
    while table.phase == "exchange":
        (seat,) = table.engine.to_act()
        table.act(K.PASS, seat)
    table.plays("2:9S", "0:7H", "1:7C", "2:8S", "0:8H", "1:8C", "2:7S", "0:9H", "1:9C")
    table.plays("2:JS", "0:10H", "1:10C")
    result = table.engine.hand_result
    assert result is not None and result.details.get("jack_win") is True
    assert table.engine.scores()[2] == 8


def test_nobody_left_under_ten_the_last_hands_fewest_points_win() -> None:
    """Seats 0 and 1 on 9, seat 2 out since an earlier hand. Seat 0 bluffs dirty laundry and is
    checked up to 10, then wins every trick; seat 1 loses to 10. Nobody is under 10: the seats
    of that hand with the fewest points win (both, on 10), never seat 2 (also on 10, but out
    before), and the reason says what happened (spec/rules/tuppen.md S15)."""
    from dealerless.protocol.rules.reasons import GameEnd

    engine = new(3, dealer=1, scores=[9, 9, 10], tupp_attempt=False, poverty=False)
    table = start(engine, {0: "7C 8C 9C 10C", 1: "7H 8H 9H 10H"}, stock="JS QS KS AS")
    table.act(K.LAUNDRY, 0)  # four clubs: a bluff
    table.act(K.CHECK, 1)
    assert table.engine.scores() == (10, 9, 10)
    while table.phase == "exchange":
        (seat,) = table.engine.to_act()
        table.act(K.PASS, seat)
    table.plays("0:7C", "1:7H", "0:8C", "1:8H", "0:9C", "1:9H", "0:10C", "1:10H")
    result = table.engine.hand_result
    assert result is not None and result.winners == (0,)
    outcome = table.engine.outcome
    assert outcome is not None and outcome.standings == (10, 10, 10)
    assert outcome.winners == (0, 1) and 2 not in outcome.winners
    assert outcome.code is GameEnd.NONE_LEFT
    assert outcome.reason == "nobody left under 10: the fewest points of the last hand win"
