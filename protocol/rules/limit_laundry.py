"""Optional dirty laundry of the Limit Tuppen family, paid in chips (seed 000 "Optionale
Zusatzregel", seed 001 "vuile was", as in classic Tuppen, seed 003).

Flow, made explicit as in the classic engine: after the deal, before the first lead, an
exchange round runs once around the active seats from the dealer's left. Each seat in turn does
LAUNDRY (set its four cards aside face down and draw four from the stock) or PASS. After a
LAUNDRY the other active seats answer in order from the declarer's left: CHECK (turn the
discarded cards over: a Reveal chance step) or ACCEPT. The first CHECK ends the answers.

* true laundry (4 face cards J Q K A, or 3 face cards and a 7): the checker pays 1 chip into the
  pot; the declarer keeps its new cards;
* bluff: the bluffer pays 1 chip into the pot and plays on with its original cards (now known
  to everyone); the four drawn cards are put away unseen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dealerless.protocol.cards import Card, Rank
from dealerless.protocol.rules.base import HandSlot

FACE_RANKS = frozenset({Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE})
LAUNDRY_PENALTY = 1


def is_dirty_laundry(cards: Sequence[Card]) -> bool:
    """4 face cards, or 3 face cards plus a 7."""
    if len(cards) != 4:
        return False
    faces = sum(1 for c in cards if c.rank in FACE_RANKS)
    sevens = sum(1 for c in cards if c.rank == Rank.SEVEN)
    return faces == 4 or (faces == 3 and sevens == 1)


@dataclass
class Laundry:
    order: list[int]  # seats of the exchange round, from the dealer's left
    index: int = 0
    declarer: int | None = None
    set_aside: list[HandSlot] = field(default_factory=list)
    checkers: list[int] = field(default_factory=list)  # who still may check
    checker: int | None = None
    outcomes: list[dict[str, Any]] = field(default_factory=list)  # public records

    def copy(self) -> Laundry:
        return Laundry(
            list(self.order),
            self.index,
            self.declarer,
            list(self.set_aside),
            list(self.checkers),
            self.checker,
            [dict(o) for o in self.outcomes],
        )

    @property
    def deciding(self) -> int | None:
        """The seat whose LAUNDRY/PASS decision the exchange round waits for."""
        if self.declarer is not None or self.index >= len(self.order):
            return None
        return self.order[self.index]

    @property
    def done(self) -> bool:
        return self.declarer is None and self.index >= len(self.order)

    def finish_declaration(self, outcome: dict[str, Any]) -> None:
        self.outcomes.append({**outcome, "set_aside": [s.position for s in self.set_aside]})
        self.declarer = None
        self.set_aside = []
        self.checkers = []
        self.checker = None
        self.index += 1

    def public_state(self) -> dict[str, Any]:
        return {
            "order": list(self.order),
            "index": self.index,
            "declarer": self.declarer,
            "set_aside": [s.position for s in self.set_aside],
            "checkers": list(self.checkers),
            "checker": self.checker,
            "outcomes": [dict(o) for o in self.outcomes],
        }
