"""State of one classic Tuppen hand, and the records a game keeps so it can be replayed."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ChanceRequest, Deal, HandSlot, Reveal
from dealerless.protocol.rules.hands import Hands
from dealerless.protocol.rules.tuppen_exchange import Laundry
from dealerless.protocol.rules.tuppen_play import TrickPlay


class Phase(StrEnum):
    DEAL = "deal"  # waiting for the four cards each
    POVERTY = "poverty"  # the others answer a poor seat: CALL (play along) or FOLD
    EXCHANGE = "exchange"  # each seat once: LAUNDRY, TUPP_ATTEMPT or PASS
    CHECK = "check"  # the others answer a dirty-laundry declaration: CHECK or ACCEPT
    PLAY = "play"  # four tricks; knocks and their answer rounds
    OVER = "over"


class Purpose(StrEnum):
    DEAL = "deal"
    DRAW = "draw"  # replacement cards after dirty laundry or a Tupp attempt
    REVEAL_ATTEMPT = "tupp attempt"
    REVEAL_CHECK = "dirty laundry check"
    REVEAL_TUPP = "tupp claim"


@dataclass
class Pending:
    """A chance step the hand waits for, and why."""

    purpose: Purpose
    request: ChanceRequest
    seat: int  # who receives / whose cards are revealed
    claim: tuple[Card, ...] = ()  # Tupp attempt: the three of a kind claimed
    slots: tuple[HandSlot, ...] = ()  # the slots being revealed
    checker: int | None = None  # dirty-laundry check: who checks
    discard: int | None = None  # Tupp attempt: position of the fourth card

    def public_state(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "purpose": self.purpose.value,
            "seat": self.seat,
            "positions": list(self.request.positions),
        }
        if isinstance(self.request, Deal):
            out["assignments"] = [list(a) for a in self.request.assignments]
        if isinstance(self.request, Reveal):
            out["reason"] = self.request.reason
        if self.claim:
            out["claim"] = [c.index for c in self.claim]
        if self.checker is not None:
            out["checker"] = self.checker
        if self.discard is not None:
            out["discard"] = self.discard
        return out


@dataclass
class HandState:
    number: int
    start_scores: tuple[int, ...]
    in_hand: tuple[int, ...]  # seats dealt in, from the dealer's left (dealer last)
    hands: Hands
    active: set[int]  # dealt in and not folded (shared with ``trick``)
    trick: TrickPlay
    phase: Phase = Phase.DEAL
    stake: int = 1
    last_knocker: int | None = None
    fold_cost: dict[int, int] = field(default_factory=dict)
    answer_queue: list[int] = field(default_factory=list)  # seats still to answer
    answer_kind: str = ""  # "knock" or "poverty" while answers are pending
    poor: tuple[int, ...] = ()
    exchange_queue: list[int] = field(default_factory=list)
    laundry: Laundry | None = None
    attempted: set[int] = field(default_factory=set)  # seats that made their Tupp attempt
    played: set[int] = field(default_factory=set)  # seats that have played a card
    revealed: dict[int, Card] = field(default_factory=dict)  # public cards by deck position
    discards: list[int] = field(default_factory=list)  # positions out of play (not played)
    pending: Pending | None = None


# --- history ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandStart:
    hand_number: int


@dataclass(frozen=True, slots=True)
class ChanceRecord:
    positions: tuple[int, ...]
    cards: tuple[Card | None, ...]  # as this viewer saw them


@dataclass(frozen=True, slots=True)
class AbortRecord:
    culprit: int | None
    reason: str


HistoryEntry = Action | HandStart | ChanceRecord | AbortRecord
