"""Dealing the cards a seat cannot see: one random deal consistent with what is public.

A strong bot never looks at another seat's cards. It samples them instead (a "determinization"):
the unseen cards are dealt to the other seats in the numbers they hold, where every seat gets
only cards it may hold. What a seat may not hold comes from public facts: a suit it did not
follow (a void), the "none of these" set of a play's non-membership proof (Belote's
obligations), cards known to be elsewhere. Cards already known to be in a seat's hand (revealed,
Belote's turned-up card) are given to it first.

Only the ``random.Random`` passed in is used, so the same view and the same random state always
give the same deal.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from dealerless.protocol.cards import Card

MAX_TRIES = 6


@dataclass
class DealProblem:
    """Who needs how many unseen cards, and what each of them cannot hold."""

    pool: list[Card]  # every card this seat has not seen (other hands and the stock)
    need: dict[int, int]  # seat -> number of unseen cards it holds
    excluded: dict[int, set[Card]] = field(default_factory=dict)  # seat -> cards it cannot hold
    known: dict[int, list[Card]] = field(default_factory=dict)  # seat -> cards known to be held


def deal(problem: DealProblem, rng: random.Random) -> dict[int, list[Card]]:
    """One random deal: seat -> its cards (known ones first). The most constrained seats are
    dealt first; if the constraints cannot be met (they contradict, which honest play never
    does, or the greedy order failed) a few retries, then the constraints are dropped."""
    seats = sorted(problem.need, key=lambda s: (-len(problem.excluded.get(s, ())), s))
    for attempt in range(MAX_TRIES + 1):
        strict = attempt < MAX_TRIES
        pool = list(problem.pool)
        rng.shuffle(pool)
        out: dict[int, list[Card]] = {}
        ok = True
        for seat in seats:
            count = problem.need[seat]
            banned = problem.excluded.get(seat, set()) if strict else set()
            chosen: list[Card] = []
            rest: list[Card] = []
            for card in pool:
                if len(chosen) < count and card not in banned:
                    chosen.append(card)
                else:
                    rest.append(card)
            if len(chosen) < count:
                ok = False
                if strict:
                    break
            pool = rest
            out[seat] = [*problem.known.get(seat, []), *chosen]
        if ok or not strict:
            return out
    raise AssertionError("unreachable: the last attempt ignores the constraints")


def unseen_pool(visible: Collection[Card], deck: Sequence[Card]) -> list[Card]:
    """The deck without the cards this seat has seen, in deck order (deterministic)."""
    seen = set(visible)
    return [c for c in deck if c not in seen]


def weighted_mean(values: Sequence[float], weights: Sequence[float]) -> float:
    total = sum(weights)
    if total <= 0:
        return sum(values) / len(values) if values else 0.0
    return sum(v * w for v, w in zip(values, weights, strict=True)) / total


def merge_excluded(target: dict[int, set[Card]], more: Mapping[int, Collection[Card]]) -> None:
    for seat, cards in more.items():
        target.setdefault(seat, set()).update(cards)
