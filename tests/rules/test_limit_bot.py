"""The Limit Tuppen bot decides by hand strength and follows the obligations."""

from __future__ import annotations

import random

from test_limit_helpers import K, act, play, start

from dealerless.client.bots.limit import choose_action, hand_strength
from dealerless.protocol.cards import Card

HANDS = {0: "AS 7S 8S 9S", 1: "10H JC QC KC", 2: "7H 8C 9D JD", 3: "8H 9C 10D QD"}


def test_bot_declares_true_dirty_laundry() -> None:
    e = start({1: "JC QC KC AC"}, dirty_laundry=True)
    action = choose_action(e, 1, random.Random(1), True)
    assert action is not None and action.kind == K.LAUNDRY


def test_bot_follows_suit_and_keeps_its_strong_cards_for_the_last_trick() -> None:
    e = start(HANDS)
    play(e, 1, "10H")
    for seed in range(20):
        action = choose_action(e, 2, random.Random(seed), True)
        assert action is not None
        if action.kind == K.PLAY:
            assert action.card == Card.parse("7H")  # its only heart
    e2 = start({1: "10S 7C 8D JH"})
    plays = {choose_action(e2, 1, random.Random(s), True) for s in range(20)}
    played = {a.card for a in plays if a is not None and a.kind == K.PLAY}
    assert played == {Card.parse("JH")}  # the weakest card; the ten is kept


def test_bot_folds_a_weak_hand_and_knocks_a_strong_one() -> None:
    assert hand_strength([Card.parse("JH")], [(0, Card.parse("10H"))], {0, 1}) == 0.0
    assert hand_strength([Card.parse("10H")], [(0, Card.parse("9H"))], {0, 1}) >= 0.8
    e = start({0: "JS QS KS JH", 1: "10H 10C 10D 10S"}, players=2)
    knocks = [choose_action(e, 1, random.Random(s), True) for s in range(100)]
    assert sum(1 for a in knocks if a is not None and a.kind == K.KNOCK) > 30
    act(e, K.KNOCK, 1)
    answers = [choose_action(e, 0, random.Random(s), True) for s in range(100)]
    assert all(a is not None and a.kind in (K.CALL, K.FOLD, K.RAISE) for a in answers)
    assert sum(1 for a in answers if a is not None and a.kind == K.FOLD) > 80
