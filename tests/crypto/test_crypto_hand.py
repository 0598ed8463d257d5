"""Full hands for 2..8 players; every step verified by every other player."""

from __future__ import annotations

import pytest
from crypto_table import SimTable

from dealerless.protocol.cards import Card


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8])
def test_full_hand(n: int) -> None:
    t = SimTable(n, table_id=f"table-{n}".encode(), hand=7)
    t.setup_keys()
    t.shuffle_all()
    hand_size = 4 if n < 8 else 3
    # private deal: position p goes to seat p % n; odd tables use one share message per seat
    # (batched proof), even tables one message per share
    if n % 2:
        t.deal_batch({p: p % n for p in range(hand_size * n)})
    else:
        for p in range(hand_size * n):
            t.deal(p, p % n)
    dealt = [t.known[p] for p in range(hand_size * n)]
    assert len(set(dealt)) == len(dealt)
    for c in dealt:
        Card.from_index(c)  # a real card

    # draw one card from the stock for seat 0
    stock_pos = hand_size * n
    drawn = t.deal(stock_pos, 0, step="draw")
    assert drawn not in dealt

    # legality: each player proves, for every hidden card, that it is not in a forbidden set
    # made of cards they do not hold (e.g. "no card of the led suit" claims)
    for seat in range(n):
        mine = {t.known[p] for p in t.owner if t.owner[p] == seat}
        forbidden = sorted(c for c in range(32) if c not in mine and c % 3 == seat % 3)
        for p in [p for p in t.owner if t.owner[p] == seat]:
            t.nonmember(p, forbidden, step=f"trick1/seat{seat}")
        # a card that IS forbidden cannot be proved
        p0 = next(p for p in t.owner if t.owner[p] == seat)
        with pytest.raises(ValueError, match="forbidden"):
            t.nonmember(p0, [t.known[p0]], step="cheat")

    # open cards one by one (play): everyone learns exactly the owner's card
    for p in sorted(t.owner):
        assert t.open(p) == t.known[p]

    # reveal the rest of the stock publicly: the whole deck is the 32 distinct cards
    opened = {p: t.known[p] for p in t.owner}
    for p in range(32):
        if p not in opened:
            opened[p] = t.open_public(p)
    assert sorted(opened.values()) == list(range(32))


def test_two_hands_are_shuffled_differently() -> None:
    decks = []
    for hand in (1, 2):
        t = SimTable(2, hand=hand)
        t.setup_keys()
        t.shuffle_all()
        decks.append([t.open_public(p) for p in range(32)])
    assert decks[0] != decks[1]  # 1/32! chance of a false failure
    assert sorted(decks[0]) == list(range(32))
