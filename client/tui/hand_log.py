"""The hands of a table as the log tells them: every move, every trick with who played which
card and who took it, the dirty-laundry points, the result. Pure data, no words (the words are
in :mod:`.results`); the hand history and the result panel's breakdown read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import Action, ActionKind, HandResult
from dealerless.protocol.rules.tuppen_exchange import is_true_laundry
from dealerless.protocol.table.events import (
    ActionApplied,
    CardsShown,
    HandEnded,
    HandStarted,
    TableEvent,
)

Plays = tuple[tuple[int, Card], ...]


@dataclass(frozen=True)
class Trick:
    number: int
    plays: Plays
    winner: int | None


@dataclass(frozen=True)
class LaundryCheck:
    """A dirty-laundry declaration that was checked: who pays the point and why."""

    declarer: int
    checker: int
    true: bool  # the laundry was genuine: the checker pays; else the declarer

    @property
    def payer(self) -> int:
        return self.checker if self.true else self.declarer


@dataclass(frozen=True)
class TuppShown:
    """A Tupp claim (four of a kind: the hand ends) or a Tupp attempt's three of a kind (the
    seat draws a new fourth card) shown in public. A false claim is a violation, not this."""

    seat: int
    attempt: bool


# What a claim came to once the deck opened the cards it needed
Shown = LaundryCheck | TuppShown


@dataclass
class HandLog:
    number: int
    dealer: int
    moves: list[Action] = field(default_factory=list)  # everything but card plays, in order
    # each move with the trick it came before (for the history: "bob knocks" between tricks)
    moves_at: list[int] = field(default_factory=list)
    tricks: list[Trick] = field(default_factory=list)
    folded: list[int] = field(default_factory=list)
    laundry: list[LaundryCheck] = field(default_factory=list)
    # each checked claim with the number of moves before it (for the history: after its move)
    shown: list[tuple[int, Shown]] = field(default_factory=list)
    knocks: int = 0
    result: HandResult | None = None
    aborted: bool = False
    current: list[tuple[int, Card]] = field(default_factory=list)  # the trick being played


def shown_outcomes(log: Sequence[TableEvent]) -> dict[int, Shown]:
    """What each checked claim came to, by the index in ``log`` of the :class:`CardsShown` that
    settled it: a dirty-laundry check (true or a bluff), a Tupp, a Tupp attempt. The log says
    only which cards were shown; the claim they answer is the move before them."""
    found: dict[int, Shown] = {}
    declarer: int | None = None
    claim: tuple[str, int, int] | None = None  # (what, seat that shows, checker)
    for index, event in enumerate(log):
        if isinstance(event, HandStarted):
            declarer, claim = None, None
        elif isinstance(event, ActionApplied):
            action = event.action
            if action.kind is ActionKind.LAUNDRY:
                declarer = action.seat
            elif action.kind is ActionKind.CHECK and declarer is not None:
                claim = ("check", declarer, action.seat)
            elif action.kind in (ActionKind.TUPP, ActionKind.TUPP_ATTEMPT):
                claim = (action.kind.value, action.seat, action.seat)
        elif isinstance(event, CardsShown) and claim is not None and event.seat == claim[1]:
            what, seat, checker = claim
            cards = [Card.from_index(c) for _, c in event.cards]
            if what == "check" and len(cards) == 4:
                found[index] = LaundryCheck(seat, checker, is_true_laundry(cards))
                declarer = None
            elif what != "check":
                found[index] = TuppShown(seat, attempt=what == ActionKind.TUPP_ATTEMPT.value)
            claim = None
    return found


def hands_of(log: Sequence[TableEvent]) -> list[HandLog]:
    """Split the log into hands (in order)."""
    hands: list[HandLog] = []
    outcomes = shown_outcomes(log)
    for index, event in enumerate(log):
        if isinstance(event, HandStarted):
            hands.append(HandLog(event.hand, event.dealer))
            continue
        if not hands:
            continue
        hand = hands[-1]
        if isinstance(event, ActionApplied):
            action = event.action
            if action.kind is ActionKind.PLAY and action.card is not None:
                hand.current.append((action.seat, action.card))
            else:
                hand.moves.append(action)
                hand.moves_at.append(len(hand.tricks))
            if action.kind is ActionKind.FOLD:
                hand.folded.append(action.seat)
            elif action.kind is ActionKind.KNOCK:
                hand.knocks += 1
            for rules_event in event.rules_events:
                if rules_event.kind in ("trick", "trick_won"):
                    number = len(hand.tricks) + 1
                    hand.tricks.append(Trick(number, tuple(hand.current), rules_event.seat))
                    hand.current = []
        elif index in outcomes:
            outcome = outcomes[index]
            hand.shown.append((len(hand.moves), outcome))
            if isinstance(outcome, LaundryCheck):
                hand.laundry.append(outcome)
        elif isinstance(event, HandEnded):
            hand.result = event.result
            hand.aborted = event.aborted
    return hands


def hand_log(log: Sequence[TableEvent], number: int) -> HandLog | None:
    """The hand with this number (the last one of that number after a roll-back)."""
    found = [h for h in hands_of(log) if h.number == number]
    return found[-1] if found else None
