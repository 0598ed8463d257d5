"""Per-kind figures of a series of games between bot kinds (``dealerless simulate --lineup``).

For every kind: the seat-games it played and won, its win rate, the mean final standing of its
seats and the standard error of that mean. Where a kind holds several seats of one game (three
basic seats, a Belote team) its standing in that game is the mean over those seats, so each game
counts once and the standard error is over games (seats of one game are not independent).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


def rotated(lineup: Sequence[str], game_index: int, rotate: bool) -> list[str]:
    """The lineup of game ``game_index``: with ``rotate`` shifted one seat further each game,
    so every kind sits in every seat (and a Belote team plays both sides) equally often."""
    if not rotate:
        return list(lineup)
    shift = game_index % len(lineup)
    return [lineup[(seat - shift) % len(lineup)] for seat in range(len(lineup))]


@dataclass
class KindFigures:
    seat_games: int = 0
    wins: int = 0
    standings: list[float] = field(default_factory=list)  # one per game: mean over its seats

    def add(self, standings: Sequence[int], seats: Sequence[int], winners: Sequence[int]) -> None:
        self.seat_games += len(seats)
        self.wins += sum(1 for s in seats if s in winners)
        self.standings.append(sum(standings[s] for s in seats) / len(seats))

    def to_json(self) -> dict[str, Any]:
        n = len(self.standings)
        mean = sum(self.standings) / n if n else 0.0
        var = sum((x - mean) ** 2 for x in self.standings) / (n - 1) if n > 1 else 0.0
        return {
            "games": n,
            "seat_games": self.seat_games,
            "wins": self.wins,
            "win_rate": round(self.wins / self.seat_games, 4) if self.seat_games else 0.0,
            "mean_standing": round(mean, 3),
            "standard_error": round(math.sqrt(var / n), 3) if n else 0.0,
        }


def summarise(games: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Figures per kind from game documents with ``lineup``, ``standing`` and ``winners``."""
    figures: dict[str, KindFigures] = {}
    for game in games:
        lineup: list[str] = game["lineup"]
        for kind in dict.fromkeys(lineup):
            seats = [s for s, k in enumerate(lineup) if k == kind]
            figures.setdefault(kind, KindFigures()).add(game["standing"], seats, game["winners"])
    return {kind: f.to_json() for kind, f in figures.items()}
