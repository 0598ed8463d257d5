"""What the bidding says about the hands, as a weight on a sampled deal.

A seat took or passed on its first five cards and the turned-up card. For a sampled deal the
five are a random five of that seat's cards (every card it holds or played, the taker's without
the turned-up card: the first five of a deal are a uniform pick of the eight), valued with the
basic bot's :func:`hand_value`. A seat takes when that value reaches about :data:`TAKE_CENTRE`
(the basic bot takes from 42 to 50, the strong bot lower), so a take weighs the deal by how
likely the value made it take and a pass by how likely it made it pass, each never below
:data:`FLOOR` (a person bids as he likes).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from dealerless.client.bots.belote import TRUMP_VALUE
from dealerless.client.bots.belote_fast import (
    ACE,
    KING,
    QUEEN,
    SEATS,
    TEN,
    FastRules,
    Play,
    Position,
    belote_team,
)
from dealerless.client.bots.belote_playout import policy
from dealerless.protocol.cards import Rank

TAKE_CENTRE = 44.0
PARTNER_CENTRE = 44.0
TAKE_SCALE = 3.0
FLOOR = 0.04
FIRST_CARDS = 5
# belote.hand_value's trump values as a tuple by rank index (7 8 9 10 J Q K A)
_TRUMP_VALUE = tuple(TRUMP_VALUE[r] for r in Rank)


def hand_value(cards: Sequence[int], trump: int) -> int:
    """:func:`belote.hand_value` on card indices (a test checks they agree)."""
    value = 0
    trumps = 0
    honours = 0
    suits = set()
    for card in cards:
        if card >> 3 == trump:
            trumps += 1
            value += _TRUMP_VALUE[card & 7]
            if card & 7 in (KING, QUEEN):
                honours += 1
        else:
            suits.add(card)
    if trumps >= 3:
        value += 6 * (trumps - 2)
    for card in suits:
        if card & 7 == ACE:
            value += 11
        elif card & 7 == TEN and (card | 7) in suits:
            value += 6
    if honours == 2:
        value += 8
    return value


def take_chance(value: float, centre: float = TAKE_CENTRE) -> float:
    """How likely a seat with this hand value takes."""
    chance = 1.0 / (1.0 + math.exp(-(value - centre) / TAKE_SCALE))
    return min(1.0 - FLOOR, max(FLOOR, chance))


def bid_weight(
    holdings: Sequence[Sequence[int]],
    bids: Sequence[tuple[int, int | None]],
    turned: int,
    taker: int,
    me: int,
    rng: random.Random,
) -> float:
    """How likely the bids were with the deal where seat ``s`` holds or played
    ``holdings[s]`` (the taker's including the turned-up card): the product over the other
    seats' bids."""
    weight = 1.0
    first: dict[int, list[int]] = {}
    for index, (seat, suit) in enumerate(bids):
        if seat == me:
            continue
        if seat not in first:
            pool = [c for c in holdings[seat] if not (seat == taker and c == turned)]
            first[seat] = [*rng.sample(pool, FIRST_CARDS), turned]
        cards = first[seat]
        centre = PARTNER_CENTRE if seat == (me + 2) % SEATS else TAKE_CENTRE
        if suit is not None:
            weight *= take_chance(hand_value(cards, suit), centre)
            continue
        if index < SEATS:
            best = hand_value(cards, turned >> 3)
        else:
            best = max(hand_value(cards, s) for s in range(4) if s != turned >> 3)
        weight *= 1.0 - take_chance(best, centre)
    return weight


def play_weight(
    holdings: Sequence[Sequence[int]],
    history: Sequence[Play],
    first_leader: int,
    me: int,
    rules: FastRules,
    mismatch: float,
) -> float:
    """How well the deal explains the other seats' plays so far: every play of another seat
    with a choice that the playout policy, seeing that deal, would not have made multiplies the
    weight by ``mismatch``."""
    pos = Position(
        [list(h) for h in holdings],
        [],
        first_leader,
        [0, 0],
        [0] * SEATS,
        belote_team(holdings, rules),
    )
    weight = 1.0
    for seat, card in history:
        if seat != me and card != policy(pos, rules):
            weight *= mismatch
        pos.play(card, rules)
    return weight
