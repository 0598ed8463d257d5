"""The strong Pottuppen bot: the bet chosen by its expected money over sampled deals.

It reads only its own cards and the public state. Unseen cards are dealt at random consistent
with the voids shown; a deal is weighted by how likely the bets seen were with its cards. The
value of a result to this seat is its balance change plus its share (1/n) of the change of the
pot, which is split evenly at the end.

* Betting: for passing and for a few bet sizes, every later seat's choice is modelled from its
  sampled cards (it bets when its chance beats one half against the seats it would face), the
  hand is played out in the mode that follows (contest among the bettors, a lone bettor against
  every defender, or a pass round where the last trick pays), and the best choice is taken.
  Both win and loss scale with the bet, so with an edge the bet is the whole pot.
* Card play: the legal card with the best mean result of its playouts (win the last trick as a
  bettor, beat the bettor as a defender, avoid the last trick in a pass round).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from dealerless.client.bots.pottuppen import BET_THRESHOLD, win_chance_vs_one
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

K = ActionKind
PLAY_SAMPLES = 20
BET_SAMPLES = 64
BET_SHOWN = 6.0  # the hand value a bet usually shows
BET_ANYWAY = 0.04  # modelled chance that a seat bets whatever its cards
MARGIN = 0.02  # share of the bet a bet must gain over passing


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    if not required:
        return None
    legal = engine.legal_actions(seat)
    if not legal:
        raise RuntimeError(f"seat {seat} must act but has no legal action")
    state: dict[str, Any] = engine.public_state()
    mine = [s.card for s in engine.hand(seat) if s.card is not None]
    players = int(state["players"])
    bets: list[int | None] = list(state["bets"])
    if state["phase"] == "betting":
        view = read_view(
            players,
            seat,
            mine,
            {"leader": (state["dealer"] + 1) % players, "current": [], "tricks": []},
            [len(p) for p in state["hand_positions"]],
            range(players),
        )
        return _bet(view, state, legal, bets, rng)
    return _card(state, seat, mine, legal, rng)


def choose_card(engine: Engine, seat: int, rng: random.Random) -> Action:
    """The card-play decision alone (the ``normal`` level plays its cards this way)."""
    state: dict[str, Any] = engine.public_state()
    mine = [s.card for s in engine.hand(seat) if s.card is not None]
    return _card(state, seat, mine, engine.legal_actions(seat), rng)


def _card(
    state: dict[str, Any], seat: int, mine: list[Card], legal: list[Action], rng: random.Random
) -> Action:
    players = int(state["players"])
    bets: list[int | None] = list(state["bets"])
    plays = [a for a in legal if a.card is not None]
    if len(plays) <= 1:
        return plays[0] if plays else legal[0]
    trick = state["trick"]
    view = read_view(
        players, seat, mine, trick, [len(p) for p in state["hand_positions"]], trick["active"]
    )
    mode = str(state["mode"])
    deals = sample_deals(view, rng, PLAY_SAMPLES)
    weights = [_weight(view, d, bets) for d in deals]
    stakes = {s: b for s, b in enumerate(bets) if b}
    payment = _pass_payment(state)

    def utility(winner: int) -> float:
        return _value(seat, players, mode, stakes, winner, payment)

    values = card_values(view, deals, weights, utility, avoid=mode == "pass")
    pick = best_card(values)
    return next(a for a in plays if a.card == pick)


def _pass_payment(state: dict[str, Any]) -> int:
    options = state["options"]
    return int(options.get("pass_round_payment") or options.get("ante") or 1)


def _weight(view: TrickView, hands: Deal, bets: list[int | None]) -> float:
    """Bettors usually hold strong cards. A pass is not read as weakness: a seat that never
    bets (a passive player) would make every pass look weak; measured, reading passes cost
    about 6 chips a game against passive seats and gained nothing against basic ones."""
    shown = {s: BET_SHOWN for s, b in enumerate(bets) if b and s != view.seat}
    return deal_weight(view, hands, shown)


def _value(
    seat: int, players: int, mode: str, stakes: dict[int, int], winner: int, payment: int
) -> float:
    """This seat's balance change plus its 1/n share of the pot's change, for one result."""
    balance = 0.0
    pot = 0.0
    if mode == "pass":
        pot += payment
        if winner == seat:
            balance -= payment
    else:
        for bettor, amount in stakes.items():
            sign = 1 if bettor == winner else -1
            pot -= sign * amount
            if bettor == seat:
                balance += sign * amount
    return balance + pot / players


def _models_bet(
    hands: Deal, seat: int, players: int, bettors: int, later: int, rng: random.Random
) -> bool:
    """Modelled choice of a later seat: bet when its rough chance beats the threshold."""
    opponents = players - 1 if not bettors else bettors + 0.5 * later
    chance = win_chance_vs_one(hands[seat]) ** max(1.0, opponents**0.8)
    return chance >= BET_THRESHOLD or rng.random() < BET_ANYWAY


def _modelled_amount(hands: Deal, seat: int, pot: int) -> int:
    chance = win_chance_vs_one(hands[seat])
    edge = max(0.1, 2 * chance - 1)
    return max(1, min(pot, round(pot * min(1.0, edge + 0.1))))


def _bet(
    view: TrickView,
    state: dict[str, Any],
    legal: list[Action],
    bets: list[int | None],
    rng: random.Random,
) -> Action:
    seat = view.seat
    players = view.players
    pot = int(state["pot"])
    order = [(state["dealer"] + 1 + i) % players for i in range(players)]
    later = order[order.index(seat) + 1 :]
    known = {s: b for s, b in enumerate(bets) if b}
    payment = _pass_payment(state)
    amounts = sorted({a.amount for a in legal if a.kind == K.BET and a.amount})
    sizes = sorted({amounts[0], amounts[len(amounts) // 2], amounts[-1]}) if amounts else []
    deals = sample_deals(view, rng, BET_SAMPLES)
    weights = [_weight(view, d, bets) for d in deals]
    total = sum(weights) or 1.0
    value_pass = 0.0
    value_unit = 0.0  # value of betting, per unit of the bet (linear in the amount)
    value_fixed = 0.0  # ... and the part that does not scale with it
    for hands, weight in zip(deals, weights, strict=True):
        for betting in (False, True):
            stakes = dict(known)
            if betting:
                stakes[seat] = 1
            for index, other in enumerate(later):
                if _models_bet(hands, other, players, len(stakes), len(later) - index - 1, rng):
                    stakes[other] = _modelled_amount(hands, other, pot)
            mode = "pass" if not stakes else "single" if len(stakes) == 1 else "contest"
            live = set(stakes) if mode == "contest" else set(range(players))
            leader = next(s for s in order if s in live)
            winner = playout(replace(view, leader=leader), hands, active=live, avoid=mode == "pass")
            if not betting:
                value_pass += weight * _value(seat, players, mode, stakes, winner, payment)
                continue
            others = {s: b for s, b in stakes.items() if s != seat}
            fixed = _value(seat, players, mode, others, winner, payment) if others else 0.0
            mine = _value(seat, players, mode, {seat: 1}, winner, payment)
            value_fixed += weight * fixed
            value_unit += weight * mine
    value_pass /= total
    value_fixed /= total
    value_unit /= total
    best: Action = Action(K.PASS, seat)
    best_value = value_pass
    for size in sizes:
        value = value_fixed + value_unit * size - MARGIN * size
        if value > best_value:
            best, best_value = Action(K.BET, seat, amount=size), value
    return best
