"""The strong Limit bot reads the folded-leader rule right (issue 14).

Three seats, the last trick: the leader led 9H and folded after a knock, the knocker played 7C,
and the bot holds JH. The folded leader's card sets the led suit (hearts) but does not count, so
JH, the only counted heart, takes the trick. The basic bot (kept as it was) rates JH 0.0 there;
the strong bot knows it wins and knocks.
"""

from __future__ import annotations

import random

from test_limit_helpers import K, act, play, start

from dealerless.client.bots import limit as basic
from dealerless.client.bots import limit_strong as strong
from dealerless.protocol.cards import Card
from dealerless.protocol.rules.limit import LimitEngine

HANDS = {1: "10S 9S 8S 9H", 2: "7S QS KS 7C", 0: "JS AS KD JH"}


def folded_leader_position() -> LimitEngine:
    e = start(HANDS, players=3, dealer=0)
    for leader_card, second, third in (("10S", "7S", "JS"), ("9S", "QS", "AS"), ("8S", "KS", "KD")):
        play(e, 1, leader_card)
        play(e, 2, second)
        play(e, 0, third)
    play(e, 1, "9H")
    act(e, K.KNOCK, 2)
    act(e, K.CALL, 0)
    act(e, K.FOLD, 1)
    play(e, 2, "7C")
    assert e.to_act() == (0,)
    return e


def test_strong_bot_knocks_with_the_only_counted_heart_after_the_leader_folded() -> None:
    e = folded_leader_position()
    choices = [strong.choose_action(e, 0, random.Random(s), True) for s in range(10)]
    assert all(a is not None and a.kind == K.KNOCK for a in choices)


def test_basic_bot_keeps_its_misreading_of_the_folded_leader() -> None:
    e = folded_leader_position()
    table = [(1, Card.parse("9H")), (2, Card.parse("7C"))]
    assert basic.hand_strength([Card.parse("JH")], table, {0, 2}) == 0.0
    choices = [basic.choose_action(e, 0, random.Random(s), True) for s in range(40)]
    knocks = sum(1 for a in choices if a is not None and a.kind == K.KNOCK)
    assert knocks <= 6  # only its rare bluff
