"""Random positions of a Belote trick, for the tests that hold a bot's fast rules to the rules
module: a trump, the cards played so far, the seat to play and its hand."""

from __future__ import annotations

import random
from collections.abc import Iterator

from dealerless.protocol.cards import DECK, Card, Suit

Position = tuple[Suit, list[tuple[int, Card]], int, list[Card]]


def trick_positions(rng: random.Random, count: int) -> Iterator[Position]:
    for _ in range(count):
        deck = list(DECK)
        rng.shuffle(deck)
        trump = Suit(rng.randrange(4))
        leader = rng.randrange(4)
        plays = [((leader + i) % 4, deck[i]) for i in range(rng.randrange(4))]
        seat = (leader + len(plays)) % 4
        yield trump, plays, seat, deck[4 : 4 + rng.randrange(1, 9)]
