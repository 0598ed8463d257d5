"""Exact play of a Belote hand's last tricks when every card is known (one sampled deal).

Minimax with alpha-beta over the hand's real result (``belote_fast.hand_diff``: card points,
last trick, capot, belote, a failed contract), the seat's team maximising and the other team
minimising. Cards of one hand that are equivalent (same suit, no other card still in play
between them, the same points) are searched once. Cheap enough for the last three tricks.
"""

from __future__ import annotations

from dealerless.client.bots.belote_fast import (
    SEATS,
    FastRules,
    Position,
    hand_diff,
    legal,
    winning_index,
)


class _Search:
    def __init__(self, pos: Position, rules: FastRules, team: int) -> None:
        self.pos = pos
        self.rules = rules
        self.team = team
        self.nodes = 0

    def value(self, alpha: int, beta: int) -> int:
        pos = self.pos
        rules = self.rules
        self.nodes += 1
        seat = pos.to_play
        hand = pos.hands[seat]
        if len(hand) <= 1:
            # the last trick: every card left is forced, no branching to search
            return self._forced()
        moves = _distinct(legal(hand, pos.plays, seat, rules), pos, rules)
        maximise = seat % 2 == self.team
        best = -100_000 if maximise else 100_000
        for card in moves:
            undo = _play(pos, card, rules)
            score = self.value(alpha, beta)
            _unplay(pos, card, undo)
            if maximise:
                if score > best:
                    best = score
                    alpha = max(alpha, score)
            elif score < best:
                best = score
                beta = min(beta, score)
            if alpha >= beta:
                break
        return best

    def _forced(self) -> int:
        pos = self.pos
        rules = self.rules
        plays = list(pos.plays)
        seat = pos.to_play
        while len(plays) < SEATS:
            plays.append((seat, pos.hands[seat][0]))
            seat = (seat + 1) % SEATS
        winner = plays[winning_index(plays, rules)][0]
        team_points = list(pos.team_points)
        team_points[winner % 2] += sum(rules.points[c] for _, c in plays)
        seat_tricks = list(pos.seat_tricks)
        seat_tricks[winner] += 1
        return hand_diff(team_points, seat_tricks, winner, pos.belote, rules, self.team)


Undo = tuple[list[tuple[int, int]], int, int, int]  # closed trick, winner, points, last winner


def _play(pos: Position, card: int, rules: FastRules) -> Undo | None:
    seat = pos.to_play
    pos.hands[seat].remove(card)
    pos.plays.append((seat, card))
    if len(pos.plays) < SEATS:
        pos.to_play = (seat + 1) % SEATS
        return None
    plays = pos.plays
    winner = plays[winning_index(plays, rules)][0]
    points = rules.points
    gained = points[plays[0][1]] + points[plays[1][1]] + points[plays[2][1]] + points[plays[3][1]]
    undo = (plays, winner, gained, pos.last_winner)
    pos.team_points[winner % 2] += gained
    pos.seat_tricks[winner] += 1
    pos.last_winner = winner
    pos.plays = []
    pos.to_play = winner
    return undo


def _unplay(pos: Position, card: int, undo: Undo | None) -> None:
    if undo is not None:
        plays, winner, gained, last = undo
        pos.team_points[winner % 2] -= gained
        pos.seat_tricks[winner] -= 1
        pos.last_winner = last
        pos.plays = plays
    seat, played = pos.plays.pop()
    assert played == card
    pos.hands[seat].append(card)
    pos.to_play = seat


def _distinct(moves: list[int], pos: Position, rules: FastRules) -> list[int]:
    """One card of each run of equivalent cards, higher cards first (better pruning)."""
    if len(moves) == 1:
        return moves
    power = rules.power
    points = rules.points
    in_play = {c for h in pos.hands for c in h} | {c for _, c in pos.plays}
    ordered = sorted(moves, key=lambda c: (c >> 3, -power[c]))
    out: list[int] = []
    for card in ordered:
        if out:
            prev = out[-1]
            if (
                prev >> 3 == card >> 3
                and points[prev] == points[card]
                and not any(
                    c >> 3 == card >> 3 and power[card] < power[c] < power[prev] for c in in_play
                )
            ):
                continue
        out.append(card)
    return out


def solve(pos: Position, rules: FastRules, team: int) -> int:
    """``team``'s exact result of ``pos`` (left as it was) under best play by both teams."""
    return _Search(pos, rules, team).value(-100_000, 100_000)


def card_values(pos: Position, rules: FastRules, team: int, cards: list[int]) -> list[int]:
    """The exact result for ``team`` of playing each of ``cards`` now (the seat to play is of
    ``team``)."""
    search = _Search(pos, rules, team)
    out = []
    for card in cards:
        undo = _play(pos, card, rules)
        out.append(search.value(-100_000, 100_000))
        _unplay(pos, card, undo)
    return out
