"""A round of automatic steps of the table machine (spec/protocol.md §2)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dealerless.protocol.messages import SignedMessage
from dealerless.protocol.rules.base import Deal, TurnUp
from dealerless.protocol.table.hand_deck import DEAL


@dataclass
class Round:
    """A round of automatic steps: who still has to write, and what each owes (shares).

    A sequential round is written in seat order, one element after the other (``seats`` shrinks
    as they come). A parallel round is written at once: every seat of ``seats`` signs its frame
    at the round's head, ``frames`` collects them in any order of arrival, and the complete
    round becomes one chain element with its frames in seat order."""

    seats: list[int]
    positions: dict[int, list[int]] = field(default_factory=dict)
    step: str = DEAL
    request: Deal | TurnUp | None = None
    parallel: bool = False
    frames: dict[int, SignedMessage] = field(default_factory=dict)

    def owing(self) -> list[int]:
        """The seats that still have to write in this round, in seat order."""
        if not self.parallel:
            return self.seats[:1]
        return [s for s in self.seats if s not in self.frames]
