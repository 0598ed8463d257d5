"""Classic Tuppen penalty-point stakes: the knock cap, answer order and hand settlement.

A hand is worth ``stake`` penalty points to every loser still in it (1 at the start; every
knock raises it by 1; a poverty hand is worth 2). A seat that folds pays the stake as it stood
before the knock (or poverty call) it refused. The winner pays nothing; with the jack-win rule
the winner of the last trick with a jack gets one point off. Penalties never go below 0.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

PENALTY_LIMIT = 10  # a seat with this many penalty points is out of the game
POOR_AT = 9  # poverty (Armut): a seat with exactly this many points
POVERTY_STAKE = 2  # who plays along in a poverty hand and loses gets 2
TUPP_PENALTY = 3  # every other seat when someone has a Tupp


def clockwise_after(players: int, seat: int, seats: Collection[int]) -> list[int]:
    """``seats`` in clockwise order starting at the seat left of ``seat`` (``seat`` last)."""
    return [(seat + k) % players for k in range(1, players + 1) if (seat + k) % players in seats]


def knock_cap(scores: Sequence[int], active: Iterable[int]) -> int:
    """The highest stake allowed: no seat still in the hand may be able to pass 10 by losing."""
    return PENALTY_LIMIT - max(scores[s] for s in active)


def settle(
    in_hand: Iterable[int], winner: int, stake: int, fold_cost: Mapping[int, int]
) -> dict[int, int]:
    """Penalty points per seat for a hand won by ``winner`` (by the last trick or because all
    others folded): folded seats pay their fold cost, other losers the stake."""
    out = {}
    for seat in in_hand:
        if seat == winner:
            out[seat] = 0
        else:
            out[seat] = fold_cost.get(seat, stake)
    return out


def tupp_settlement(in_hand: Iterable[int], winner: int) -> dict[int, int]:
    """A Tupp wins at once: every other seat dealt into the hand gets 3, folded or not."""
    return {seat: 0 if seat == winner else TUPP_PENALTY for seat in in_hand}
