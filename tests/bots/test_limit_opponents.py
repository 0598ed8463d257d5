"""The strong Limit-family bot's opponent model reads the public results only, and a seat that
bets on every decision is read as loose: its knocks and calls say nothing about its cards, and
its card play is not taken to be careful (the playouts draw its cards at random)."""

from __future__ import annotations

import random

from dealerless.client.bots import bot_for
from dealerless.client.bots.limit_opponents import read_opponents, risk_rates, trust_rates
from dealerless.client.bots.tuppen_sim import deal_weight, playout, read_view, sample_deals
from dealerless.client.simulate import play_hand
from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.registry import make_config, new_engine

K = ActionKind


def always_bets(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    """Knocks or raises the most it may on every decision, calls when it cannot raise."""
    if not required:
        return None
    legal = engine.legal_actions(seat)
    for kind in (K.RAISE, K.KNOCK, K.CALL):
        options = [a for a in legal if a.kind == kind]
        if options:
            return max(options, key=lambda a: a.amount or 0)
    return legal[0]


def test_a_seat_that_bets_on_every_decision_is_read_as_loose_from_public_results() -> None:
    engine = new_engine(make_config("no-limit-tuppen", 4, {"hands": 20}), first_dealer=0)
    basic = bot_for("no-limit-tuppen", "basic")

    def lineup(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
        return (always_bets if seat == 1 else basic)(engine, seat, rng, required)

    rng = random.Random(3)
    for _ in range(12):
        engine.start_hand()
        play_hand(engine, rng, lineup)
    state = engine.public_state()
    opponents = read_opponents(state, 0)
    risked, seen = risk_rates(state["results"], 4, 1)[1]
    assert seen == 12 and risked >= 10  # it put chips at risk in (nearly) every hand
    assert opponents.trust[1] == 0.0 and opponents.careless == {1}
    assert 0 not in opponents.trust  # the bot's own seat is not modelled
    assert all(opponents.trust[s] > opponents.trust[1] for s in (2, 3))


def test_trust_follows_how_often_a_seat_risked_chips() -> None:
    # hand number, winners, deltas, reason: seat 1 bets and loses ten hands, seat 2 folds
    # every hand (loses the ante), seat 3 takes the pot six times after everyone folded.
    results = [[n, [0], [4, -2, -1, -1], "last trick"] for n in range(1, 11)]
    results += [[n, [3], [-1, -1, -1, 3], "all others folded"] for n in range(11, 17)]
    trust = trust_rates(results, 4, 0)
    assert 0.0 < trust[1] < trust[3] < trust[2] == 1.0
    assert trust_rates(results[:10] * 2, 4, 0)[1] == 0.0  # twenty of twenty hands: no trust
    assert trust_rates([], 4, 0)[1] == trust_rates([], 4, 0)[2]  # only the prior: equal


def test_an_untrusted_knock_leaves_every_deal_equally_likely() -> None:
    trick = {"leader": 0, "current": [], "tricks": []}
    mine = [Card.parse(t) for t in ["JH", "QH", "KS", "AC"]]
    view = read_view(4, 0, mine, trick, [4, 4, 4, 4], range(4))
    deals = sample_deals(view, random.Random(2), 40)
    shown = {1: 6.5}
    read = [deal_weight(view, d, shown, {1: 1.0}) for d in deals]
    ignored = [deal_weight(view, d, shown, {1: 0.0}) for d in deals]
    assert max(read) > 5 * min(read)  # a trusted knock makes strong hands of seat 1 likelier
    assert ignored == [1.0] * len(deals)
    assert [deal_weight(view, d, shown) for d in deals] == read  # default: trusted


def test_a_careless_seat_plays_at_random_in_the_playouts_from_the_given_rng() -> None:
    trick = {"leader": 0, "current": [], "tricks": []}
    mine = [Card.parse(t) for t in ["10C", "10D", "JH", "AS"]]
    view = read_view(2, 0, mine, trick, [4, 4], range(2))
    hands = {0: mine, 1: [Card.parse(t) for t in ["7C", "JC", "8H", "8S"]]}
    assert playout(view, hands) == 1  # seat 1 playing the policy takes the last trick
    careless = [playout(view, hands, careless={1}, rng=random.Random(i)) for i in range(40)]
    assert 0 < careless.count(0) < 40  # at random it sometimes spends its cards badly
    again = [playout(view, hands, careless={1}, rng=random.Random(i)) for i in range(40)]
    assert again == careless  # the same random state, the same result
    assert playout(view, hands, careless={1}) == 1  # without an rng: the policy
