"""Belote card play by sampled deals and fast playouts: the ``normal`` level's card play.

This is the card play the strong level had before its own (``belote_strong_play``); it stays
here unchanged so that ``normal`` keeps its strength. It reads only the seat's own cards and the
public state: deal the unseen cards consistently with everything public (the turned-up card is
in the taker's hand until played; every play's obligation shows the cards that seat does not
hold) and play the legal card with the best mean point difference over the deals, each played
out with the fast policy of :mod:`belote_sim`.
"""

from __future__ import annotations

import random
from typing import Any

from dealerless.client.bots.belote_sim import Plays, Rules, play_problem, playout
from dealerless.client.bots.sampling import deal
from dealerless.protocol.cards import Card, Suit
from dealerless.protocol.rules.base import Action, Engine
from dealerless.protocol.rules.belote_tricks import card_points, strength

PLAYOUT_BUDGET = 96  # playouts per card-play decision, shared among the legal cards
MIN_DEALS = 4
MAX_DEALS = 24


def choose_card(engine: Engine, seat: int, rng: random.Random) -> Action:
    """The card-play decision of ``seat`` (it must be its turn to play)."""
    state: dict[str, Any] = engine.public_state()
    mine = [s.card for s in engine.hand(seat) if s.card is not None]
    return _play(state, seat, mine, engine.legal_actions(seat), rng)


def rules_of(state: dict[str, Any], trump: Suit, taker: int) -> Rules:
    """The table's options that matter to the card play and the scoring."""
    options = state["options"]
    return Rules(
        trump=trump,
        taker=taker,
        overtrump_partner=bool(options.get("overtrump_partner_on_trump_lead", False)),
        capot=str(options.get("capot", "replace")),
        counts_belote=bool(options.get("contract_counts_belote", True)),
    )


def _play(
    state: dict[str, Any], seat: int, mine: list[Card], legal: list[Action], rng: random.Random
) -> Action:
    plays = [a for a in legal if a.card is not None]
    if len(plays) == 1:
        return plays[0]
    trump = Suit(state["trump"])
    rules = rules_of(state, trump, int(state["taker"]))
    tricks: list[tuple[Plays, int]] = [
        ([(s, Card.from_index(c)) for s, c in t["plays"]], int(t["winner"]))
        for t in state["tricks"]
    ]
    current: Plays = [(s, Card.from_index(c)) for s, c in state["current"]]
    turned = Card.from_index(state["turned"][1]) if state["turned"] else None
    counts = [len(h) for h in state["hands"]]
    problem = play_problem(seat, mine, counts, tricks, current, rules, turned)
    count = max(MIN_DEALS, min(MAX_DEALS, PLAYOUT_BUDGET // len(plays)))
    deals = []
    for _ in range(count):
        hands = deal(problem, rng)
        hands[seat] = list(mine)
        deals.append(hands)
    leader = int(state["leader"])
    best: tuple[float, tuple[int, int], Action] | None = None
    for action in plays:
        card = action.card
        assert card is not None
        value = sum(
            playout(hands, rules, leader, tricks, current, seat, card) for hands in deals
        ) / len(deals)
        # ties: keep the cheaper card
        key = (value, (-card_points(card, trump), -strength(card, trump)))
        if best is None or key[:2] > best[:2]:
            best = (key[0], key[1], action)
    assert best is not None
    return best[2]
