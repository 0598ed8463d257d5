"""Playing a sampled Belote deal to its end with a fast policy (the strong bot's playouts).

In a sampled deal every hand is known, so the policy may look at all of them: the playouts
estimate what a card is worth when everyone plays sensibly, and a policy that sees the cards
plays closer to good play than one that guesses (the usual "perfect-information" playout).

* Leading: the taker's team draws trumps with the master trump while the defenders hold any;
  otherwise cash a master plain card the opponents cannot ruff (aces first), else lead a low
  card of a suit the partner is master in (or, defending, one the partner can ruff), else the
  cheapest card.
* Following: a partner winning the trick for sure gets points (the richest plain card); a trick
  that can be won for sure (no later opponent can beat the card) is won with the cheapest such
  card when it holds points or the winning card costs nothing; else the cheapest card.
"""

from __future__ import annotations

from collections.abc import Sequence

from dealerless.client.bots.belote_endgame import solve
from dealerless.client.bots.belote_fast import (
    SEATS,
    FastRules,
    Play,
    Position,
    legal,
    winning_index,
)


def _cheap(card: int, rules: FastRules) -> tuple[bool, int, int]:
    return (card >> 3 == rules.trump, rules.points[card], rules.power[card])


def _beats(card: int, best: int, rules: FastRules) -> bool:
    if card >> 3 == best >> 3:
        return rules.power[card] > rules.power[best]
    return card >> 3 == rules.trump


def _safe(pos: Position, plays: Sequence[Play], seat: int, rules: FastRules) -> bool:
    """Whether the trick's current winner keeps it once ``seat`` has played into ``plays`` (its
    card included when it is there, or one that does not beat the winner): no later seat of the
    other team holds a legal card that beats it."""
    win_seat, best = plays[winning_index(plays, rules)]
    later = SEATS - len(plays) - (0 if plays[-1][0] == seat else 1)
    other = (seat + 1) % SEATS
    for _ in range(later):
        if other % 2 != win_seat % 2:
            for card in legal(pos.hands[other], plays, other, rules):
                if _beats(card, best, rules):
                    return False
        other = (other + 1) % SEATS
    return True


def _master(card: int, pos: Position, rules: FastRules) -> bool:
    """No card still held by anyone beats ``card`` in its own suit."""
    power = rules.power
    suit = card >> 3
    return not any(c >> 3 == suit and power[c] > power[card] for h in pos.hands for c in h)


def _ruffable(suit: int, seat: int, pos: Position, rules: FastRules) -> bool:
    """Whether an opponent of ``seat`` is void in ``suit`` and holds a trump."""
    trump = rules.trump
    for other in ((seat + 1) % SEATS, (seat + 3) % SEATS):
        hand = pos.hands[other]
        if hand and all(c >> 3 != suit for c in hand) and any(c >> 3 == trump for c in hand):
            return True
    return False


def _lead(pos: Position, seat: int, options: list[int], rules: FastRules) -> int:
    trump = rules.trump
    trumps = [c for c in options if c >> 3 == trump]
    partner = (seat + 2) % SEATS
    opponents_trumps = any(
        c >> 3 == trump
        for other in ((seat + 1) % SEATS, (seat + 3) % SEATS)
        for c in pos.hands[other]
    )
    if seat % 2 == rules.taker % 2 and trumps and opponents_trumps:
        top = max(trumps, key=lambda c: rules.power[c])
        if _master(top, pos, rules):
            return top
    masters = [
        c
        for c in options
        if c >> 3 != trump and _master(c, pos, rules) and not _ruffable(c >> 3, seat, pos, rules)
    ]
    if masters:
        return max(masters, key=lambda c: (rules.points[c], rules.power[c]))
    plain = [c for c in options if c >> 3 != trump]
    helped = [
        c
        for c in plain
        if not _ruffable(c >> 3, seat, pos, rules)
        and any(p >> 3 == c >> 3 and _master(p, pos, rules) for p in pos.hands[partner])
    ]
    if not helped and seat % 2 != rules.taker % 2:
        partner_hand = pos.hands[partner]
        partner_trumps = any(p >> 3 == trump for p in partner_hand)
        helped = [
            c for c in plain if partner_trumps and all(p >> 3 != c >> 3 for p in partner_hand)
        ]
    if helped:
        return min(helped, key=lambda c: _cheap(c, rules))
    return min(plain or options, key=lambda c: _cheap(c, rules))


def policy(pos: Position, rules: FastRules) -> int:
    """The card the seat to play plays in a playout."""
    seat = pos.to_play
    plays = pos.plays
    options = legal(pos.hands[seat], plays, seat, rules)
    if len(options) == 1:
        return options[0]
    if not plays:
        return _lead(pos, seat, options, rules)
    trump = rules.trump
    points = rules.points
    power = rules.power
    win_seat, best = plays[winning_index(plays, rules)]
    if win_seat % 2 == seat % 2 and _safe(pos, plays, seat, rules):
        # the partner keeps the trick: give it points (a plain card; a trump only if forced)
        plain = [c for c in options if c >> 3 != trump]
        if plain:
            ranked = sorted(plain, key=lambda c: (-points[c], power[c]))
            for card in ranked:
                if not _beats(card, best, rules) or _safe(pos, [*plays, (seat, card)], seat, rules):
                    return card
        return min(options, key=lambda c: _cheap(c, rules))
    if win_seat % 2 != seat % 2:
        on_table = sum(points[c] for _, c in plays)
        sure = [
            c
            for c in options
            if _beats(c, best, rules) and _safe(pos, [*plays, (seat, c)], seat, rules)
        ]
        if sure:
            pick = min(sure, key=lambda c: _cheap(c, rules))
            if on_table + points[pick] > 0 or pick >> 3 != trump:
                return pick
    return min(options, key=lambda c: (points[c], c >> 3 == trump, power[c]))


def play_to_end(pos: Position, rules: FastRules, team: int, exact_tricks: int = 0) -> int:
    """Play ``pos`` (changed in place) to the end of the hand with the policy, the last
    ``exact_tricks`` tricks by exact search; ``team``'s result."""
    while pos.hands[pos.to_play]:
        if not pos.plays and pos.tricks_left() <= exact_tricks:
            return solve(pos, rules, team)
        pos.play(policy(pos, rules), rules)
    return pos.diff(rules, team)
