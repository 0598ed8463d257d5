"""Bot for Limit / No Limit / Pot Limit Tuppen.

It looks only at its own cards (``engine.hand(seat)``), the public state and its legal actions.
Hand strength: the two strongest cards it holds (Tuppen order J < Q < K < A < 7 < 8 < 9 < 10),
and in the last trick whether its card can beat what is on the table; its chance to win is that
strength to the power of the number of other active seats. It knocks with strong hands
(sometimes as a bluff), answers a knock by comparing its chance with the price (pot odds),
raises with very strong hands (in No/Pot Limit: half the pot, the pot, or all it may), keeps its
strong cards for the last trick, and declares dirty laundry when it has it (rarely as a bluff).
"""

from __future__ import annotations

import random
from typing import Any

from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.limit_laundry import is_dirty_laundry
from dealerless.protocol.rules.tuppen_tricks import strength, trick_winner

K = ActionKind
_US = -1  # our seat in a trick we rate (no real seat is negative)


def hand_strength(cards: list[Card], table: list[tuple[int, Card]], active: set[int]) -> float:
    """0 (hopeless) .. 1 (sure winner) for the seat's remaining cards."""
    if not cards:
        return 0.0
    ranked = sorted((strength(c) / 7 for c in cards), reverse=True)
    value = ranked[0] * 0.65 + (ranked[1] if len(ranked) > 1 else ranked[0]) * 0.35
    if len(cards) == 1 and table:
        # The last trick: does this card win it as it stands? The rules' own trick winner
        # decides, with our card in it (a folded leader's card sets the led suit but does not
        # count, so our card may be the only counted one of that suit: seed 000).
        if trick_winner([*table, (_US, cards[0])], {*active, _US}) != _US:
            return 0.0
        played = sum(1 for s, _ in table if s in active)
        # Sure once every other seat still in the hand has played (we are one of ``active``).
        value = 1.0 if played >= len(active) - 1 else max(value, 0.8)
    return value


def _bet(
    actions: list[Action], kind: ActionKind, pot: int, win: float, rng: random.Random
) -> Action:
    """Limit: the only bet. No/Pot Limit: about half the pot, the whole pot with a very strong
    hand (capped by what is allowed)."""
    options = [a for a in actions if a.kind == kind]
    if options[0].amount is None:
        return options[0]
    if win > 0.85:
        return options[-1]  # the most allowed: all in (No Limit) or the pot (Pot Limit)
    target = pot if win > 0.7 else max(1, pot // 2 + rng.randint(-1, 1))
    return min(options, key=lambda a: abs((a.amount or 1) - target))


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    actions = engine.legal_actions(seat)
    if not actions:
        return None
    kinds = {a.kind for a in actions}
    state: dict[str, Any] = engine.public_state()
    betting = state["betting"]
    pot: int = betting["pot"]
    cards = [s.card for s in engine.hand(seat) if s.card is not None]
    active = set(state["active"])
    table = [(s, Card.from_index(c)) for s, c in state["trick"]["current"]]
    rating = hand_strength(cards, table, active)
    # rough chance to beat every other active seat
    win = rating ** max(1, len(active) - 1)

    if K.LAUNDRY in kinds:
        if is_dirty_laundry(cards) or (rating < 0.3 and rng.random() < 0.03):
            return Action(K.LAUNDRY, seat)
        return Action(K.PASS, seat)
    if K.CHECK in kinds:
        return Action(K.CHECK if rng.random() < 0.2 else K.ACCEPT, seat)
    if K.CALL in kinds:
        cost = betting["current_bet"] - betting["bets"][seat]
        price = cost / (pot + cost) if pot + cost else 0.0
        if K.RAISE in kinds and win > 0.65 and rng.random() < 0.5:
            return _bet(actions, K.RAISE, pot, win, rng)
        if win >= price + 0.1 or rng.random() < 0.03:
            return Action(K.CALL, seat)
        return Action(K.FOLD, seat)
    if K.KNOCK in kinds:
        strong = win > 0.5 and rng.random() < 0.5
        bluff = win < 0.1 and rng.random() < 0.05
        if strong or bluff:
            return _bet(actions, K.KNOCK, pot, win, rng)
    plays = [a for a in actions if a.kind == K.PLAY]
    if not required or not plays:
        return None
    led = table[0][1].suit if table else None
    following = [a for a in plays if a.card is not None and a.card.suit == led]
    pool = following or plays
    # keep the strong cards for the last trick: play the weakest legal card
    return min(pool, key=lambda a: (strength(a.card) if a.card else 0, a.position or 0))
