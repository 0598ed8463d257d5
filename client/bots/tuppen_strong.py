"""The strong classic-Tuppen bot: sampled deals, playouts, and the stake arithmetic.

It reads only its own cards and the public state. Unseen cards are dealt at random consistent
with the voids shown in the tricks and with revealed cards; each deal is weighted by how likely
the knocks and calls seen were with those cards (a seat that knocked usually holds a strong
card). Every decision compares expected penalty points over the same sampled deals:

* card play: the legal card whose playouts take the last trick most often;
* answering a knock: call when the expected loss ``(1 - p) * stake`` (p: chance to take the last
  trick among the seats that stay, later answerers modelled by their cards) is below the fold
  cost ``stake - 1``; a poverty hand the same way (2 against 1);
* knocking on its own turn (and out of turn in the last trick): model every other seat's answer
  from its sampled cards (call when the hand is worth the new stake, sometimes anyway), play
  the callers out, and knock when that costs it fewer points than not knocking; points the
  others take count a little in its favour (the game is a race to stay under 10).

The exchange round is as in the basic bot (Tupp claims and attempts always, true dirty laundry
always, rare bluffs and checks).
"""

from __future__ import annotations

import random
from typing import Any

from dealerless.client.bots.tuppen import first_of_each_kind
from dealerless.client.bots.tuppen_sim import (
    Deal,
    TrickView,
    best_card,
    card_values,
    deal_weight,
    playout,
    power,
    read_view,
    sample_deals,
)
from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.tuppen_exchange import is_true_laundry

K = ActionKind
PLAY_SAMPLES = 20
BET_SAMPLES = 32
LATE_SAMPLES = 12
KNOCK_SHOWN = 6.5  # the hand value a knock usually shows
CALL_SHOWN = 3.8  # ... and a call
OTHERS_WEIGHT = 0.4  # how much a point given to another seat is worth to this one
KNOCK_MARGIN = 0.05
CALL_ANYWAY = 0.25  # modelled chance that a seat calls whatever its cards
BLUFF_LAUNDRY = 0.15
CHECK_RATE = 0.15


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    legal = engine.legal_actions(seat)
    if not legal:
        return None
    by_kind = first_of_each_kind(legal)
    if K.TUPP in by_kind:
        return by_kind[K.TUPP]
    state: dict[str, Any] = engine.public_state()
    hand: dict[str, Any] = state.get("hand") or {}
    mine = [s.card for s in engine.hand(seat) if s.card is not None]
    if not required:
        if K.KNOCK in by_kind and len(hand["trick"]["tricks"]) == 3:
            view = _view(state, seat, mine)
            if _knock_gain(view, hand, state, rng, LATE_SAMPLES) > KNOCK_MARGIN:
                return by_kind[K.KNOCK]
        return None
    if K.CALL in by_kind:
        view = _view(state, seat, mine)
        return by_kind[K.CALL] if _call(view, hand, rng) else by_kind[K.FOLD]
    if K.PASS in by_kind:
        return _exchange(by_kind, mine, rng)
    if K.ACCEPT in by_kind:
        return by_kind[K.CHECK if rng.random() < CHECK_RATE else K.ACCEPT]
    plays = [a for a in legal if a.kind == K.PLAY]
    view = _view(state, seat, mine)
    if K.KNOCK in by_kind and _knock_gain(view, hand, state, rng, BET_SAMPLES) > KNOCK_MARGIN:
        return by_kind[K.KNOCK]
    if not plays:
        return legal[0]
    return _card(view, hand, plays, rng)


def choose_card(engine: Engine, seat: int, rng: random.Random) -> Action:
    """The card-play decision alone (the ``normal`` level plays its cards this way)."""
    plays = [a for a in engine.legal_actions(seat) if a.kind == K.PLAY]
    state: dict[str, Any] = engine.public_state()
    mine = [s.card for s in engine.hand(seat) if s.card is not None]
    return _card(_view(state, seat, mine), state["hand"], plays, rng)


def _card(view: TrickView, hand: dict[str, Any], plays: list[Action], rng: random.Random) -> Action:
    if len(plays) == 1:
        return plays[0]
    seat = view.seat
    deals = sample_deals(view, rng, PLAY_SAMPLES)
    weights = [deal_weight(view, d, _shown(hand, seat)) for d in deals]
    values = card_values(view, deals, weights, lambda w: 1.0 if w == seat else 0.0)
    pick = best_card(values)
    return next(a for a in plays if a.card == pick)


def _view(state: dict[str, Any], seat: int, mine: list[Card]) -> TrickView:
    hand = state["hand"]
    holding = hand["holding"]
    revealed = {int(p): Card.from_index(c) for p, c in hand["revealed"]}
    known: dict[int, list[Card]] = {}
    for who, slots in enumerate(holding):
        if who != seat:
            cards = [revealed[p] for p, _ in slots if p in revealed]
            if cards:
                known[who] = cards
    held_known = {c for cards in known.values() for c in cards}
    seen = [c for c in revealed.values() if c not in held_known and c not in mine]
    return read_view(
        state["players"],
        seat,
        mine,
        hand["trick"],
        [len(slots) for slots in holding],
        hand["active"],
        seen=seen,
        known=known,
    )


def _shown(hand: dict[str, Any], seat: int) -> dict[int, float]:
    """Seat -> the hand value its knock or call usually shows."""
    shown: dict[int, float] = {}
    stake = int(hand["stake"])
    pending = set(hand["answer_queue"])
    if hand.get("poor") and stake <= 2 and hand.get("last_knocker") is None:
        for other in hand["active"]:
            if other != seat and other not in hand["poor"] and other not in pending:
                shown[other] = CALL_SHOWN + 0.7
        return shown
    if stake <= 1:
        return shown
    knocker = hand.get("last_knocker")
    for other in hand["active"]:
        if other == seat or other in pending:
            continue
        shown[other] = KNOCK_SHOWN if other == knocker else CALL_SHOWN + 0.5 * (stake - 2)
    return shown


def _calls(hands: Deal, seat: int, stake: int, rng: random.Random) -> bool:
    """Modelled answer of another seat to a knock to ``stake``."""
    need = 3.5 + 0.6 * (stake - 1)
    return power(hands[seat]) >= need or rng.random() < CALL_ANYWAY


def _call(view: TrickView, hand: dict[str, Any], rng: random.Random) -> bool:
    seat = view.seat
    stake = int(hand["stake"])
    poverty = hand["answer_kind"] == "poverty"
    later = [s for s in hand["answer_queue"] if s != seat]
    deals = sample_deals(view, rng, BET_SAMPLES)
    shown = _shown(hand, seat)
    total = 0.0
    wins = 0.0
    for hands in deals:
        weight = deal_weight(view, hands, shown)
        staying = set(view.active)
        for other in later:
            if not poverty and not _calls(hands, other, stake, rng):
                staying.discard(other)
        if playout(view, hands, active=staying) == seat:
            wins += weight
        total += weight
    p = wins / total if total else 0.0
    fold_cost = 1 if poverty else stake - 1
    return (1 - p) * stake < fold_cost


def _knock_gain(
    view: TrickView, hand: dict[str, Any], state: dict[str, Any], rng: random.Random, n: int
) -> float:
    """Expected points saved by knocking now (own points, plus a share of the others')."""
    seat = view.seat
    stake = int(hand["stake"])
    players = int(state["players"])
    others = [s for s in hand["in_hand"] if s != seat]
    order = [(seat + i) % players for i in range(1, players)]
    answerers = [s for s in order if s in view.active]
    deals = sample_deals(view, rng, n)
    shown = _shown(hand, seat)
    total = 0.0
    gain = 0.0
    for hands in deals:
        weight = deal_weight(view, hands, shown)
        base = playout(view, hands)
        before = _utility(seat, base, view.active, stake, others, {}, stake)
        callers = [s for s in answerers if _calls(hands, s, stake + 1, rng)]
        folds = {s: stake for s in answerers if s not in callers}
        if not callers:
            after = _utility(seat, seat, {seat}, stake + 1, others, folds, stake + 1)
        else:
            staying = {seat, *callers}
            winner = playout(view, hands, active=staying)
            after = _utility(seat, winner, staying, stake + 1, others, folds, stake + 1)
        gain += weight * (after - before)
        total += weight
    return gain / total if total else 0.0


def _utility(
    seat: int,
    winner: int,
    staying: set[int] | frozenset[int],
    stake: int,
    others: list[int],
    folds: dict[int, int],
    _new_stake: int,
) -> float:
    """Minus own points plus a share of the others' points for one played-out hand."""
    own = 0 if winner == seat else stake
    theirs = 0.0
    for other in others:
        if other in folds:
            theirs += folds[other]
        elif other in staying and other != winner:
            theirs += stake
    return -own + OTHERS_WEIGHT * theirs / max(1, len(others))


def _exchange(by_kind: dict[ActionKind, Action], cards: list[Card], rng: random.Random) -> Action:
    if K.TUPP_ATTEMPT in by_kind:
        return by_kind[K.TUPP_ATTEMPT]
    if K.LAUNDRY in by_kind and (
        is_true_laundry(cards) or (power(cards) < 4 and rng.random() < BLUFF_LAUNDRY)
    ):
        return by_kind[K.LAUNDRY]
    return by_kind[K.PASS]
