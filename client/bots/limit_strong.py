"""The strong bot for Limit, No Limit and Pot Limit Tuppen: sampled deals, playouts, chip EV.

It reads only its own cards and the public state. Unseen cards are dealt at random consistent
with the voids shown in the tricks; each deal is weighted by how likely the bets seen were with
those cards. Every decision is the best expected chip result over the same sampled deals, where
a deal is played out with the fast policy of :mod:`tuppen_sim` (which applies the real
folded-leader rule: a folded leader's card sets the led suit but does not count, so a card of
the led suit can still win):

* card play: the legal card that takes the last trick most often;
* answering: fold (0), call (``p * (pot + cost) - cost``, later answerers modelled from their
  cards) or raise (as a knock, below), whichever is best;
* knocking on its own turn: for a few bet sizes (Limit: the one bet; No/Pot Limit: about half
  the pot, the pot, the most allowed) model every other seat's answer from its sampled cards
  (it calls when its chance beats the price, sometimes anyway), play the callers out, and bet
  the size with the best result if that beats checking.

Every other seat is read from the public results (:mod:`limit_opponents`): the signals of a
seat that risks chips in most hands are discounted (down to none), and such a seat's card play
is drawn at random in the playouts. Dirty laundry as in the basic bot.
"""

from __future__ import annotations

import random
from typing import Any

from dealerless.client.bots.limit import hand_strength
from dealerless.client.bots.limit_opponents import Opponents, read_opponents
from dealerless.client.bots.tuppen_sim import (
    Deal,
    TrickView,
    best_card,
    card_values,
    deal_weight,
    playout,
    read_view,
    sample_deals,
)
from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.limit_laundry import is_dirty_laundry

K = ActionKind
PLAY_SAMPLES = 20
BET_SAMPLES = 32
KNOCK_SHOWN = 6.5
CALL_SHOWN = 4.5
BET_MARGIN = 0.15  # chips an aggressive move must gain over the passive one
EARLY_MARGIN = 0.6  # before the last trick: waiting keeps the option to knock knowing more


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    legal = engine.legal_actions(seat)
    if not legal:
        return None
    kinds = {a.kind for a in legal}
    mine = [s.card for s in engine.hand(seat) if s.card is not None]
    if K.LAUNDRY in kinds:
        return Action(K.LAUNDRY if is_dirty_laundry(mine) else K.PASS, seat)
    if K.CHECK in kinds:
        return Action(K.CHECK if rng.random() < 0.2 else K.ACCEPT, seat)
    state: dict[str, Any] = engine.public_state()
    plays = [a for a in legal if a.kind == K.PLAY]
    if K.CALL not in kinds and (not required or not plays):
        return None  # an optional knock out of turn: only on its own turn
    view = _read(state, seat, mine)
    betting = dict(state["betting"])
    opponents = read_opponents(state, seat)
    betting["loose"] = opponents.loose
    shown = _shown(state, seat)
    if K.CALL in kinds:
        # Answering a bet: a seat that bets whatever it holds is taken to play its cards
        # carelessly too. Not when knocking: a seat that only calls whatever it holds (a
        # calling station) may still play its cards well (measured: it cost 9-17 chips a game
        # against `passive` seats).
        betting["careless"] = opponents.careless
        return _answer(view, legal, betting, shown, opponents, rng)
    betting["careless"] = set()
    if K.KNOCK in kinds:
        deals = sample_deals(view, rng, BET_SAMPLES)
        weights = [deal_weight(view, d, shown, opponents.trust) for d in deals]
        p = _win_rate(view, deals, weights, None, betting["careless"], rng)
        check = p * betting["pot"]
        best, value = _best_bet(view, legal, K.KNOCK, betting, deals, weights, rng)
        margin = BET_MARGIN if view.tricks_done == 3 else EARLY_MARGIN
        if best is not None and value > check + margin:
            return best
    return _card(view, plays, shown, opponents, rng)


def choose_card(engine: Engine, seat: int, rng: random.Random) -> Action:
    """The card-play decision alone (the ``normal`` level plays its cards this way)."""
    plays = [a for a in engine.legal_actions(seat) if a.kind == K.PLAY]
    state: dict[str, Any] = engine.public_state()
    mine = [s.card for s in engine.hand(seat) if s.card is not None]
    view = _read(state, seat, mine)
    return _card(view, plays, _shown(state, seat), read_opponents(state, seat), rng)


def _read(state: dict[str, Any], seat: int, mine: list[Card]) -> TrickView:
    return read_view(
        len(state["hands"]),
        seat,
        mine,
        state["trick"],
        [len(h) for h in state["hands"]],
        state["active"],
    )


def _card(
    view: TrickView,
    plays: list[Action],
    shown: dict[int, float],
    opponents: Opponents,
    rng: random.Random,
) -> Action:
    if len(plays) == 1:
        return plays[0]
    seat = view.seat
    deals = sample_deals(view, rng, PLAY_SAMPLES)
    weights = [deal_weight(view, d, shown, opponents.trust) for d in deals]
    values = card_values(view, deals, weights, lambda w: 1.0 if w == seat else 0.0)
    pick = best_card(values)
    return next(a for a in plays if a.card == pick)


def _shown(state: dict[str, Any], seat: int) -> dict[int, float]:
    betting = state["betting"]
    knocker = betting["last_knocker"]
    shown: dict[int, float] = {}
    for other in state["active"]:
        if other == seat or other in betting["answering"]:
            continue
        if other == knocker:
            shown[other] = KNOCK_SHOWN
        elif betting["bets"][other] > 0:
            shown[other] = CALL_SHOWN
    return shown


def _calls(
    view: TrickView,
    hands: Deal,
    seat: int,
    live: set[int],
    price: float,
    betting: dict[str, Any],
    rng: random.Random,
) -> bool:
    """Modelled answer of another seat: its chance (as a hand-strength player sees it) against
    the price, or a call whatever its cards (as often as that seat did so far)."""
    rating = hand_strength(hands[seat], view.current, live)
    win = rating ** max(1, len(live) - 1)
    return win >= price + 0.1 or rng.random() < betting["loose"][seat]


def _win_rate(
    view: TrickView,
    deals: list[Deal],
    weights: list[float],
    live: set[int] | None,
    careless: set[int],
    rng: random.Random,
) -> float:
    total = sum(weights) or 1.0
    wins = sum(
        w
        for d, w in zip(deals, weights, strict=True)
        if playout(view, d, active=live, careless=careless, rng=rng) == view.seat
    )
    return wins / total


def _bet_result(
    view: TrickView,
    hands: Deal,
    betting: dict[str, Any],
    my_cost: int,
    increase: int,
    rng: random.Random,
) -> float:
    """Chips won from now on if this seat pays ``my_cost`` plus ``increase`` and the others
    answer as modelled."""
    seat = view.seat
    players = view.players
    level = betting["current_bet"] + increase
    pot = betting["pot"] + my_cost + increase
    paid = my_cost + increase
    live = set(view.active)
    callers = {seat}
    order = [(seat + i) % players for i in range(1, players)]
    for other in order:
        if other not in view.active:
            continue
        cost = max(0, level - betting["bets"][other])
        price = cost / (pot + cost) if pot + cost else 0.0
        if cost == 0 or _calls(view, hands, other, live, price, betting, rng):
            callers.add(other)
            pot += cost
        else:
            live.discard(other)
    if callers == {seat}:
        return float(pot - paid)
    winner = playout(view, hands, active=callers, careless=betting["careless"], rng=rng)
    return float(pot - paid) if winner == seat else float(-paid)


def _best_bet(
    view: TrickView,
    legal: list[Action],
    kind: ActionKind,
    betting: dict[str, Any],
    deals: list[Deal],
    weights: list[float],
    rng: random.Random,
    my_cost: int = 0,
) -> tuple[Action | None, float]:
    options = [a for a in legal if a.kind == kind]
    if not options:
        return None, float("-inf")
    if options[0].amount is None:
        candidates = options[:1]
    else:
        pot = int(betting["pot"]) + my_cost
        targets = {options[0].amount, pot // 2, pot, options[-1].amount}
        candidates = []
        for target in sorted(t for t in targets if t is not None):
            pick = min(options, key=lambda a: abs((a.amount or 1) - target))
            if pick not in candidates:
                candidates.append(pick)
    total = sum(weights) or 1.0
    best: tuple[Action | None, float] = (None, float("-inf"))
    for action in candidates:
        increase = action.amount if action.amount is not None else 1
        value = (
            sum(
                w * _bet_result(view, d, betting, my_cost, increase, rng)
                for d, w in zip(deals, weights, strict=True)
            )
            / total
        )
        if value > best[1]:
            best = (action, value)
    return best


def _answer(
    view: TrickView,
    legal: list[Action],
    betting: dict[str, Any],
    shown: dict[int, float],
    opponents: Opponents,
    rng: random.Random,
) -> Action:
    seat = view.seat
    cost = int(betting["current_bet"]) - int(betting["bets"][seat])
    pot = int(betting["pot"])
    later = [s for s in betting["answering"] if s != seat]
    deals = sample_deals(view, rng, BET_SAMPLES)
    weights = [deal_weight(view, d, shown, opponents.trust) for d in deals]
    total = sum(weights) or 1.0
    call_value = 0.0
    for hands, weight in zip(deals, weights, strict=True):
        live = set(view.active)
        final = pot + cost
        for other in later:
            other_cost = int(betting["current_bet"]) - int(betting["bets"][other])
            price = other_cost / (final + other_cost) if final + other_cost else 0.0
            if other_cost == 0 or _calls(view, hands, other, live, price, betting, rng):
                final += other_cost
            else:
                live.discard(other)
        won = playout(view, hands, active=live, careless=betting["careless"], rng=rng) == seat
        call_value += weight * ((final - cost) if won else -cost)
    call_value /= total
    raise_action, raise_value = _best_bet(
        view, legal, K.RAISE, betting, deals, weights, rng, my_cost=cost
    )
    if raise_action is not None and raise_value > max(call_value, 0.0) + BET_MARGIN:
        return raise_action
    if call_value >= 0.0:
        return Action(K.CALL, seat)
    return Action(K.FOLD, seat)
