"""Chips and betting of one Limit / No Limit / Pot Limit Tuppen hand.

``bets[seat]`` is what a seat has bet this hand beyond its ante; ``current_bet`` is the level
every active seat must match. A knock or raise lifts ``current_bet`` by an *increase*:

* Limit: the increase is always 1 (knock = bet 1, raise = call + 1);
* No Limit: 1 .. the seat's stack after the call (seed 000: "Maximum ist dein kompletter
  Chip-Vorrat");
* Pot Limit: 1 .. the pot (for a raise: the pot after the call).

On top of the variant's limit every increase is capped so that every active seat can still
cover it: the cap is the smallest stack that remains to an active seat after it has matched the
current bet. So nobody ever faces a call it cannot pay, there are no side pots, and the chips
stay zero-sum. With a cap of 0 no knock or raise is possible.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

VARIANTS = ("limit", "no-limit", "pot-limit")


@dataclass
class Betting:
    players: int
    variant: str
    stacks: list[int]  # the game's stacks, shared with the engine (changed in place)
    contributions: list[int] = field(default_factory=list)  # put into the pot this hand
    bets: list[int] = field(default_factory=list)  # bet this hand beyond the ante
    current_bet: int = 0
    pot: int = 0
    answering: list[int] = field(default_factory=list)  # seats that still must answer
    last_knocker: int | None = None  # who knocked or raised last (never twice in a row)

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown betting variant {self.variant!r}")
        if not self.contributions:
            self.contributions = [0] * self.players
        if not self.bets:
            self.bets = [0] * self.players

    def copy(self, stacks: list[int]) -> Betting:
        return Betting(
            self.players,
            self.variant,
            stacks,
            list(self.contributions),
            list(self.bets),
            self.current_bet,
            self.pot,
            list(self.answering),
            self.last_knocker,
        )

    # -- paying --------------------------------------------------------------------------------
    def pay(self, seat: int, amount: int) -> None:
        """Move chips from a stack into the pot (callers check the stack covers it)."""
        assert 0 <= amount <= self.stacks[seat]
        self.stacks[seat] -= amount
        self.contributions[seat] += amount
        self.pot += amount

    def pay_ante(self, seat: int, ante: int) -> int:
        """Pay the ante, or the whole stack when it is smaller (tournament); returns it."""
        paid = min(ante, self.stacks[seat])
        self.pay(seat, paid)
        return paid

    def call_amount(self, seat: int) -> int:
        return self.current_bet - self.bets[seat]

    # -- limits --------------------------------------------------------------------------------
    def cap(self, active: Collection[int]) -> int:
        """The largest increase every active seat can still cover."""
        return max(0, min(self.stacks[s] - self.call_amount(s) for s in active))

    def max_increase(self, seat: int, active: Collection[int]) -> int:
        """The largest increase ``seat`` may knock or raise now (0: none possible)."""
        cap = self.cap(active)
        if self.variant == "limit":
            return min(1, cap)
        if self.variant == "no-limit":
            return min(cap, self.stacks[seat] - self.call_amount(seat))
        return min(cap, self.pot + self.call_amount(seat))

    def increases(self, seat: int, active: Collection[int]) -> range:
        return range(1, self.max_increase(seat, active) + 1)

    # -- moves (checked by the engine first) ----------------------------------------------------
    def raise_to(self, seat: int, increase: int, order: list[int]) -> int:
        """Knock or raise: match the current bet, lift it by ``increase``; ``order`` are the
        other active seats from the seat's left, who now must answer. Returns chips paid."""
        paid = self.call_amount(seat) + increase
        self.current_bet += increase
        self.bets[seat] = self.current_bet
        self.pay(seat, paid)
        self.answering = list(order)
        self.last_knocker = seat
        return paid

    def call(self, seat: int) -> int:
        paid = self.call_amount(seat)
        self.bets[seat] = self.current_bet
        self.pay(seat, paid)
        self.answering.remove(seat)
        return paid

    def fold(self, seat: int) -> None:
        if seat in self.answering:
            self.answering.remove(seat)

    def public_state(self) -> dict[str, Any]:
        return {
            "pot": self.pot,
            "current_bet": self.current_bet,
            "bets": list(self.bets),
            "contributions": list(self.contributions),
            "answering": list(self.answering),
            "last_knocker": self.last_knocker,
        }
