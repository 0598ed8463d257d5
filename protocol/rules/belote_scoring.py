"""Scoring one Belote hand (seed 002), with the decisions documented in spec/rules/belote.md.

* Each team counts the card points of the tricks it won (152 in all) plus 10 for the last trick.
* Belote: the seat that held (and so played) both king and queen of trumps scores 20 for its
  team, in every case, also when its team's contract fails.
* Capot: a team that took all eight tricks scores 252 (350 when one player took them all). With
  ``capot="replace"`` (default) that is the team's card score instead of the 162; with
  ``capot="add"`` it comes on top of the 162.
* Failed contract: when the taker's team does not score more than the defenders (a tie fails),
  the defenders get every card point of the hand (both teams' card scores, capot included);
  each team keeps its own belote. Whether belote counts in that comparison is the option
  ``contract_counts_belote`` (default true).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dealerless.protocol.cards import Card, Rank, Suit
from dealerless.protocol.rules.belote_tricks import LAST_TRICK_BONUS, TRICKS_PER_HAND, card_points

TEAM_CAPOT = 252
SOLO_CAPOT = 350
BELOTE_BONUS = 20
ALL_CARD_POINTS = 162  # 152 card points + 10 for the last trick


def team_of(seat: int) -> int:
    return seat % 2


def team_seats(team: int) -> tuple[int, int]:
    return (team, team + 2)


def belote_holder(plays: Sequence[tuple[int, Card]], trump: Suit) -> int | None:
    """The seat that played both king and queen of trumps, if one did."""
    owners = {c.rank: s for s, c in plays if c.suit == trump and c.rank in (Rank.KING, Rank.QUEEN)}
    if len(owners) == 2 and owners[Rank.KING] == owners[Rank.QUEEN]:
        return owners[Rank.KING]
    return None


@dataclass(frozen=True)
class HandScore:
    points: tuple[int, int]  # what each team scores for the hand
    card_points: tuple[int, int]  # trick points incl. last trick, capot applied
    belote_seat: int | None
    capot_team: int | None
    solo_capot_seat: int | None
    contract_made: bool
    reason: str

    def details(self) -> dict[str, Any]:
        return {
            "points": list(self.points),
            "card_points": list(self.card_points),
            "belote_seat": self.belote_seat,
            "capot_team": self.capot_team,
            "solo_capot_seat": self.solo_capot_seat,
            "contract_made": self.contract_made,
        }


def score_hand(
    tricks: Sequence[tuple[Sequence[tuple[int, Card]], int]],
    trump: Suit,
    taker: int,
    *,
    capot: str = "replace",
    contract_counts_belote: bool = True,
) -> HandScore:
    """Score a complete hand from its eight tricks ((seat, card) plays, winner)."""
    if len(tricks) != TRICKS_PER_HAND:
        raise ValueError(f"a hand has {TRICKS_PER_HAND} tricks, got {len(tricks)}")
    raw = [0, 0]
    for plays, winner in tricks:
        raw[team_of(winner)] += sum(card_points(c, trump) for _, c in plays)
    raw[team_of(tricks[-1][1])] += LAST_TRICK_BONUS
    winners = {w for _, w in tricks}
    capot_team: int | None = None
    solo: int | None = None
    if len({team_of(w) for w in winners}) == 1:
        capot_team = team_of(tricks[0][1])
        bonus = TEAM_CAPOT
        if len(winners) == 1:
            solo = tricks[0][1]
            bonus = SOLO_CAPOT
        raw[capot_team] = bonus if capot == "replace" else raw[capot_team] + bonus
    belote = [0, 0]
    all_plays = [p for plays, _ in tricks for p in plays]
    holder = belote_holder(all_plays, trump)
    if holder is not None:
        belote[team_of(holder)] = BELOTE_BONUS
    takers = team_of(taker)
    defenders = 1 - takers
    counted = [raw[t] + (belote[t] if contract_counts_belote else 0) for t in (0, 1)]
    made = counted[takers] > counted[defenders]
    points = [raw[0] + belote[0], raw[1] + belote[1]]
    if made:
        reason = "contract made"
    else:
        points[defenders] = raw[0] + raw[1] + belote[defenders]
        points[takers] = belote[takers]
        reason = "contract failed"
    if solo is not None:
        reason += f", seat {solo} took every trick"
    elif capot_team is not None:
        reason += f", capot by team {capot_team}"
    return HandScore(
        (points[0], points[1]), (raw[0], raw[1]), holder, capot_team, solo, made, reason
    )
