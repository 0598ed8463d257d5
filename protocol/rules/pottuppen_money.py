"""Pottuppen's money: seat balances, the pot, antes and top-ups, settlement and the final split.

A seat's balance is the money it received minus the money it paid (it starts at 0); the pot is
separate. Money only moves between a seat and the pot, so ``sum(balances) + pot == 0`` always.
Pure arithmetic, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum


class Mode(StrEnum):
    """How a hand is played once the betting round is over."""

    CONTEST = "contest"  # two or more bettors play it among themselves; passers sit out
    SINGLE = "single"  # one bettor plays against the passers, who defend with nothing at stake
    PASS_ROUND = "pass_round"  # everybody passed: everybody plays, the last trick pays in


def effective_minimum(players: int, ante: int, pot_minimum: int) -> int:
    """The pot minimum in money: the option, or players x ante when the option is 0."""
    return pot_minimum if pot_minimum > 0 else players * ante


def top_up_rounds(pot: int, players: int, ante: int, minimum: int) -> int:
    """How many antes every seat pays at the start of a hand: the fewest rounds of one ante
    per seat that bring the pot to at least ``minimum`` (0 when it already is)."""
    if pot >= minimum:
        return 0
    per_round = players * ante
    return -(-(minimum - pot) // per_round)


def split_pot(pot: int, players: int, first: int) -> list[int]:
    """Every seat's share of the pot: an even split, the remainder one unit each to the seats
    in order starting at ``first``."""
    base, rest = divmod(pot, players)
    shares = [base] * players
    for i in range(rest):
        shares[(first + i) % players] += 1
    return shares


LISTED_BETS = 100  # legal_actions lists every bet up to this, a 1-2-5 ladder above it


def bet_amounts(pot: int) -> list[int]:
    """The bet amounts :meth:`PottuppenEngine.legal_actions` lists: every amount 1..100, then
    1-2-5 steps (200, 500, 1000, ...), then the whole pot. Any whole amount 1..pot is legal;
    the list stays short when the pot has grown large."""
    amounts = list(range(1, min(pot, LISTED_BETS) + 1))
    if pot <= LISTED_BETS:
        return amounts
    decade = LISTED_BETS
    while decade < pot:
        amounts.extend(v for v in (2 * decade, 5 * decade, 10 * decade) if v < pot)
        decade *= 10
    amounts.append(pot)
    return amounts


@dataclass
class Purse:
    """Balances and pot; every transfer is between one seat and the pot."""

    players: int
    balances: list[int] = field(default_factory=list)
    pot: int = 0

    def __post_init__(self) -> None:
        if not self.balances:
            self.balances = [0] * self.players

    def pay_in(self, seat: int, amount: int) -> None:
        assert amount >= 0
        self.balances[seat] -= amount
        self.pot += amount

    def pay_out(self, seat: int, amount: int) -> None:
        assert 0 <= amount <= self.pot, f"pot {self.pot} cannot pay {amount}"
        self.balances[seat] += amount
        self.pot -= amount

    def settle(
        self, mode: Mode, bets: Mapping[int, int], last_trick: int, pass_payment: int
    ) -> None:
        """Settle a played hand. ``bets`` maps every bettor to its bet; ``last_trick`` is the
        seat that took the last trick. Pay-ins come before the payout."""
        if mode is Mode.PASS_ROUND:
            self.pay_in(last_trick, pass_payment)
            return
        for seat, amount in sorted(bets.items()):
            if seat != last_trick:
                self.pay_in(seat, amount)
        if last_trick in bets:
            self.pay_out(last_trick, bets[last_trick])

    def split(self, first: int) -> list[int]:
        """Share out the whole pot (game end); returns the shares."""
        shares = split_pot(self.pot, self.players, first)
        for seat, share in enumerate(shares):
            self.pay_out(seat, share)
        return shares

    def deltas_since(self, before: Sequence[int]) -> tuple[int, ...]:
        return tuple(now - then for now, then in zip(self.balances, before, strict=True))
