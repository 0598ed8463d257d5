"""Sampled deals respect what is public, and the fast Belote rules match the real ones."""

from __future__ import annotations

import random

from belote_positions import trick_positions

from dealerless.client.bots.belote_sim import Rules, legal
from dealerless.client.bots.sampling import DealProblem, deal
from dealerless.client.bots.tuppen_sim import read_view, sample_deals
from dealerless.protocol.cards import DECK, Card, Suit, cards_of_suit
from dealerless.protocol.rules.belote_tricks import legal_cards


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def test_a_deal_gives_each_seat_its_count_and_never_a_card_it_cannot_hold() -> None:
    pool = [c for c in DECK if c.suit != Suit.SPADES]  # 24 cards
    problem = DealProblem(
        pool=pool,
        need={1: 4, 2: 4, 3: 4},
        excluded={1: set(cards_of_suit(Suit.HEARTS)), 2: set(cards_of_suit(Suit.CLUBS))},
        known={3: cards("AS")},
    )
    for seed in range(200):
        hands = deal(problem, random.Random(seed))
        assert [len(hands[s]) for s in (1, 2, 3)] == [4, 4, 5]
        assert not any(c.suit == Suit.HEARTS for c in hands[1])
        assert not any(c.suit == Suit.CLUBS for c in hands[2])
        dealt = [c for s in (1, 2, 3) for c in hands[s]]
        assert len(set(dealt)) == len(dealt) and Card.parse("AS") in hands[3]
    assert deal(problem, random.Random(5)) == deal(problem, random.Random(5))


def test_contradictory_constraints_still_give_a_full_deal() -> None:
    problem = DealProblem(pool=cards("7H 8H 9H"), need={1: 3}, excluded={1: set(cards("7H 8H"))})
    assert sorted(deal(problem, random.Random(0))[1]) == sorted(cards("7H 8H 9H"))


def test_a_tuppen_view_sees_voids_and_never_deals_a_seen_card() -> None:
    trick = {
        "leader": 1,
        "current": [],
        "tricks": [
            {
                "plays": [
                    [1, Card.parse("10H").index],
                    [2, Card.parse("7C").index],
                    [3, Card.parse("8H").index],
                    [0, Card.parse("9H").index],
                ],
                "winner": 1,
            }
        ],
    }
    view = read_view(4, 0, cards("AS KS QS"), trick, [3, 3, 3, 3], range(4))
    for hands in sample_deals(view, random.Random(1), 100):
        assert not any(c.suit == Suit.HEARTS for c in hands[2])  # it did not follow hearts
        seen = set(cards("AS KS QS 10H 7C 8H 9H"))
        assert not seen & {c for s in (1, 2, 3) for c in hands[s]}


def test_fast_belote_obligations_agree_with_the_rules_module() -> None:
    for trump, plays, seat, hand in trick_positions(random.Random(4), 3000):
        for partner_rule in (False, True):
            rules = Rules(trump=trump, taker=0, overtrump_partner=partner_rule)
            expected = legal_cards(
                plays, seat, hand, trump, overtrump_partner_on_trump_lead=partner_rule
            )
            assert sorted(legal(hand, plays, seat, rules)) == expected
