"""Belote tricks and scoring on card indices, for the strong bot's playouts and searches.

A card is its index 0..31 (``suit * 8 + rank`` as in :mod:`protocol.cards`): ``card >> 3`` is
its suit, ``card & 7`` its rank. The rules are those of :mod:`belote_tricks` (obligations, card
order, card points) and :mod:`belote_scoring` (``score_hand``), written out on plain ints because
the strong bot plays thousands of hand endings per decision; tests check both against the rules
modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dealerless.protocol.cards import Rank
from dealerless.protocol.rules import belote_scoring as rules_scoring
from dealerless.protocol.rules import belote_tricks as rules_tricks

SEATS = 4
TRICKS = rules_tricks.TRICKS_PER_HAND
LAST_TRICK_BONUS = rules_tricks.LAST_TRICK_BONUS
BELOTE_BONUS = rules_scoring.BELOTE_BONUS
TEAM_CAPOT = rules_scoring.TEAM_CAPOT
SOLO_CAPOT = rules_scoring.SOLO_CAPOT
# The rules' tables as tuples by rank index (7 8 9 10 J Q K A): plain ints on the hot path.
PLAIN_STRENGTH = tuple(rules_tricks.PLAIN_ORDER.index(r) for r in Rank)
TRUMP_STRENGTH = tuple(rules_tricks.TRUMP_ORDER.index(r) for r in Rank)
PLAIN_POINTS = tuple(rules_tricks.PLAIN_POINTS.get(r, 0) for r in Rank)
TRUMP_POINTS = tuple(rules_tricks.TRUMP_POINTS.get(r, 0) for r in Rank)
JACK, NINE, TEN, QUEEN, KING, ACE = (
    int(r) for r in (Rank.JACK, Rank.NINE, Rank.TEN, Rank.QUEEN, Rank.KING, Rank.ACE)
)

Play = tuple[int, int]  # (seat, card)


@dataclass(frozen=True)
class FastRules:
    """One hand's trump, taker and table options, with per-card tables for that trump."""

    trump: int
    taker: int
    overtrump_partner: bool
    capot_adds: bool
    counts_belote: bool
    points: tuple[int, ...]  # card -> card points
    power: tuple[int, ...]  # card -> strength within its suit, trumps 8..15


def make_rules(
    trump: int,
    taker: int,
    *,
    overtrump_partner: bool = False,
    capot: str = "replace",
    counts_belote: bool = True,
) -> FastRules:
    points = tuple((TRUMP_POINTS if c >> 3 == trump else PLAIN_POINTS)[c & 7] for c in range(32))
    power = tuple(
        8 + TRUMP_STRENGTH[c & 7] if c >> 3 == trump else PLAIN_STRENGTH[c & 7] for c in range(32)
    )
    return FastRules(trump, taker, overtrump_partner, capot == "add", counts_belote, points, power)


def winning_index(plays: Sequence[Play], rules: FastRules) -> int:
    """Index in ``plays`` of the play that currently wins the (non-empty) trick."""
    power = rules.power
    trump = rules.trump
    best = 0
    best_card = plays[0][1]
    for i in range(1, len(plays)):
        card = plays[i][1]
        if (card >> 3 == best_card >> 3 and power[card] > power[best_card]) or (
            card >> 3 == trump and best_card >> 3 != trump
        ):
            best = i
            best_card = card
    return best


def legal(hand: Sequence[int], plays: Sequence[Play], seat: int, rules: FastRules) -> list[int]:
    """The cards ``seat`` may play from ``hand`` into ``plays`` (belote_tricks' obligations)."""
    if not plays:
        return list(hand)
    trump = rules.trump
    power = rules.power
    led = plays[0][1] >> 3
    win = winning_index(plays, rules)
    win_seat, win_card = plays[win]
    partner = win_seat == (seat + 2) % SEATS
    if led == trump:
        trumps = [c for c in hand if c >> 3 == trump]
        if not trumps:
            return list(hand)
        if partner and not rules.overtrump_partner:
            return trumps
        higher = [c for c in trumps if power[c] > power[win_card]]
        return higher or trumps
    following = [c for c in hand if c >> 3 == led]
    if following:
        return following
    trumps = [c for c in hand if c >> 3 == trump]
    if partner or not trumps:
        return list(hand)
    if win_card >> 3 == trump:
        higher = [c for c in trumps if power[c] > power[win_card]]
        return higher or trumps
    return trumps


def belote_team(hands: Sequence[Sequence[int]], rules: FastRules) -> int | None:
    """The team of the seat whose whole hand (played cards included) holds king and queen of
    trumps: it scores the belote once both are played, which every complete hand does."""
    king = rules.trump * 8 + KING
    queen = rules.trump * 8 + QUEEN
    for seat, cards in enumerate(hands):
        if king in cards and queen in cards:
            return seat % 2
    return None


def hand_diff(
    team_points: Sequence[int],
    seat_tricks: Sequence[int],
    last_winner: int,
    belote: int | None,
    rules: FastRules,
    team: int,
) -> int:
    """``team``'s hand points minus the other team's for a finished hand (``score_hand``):
    ``team_points`` are the card points each team took, ``seat_tricks`` the tricks each seat
    took, ``last_winner`` the seat that took the last trick."""
    raw = [team_points[0], team_points[1]]
    raw[last_winner % 2] += LAST_TRICK_BONUS
    for side in (0, 1):
        if seat_tricks[side] + seat_tricks[side + 2] == TRICKS:
            bonus = SOLO_CAPOT if TRICKS in seat_tricks else TEAM_CAPOT
            raw[side] = raw[side] + bonus if rules.capot_adds else bonus
    bonus_of = [0, 0]
    if belote is not None:
        bonus_of[belote] = BELOTE_BONUS
    takers = rules.taker % 2
    defenders = 1 - takers
    if rules.counts_belote:
        made = raw[takers] + bonus_of[takers] > raw[defenders] + bonus_of[defenders]
    else:
        made = raw[takers] > raw[defenders]
    points = [raw[0] + bonus_of[0], raw[1] + bonus_of[1]]
    if not made:
        points[defenders] = raw[0] + raw[1] + bonus_of[defenders]
        points[takers] = bonus_of[takers]
    return points[team] - points[1 - team]


@dataclass
class Position:
    """A hand in progress with every hand known (one sampled deal): who holds what, the trick
    on the table, and what the finished tricks gave."""

    hands: list[list[int]]
    plays: list[Play]
    to_play: int
    team_points: list[int]
    seat_tricks: list[int]
    belote: int | None
    last_winner: int = -1

    def copy(self) -> Position:
        return Position(
            [list(h) for h in self.hands],
            list(self.plays),
            self.to_play,
            list(self.team_points),
            list(self.seat_tricks),
            self.belote,
            self.last_winner,
        )

    def tricks_left(self) -> int:
        return TRICKS - sum(self.seat_tricks)

    def play(self, card: int, rules: FastRules) -> None:
        """Play ``card`` for the seat to play; closes the trick after the fourth card."""
        seat = self.to_play
        self.hands[seat].remove(card)
        self.plays.append((seat, card))
        if len(self.plays) < SEATS:
            self.to_play = (seat + 1) % SEATS
            return
        winner = self.plays[winning_index(self.plays, rules)][0]
        points = rules.points
        self.team_points[winner % 2] += sum(points[c] for _, c in self.plays)
        self.seat_tricks[winner] += 1
        self.last_winner = winner
        self.plays = []
        self.to_play = winner

    def diff(self, rules: FastRules, team: int) -> int:
        """The finished hand's result for ``team`` (see :func:`hand_diff`)."""
        return hand_diff(
            self.team_points, self.seat_tricks, self.last_winner, self.belote, rules, team
        )
