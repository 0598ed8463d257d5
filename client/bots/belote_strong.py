"""The strong Belote bot: bids and plays by playing sampled deals out.

It reads only its own cards and the public state (turned-up card, bids, trump, tricks).

* Bidding: the basic bot's hand value (trumps, side aces, belote) with the turned-up card,
  against a fixed threshold. (Choosing the bid by playing sampled deals out with the fast
  policy was tried and measured weaker: the policy plays the first five cards' hands too
  crudely to value a contract; see spec/client.md.)
* Card play: deal the unseen cards consistently with everything public (the turned-up card is in
  the taker's hand until played; every play's obligation shows the cards that seat does not
  hold) and play the legal card with the best mean point difference over the deals.
"""

from __future__ import annotations

import random
from typing import Any

from dealerless.client.bots.belote import hand_value
from dealerless.client.bots.belote_sim import Plays, Rules, play_problem, playout
from dealerless.client.bots.sampling import deal
from dealerless.protocol.cards import Card, Suit
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.belote_tricks import card_points, strength

K = ActionKind
PLAYOUT_BUDGET = 96  # playouts per card-play decision, shared among the legal cards
MIN_DEALS = 4
MAX_DEALS = 24
BID_VALUE = 46  # the basic bot's threshold, without its random jitter


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    legal = engine.legal_actions(seat)
    if not legal:
        return None
    state: dict[str, Any] = engine.public_state()
    mine = [s.card for s in engine.hand(seat) if s.card is not None]
    if state["phase"] == "bidding":
        return _value_bid(state, mine, legal)
    return _play(state, seat, mine, legal, rng)


def choose_card(engine: Engine, seat: int, rng: random.Random) -> Action:
    """The card-play decision alone (the ``normal`` level plays its cards this way)."""
    state: dict[str, Any] = engine.public_state()
    mine = [s.card for s in engine.hand(seat) if s.card is not None]
    return _play(state, seat, mine, engine.legal_actions(seat), rng)


def _rules(state: dict[str, Any], trump: Suit, taker: int) -> Rules:
    options = state["options"]
    return Rules(
        trump=trump,
        taker=taker,
        overtrump_partner=bool(options.get("overtrump_partner_on_trump_lead", False)),
        capot=str(options.get("capot", "replace")),
        counts_belote=bool(options.get("contract_counts_belote", True)),
    )


def _first_leader(state: dict[str, Any]) -> int:
    dealer = int(state["dealer"])
    return dealer if state["options"].get("first_lead", "dealer") == "dealer" else (dealer + 1) % 4


def _value_bid(state: dict[str, Any], mine: list[Card], legal: list[Action]) -> Action:
    """Take the suit with the best hand value (the basic bot's measure, the turned-up card
    counted) when it clears :data:`BID_VALUE`."""
    turned = Card.from_index(state["turned"][1])
    best: tuple[int, Action] | None = None
    for action in legal:
        if action.kind == K.BID and action.suit is not None:
            value = hand_value([*mine, turned], action.suit)
            if best is None or value > best[0]:
                best = (value, action)
    if best is not None and best[0] >= BID_VALUE:
        return best[1]
    return next(a for a in legal if a.kind == K.PASS)


def _play(
    state: dict[str, Any], seat: int, mine: list[Card], legal: list[Action], rng: random.Random
) -> Action:
    plays = [a for a in legal if a.card is not None]
    if len(plays) == 1:
        return plays[0]
    trump = Suit(state["trump"])
    rules = _rules(state, trump, int(state["taker"]))
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
