"""Playouts of a Tuppen-family hand (classic, Limit family, Pottuppen) from one seat's view.

The three games share the card play: four tricks, follow suit, the last trick decides, folded
seats' cards stay on the table but do not count (the shared ``trick_winner``, used as is).
:class:`TrickView` is what one seat knows about the card play: its cards, the tricks on the
table, who is still in, how many cards each other seat holds and which cards each cannot hold
(voids shown by not following suit). :func:`sample_deals` deals the unseen cards consistently
(see :mod:`sampling`); :func:`playout` plays a deal to the end with a fast policy and returns
the seat that takes the last trick.

The policy (also used for the bot itself after its first card): follow suit, keep the strongest
card for the last trick, play the weakest otherwise, and in the third trick win cheaply when it
can (the winner leads the last trick, whose suit then decides). In a "pass round" (Pottuppen:
the last trick pays) every seat does the opposite: keep the weakest card, shed the strongest.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealerless.client.bots.sampling import DealProblem, deal, unseen_pool
from dealerless.protocol.cards import DECK, Card, Suit, cards_of_suit
from dealerless.protocol.rules.tuppen_tricks import strength, trick_winner

TRICKS = 4
Deal = dict[int, list[Card]]


@dataclass
class TrickView:
    players: int
    seat: int
    mine: list[Card]
    active: frozenset[int]
    leader: int
    current: list[tuple[int, Card]]
    tricks_done: int
    problem: DealProblem
    played_by: dict[int, list[Card]] = field(default_factory=dict)

    @property
    def led_suit(self) -> Suit | None:
        return self.current[0][1].suit if self.current else None

    def legal(self) -> list[Card]:
        led = self.led_suit
        following = [c for c in self.mine if c.suit == led]
        return sorted(following or self.mine)


def read_view(
    players: int,
    seat: int,
    mine: Sequence[Card],
    trick: Mapping[str, Any],
    counts: Sequence[int],
    active: Collection[int],
    *,
    seen: Collection[Card] = (),
    known: Mapping[int, Sequence[Card]] | None = None,
) -> TrickView:
    """Build the view from a game's public trick state (``{"leader", "current", "tricks"}``
    with card indices), each seat's number of held cards and the active seats. ``seen``: other
    cards this seat has seen (revealed, discarded face up); ``known``: revealed cards still in
    a seat's hand."""
    known = dict(known or {})
    tricks = [[(s, Card.from_index(c)) for s, c in t["plays"]] for t in trick["tricks"]]
    current = [(s, Card.from_index(c)) for s, c in trick["current"]]
    excluded: dict[int, set[Card]] = {}
    played_by: dict[int, list[Card]] = {}
    for plays in [*tricks, current]:
        if not plays:
            continue
        led = plays[0][1].suit
        for who, card in plays:
            played_by.setdefault(who, []).append(card)
            if card.suit != led:
                excluded.setdefault(who, set()).update(cards_of_suit(led))
    visible = [*mine, *(c for _, c in current), *seen]
    visible += [c for plays in tricks for _, c in plays]
    visible += [c for cards in known.values() for c in cards]
    need = {s: max(0, counts[s] - len(known.get(s, ()))) for s in sorted(active) if s != seat}
    problem = DealProblem(
        pool=unseen_pool(visible, DECK),
        need=need,
        excluded=excluded,
        known={s: list(known.get(s, ())) for s in need},
    )
    return TrickView(
        players=players,
        seat=seat,
        mine=list(mine),
        active=frozenset(active),
        leader=int(trick["leader"]),
        current=current,
        tricks_done=len(tricks),
        problem=problem,
        played_by=played_by,
    )


def sample_deals(view: TrickView, rng: random.Random, count: int) -> list[Deal]:
    deals = []
    for _ in range(count):
        hands = deal(view.problem, rng)
        hands[view.seat] = list(view.mine)
        deals.append(hands)
    return deals


def _next_to_play(
    players: int, active: Collection[int], leader: int, plays: Sequence[tuple[int, Card]]
) -> int | None:
    start = plays[-1][0] + 1 if plays else leader
    played = {s for s, _ in plays}
    for step in range(players):
        seat = (start + step) % players
        if seat in active and seat not in played:
            return seat
    return None


def _policy(
    seat: int,
    hand: list[Card],
    plays: list[tuple[int, Card]],
    active: Collection[int],
    tricks_left: int,
    avoid: bool,
) -> Card:
    led = plays[0][1].suit if plays else None
    legal = [c for c in hand if c.suit == led] if led is not None else []
    legal = legal or hand
    if len(legal) == 1:
        return legal[0]
    if avoid:
        keep = min(hand, key=strength)
        pool = [c for c in legal if c != keep] or legal
        return max(pool, key=strength)
    best = max(hand, key=strength)
    pool = [c for c in legal if c != best] or legal
    if tricks_left == 2:
        winners = [c for c in pool if trick_winner([*plays, (seat, c)], active) == seat]
        if winners:
            return min(winners, key=strength)
    return min(pool, key=strength)


def playout(
    view: TrickView,
    hands: Deal,
    first: Card | None = None,
    *,
    active: Collection[int] | None = None,
    avoid: bool = False,
    careless: Collection[int] = (),
    rng: random.Random | None = None,
) -> int:
    """Play the deal to the end; the seat that takes the last trick. ``first``: the card this
    seat plays now (else the policy picks it); ``active``: the seats still in (default the
    view's), e.g. after modelled folds; ``careless``: seats that play a legal card at random
    (drawn from ``rng``) instead of the policy."""
    live = frozenset(view.active if active is None else active)
    held = {s: list(hands[s]) for s in live if s in hands}
    plays = list(view.current)
    leader = view.leader
    done = view.tricks_done
    pending = first
    while done < TRICKS:
        seat = _next_to_play(view.players, live, leader, plays)
        if seat is None:
            winner = trick_winner(plays, live)
            if winner is None:  # no active seat played: cannot happen in a running hand
                return leader
            done += 1
            leader = winner
            plays = []
            continue
        hand = held[seat]
        if not hand:  # a deal that ran short (contradictory constraints): stop here
            return leader
        if seat == view.seat and pending is not None:
            card = pending
            pending = None
        elif rng is not None and seat in careless:
            led = plays[0][1].suit if plays else None
            legal = [c for c in hand if c.suit == led] or hand
            card = legal[rng.randrange(len(legal))]
        else:
            card = _policy(seat, hand, plays, live, TRICKS - done, avoid)
        hand.remove(card)
        plays.append((seat, card))
    return leader


def card_values(
    view: TrickView,
    deals: Sequence[Deal],
    weights: Sequence[float],
    utility: Callable[[int], float],
    *,
    avoid: bool = False,
) -> dict[Card, float]:
    """Weighted mean utility (of the last trick's taker) of each legal card."""
    total = sum(weights) or 1.0
    out: dict[Card, float] = {}
    for card in view.legal():
        value = 0.0
        for hands, weight in zip(deals, weights, strict=True):
            value += weight * utility(playout(view, hands, card, avoid=avoid))
        out[card] = value / total
    return out


def best_card(values: Mapping[Card, float]) -> Card:
    """The highest value; ties go to the weaker card (it keeps the strong one)."""
    return max(values, key=lambda c: (round(values[c], 9), -strength(c), -c.index))


def power(cards: Sequence[Card]) -> float:
    """The classic bot's hand value: the best card plus 0.4 per other card of ace or better."""
    if not cards:
        return 0.0
    ranked = sorted((strength(c) for c in cards), reverse=True)
    return ranked[0] + 0.4 * sum(1 for s in ranked[1:] if s >= 4)


def signal_weight(strength_shown: float, value: float, scale: float = 0.8) -> float:
    """How likely a seat that showed strength (knocked, called, bet: ``strength_shown`` is the
    hand value such a move usually needs) did so with a hand of ``value``: a soft step, never
    zero (bluffs happen)."""
    x = (value - strength_shown) / scale
    if x > 8:
        return 1.0
    if x < -8:
        return 0.05
    return 0.05 + 0.95 / (1.0 + math.exp(-x))


def deal_weight(
    view: TrickView,
    hands: Deal,
    shown: Mapping[int, float],
    trust: Mapping[int, float] | None = None,
) -> float:
    """Likelihood of a deal given the strength each seat showed (seat -> value needed); the
    value is taken over the seat's whole hand of this deal (cards played plus cards held).
    ``trust`` (seat -> 0..1, default 1): how much that seat's signal says; a seat that bets
    whatever it holds (0) leaves every deal equally likely."""
    weight = 1.0
    for seat, needed in shown.items():
        if seat in hands:
            cards = [*view.played_by.get(seat, []), *hands[seat]]
            read = 1.0 if trust is None else trust.get(seat, 1.0)
            weight *= (1.0 - read) + read * signal_weight(needed, power(cards))
    return weight
