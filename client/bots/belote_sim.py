"""Playouts of a Belote hand from one seat's view.

:func:`read_play_view` gathers what the seat knows during the card play: its cards, the tricks,
the trump, the taker (who holds the turned-up card until it is played), and for every other seat
the cards it cannot hold: the "none of these" set of each of its plays (the obligation of
``belote_tricks``, exactly what its non-membership proof showed). :func:`playout` plays a deal
to the end with a fast policy and scores it with the real ``score_hand``.

The policy: lead a high trump when its team took and the trump is strong, else an ace, else
the cheapest plain card; as a follower feed points to a partner who is winning safely, win the
trick as cheaply as possible when it is worth it or the last card, else throw the cheapest card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dealerless.client.bots.sampling import DealProblem, unseen_pool
from dealerless.protocol.cards import DECK, Card, Rank, Suit
from dealerless.protocol.rules.belote_scoring import score_hand, team_of
from dealerless.protocol.rules.belote_tricks import (
    TRICKS_PER_HAND,
    card_points,
    obligation,
    strength,
    winning_play,
)

SEATS = 4
Plays = list[tuple[int, Card]]


@dataclass
class Rules:
    trump: Suit
    taker: int
    overtrump_partner: bool = False
    capot: str = "replace"
    counts_belote: bool = True


def legal(hand: Sequence[Card], plays: Plays, seat: int, rules: Rules) -> list[Card]:
    """The cards ``seat`` may play into ``plays`` (the obligations of ``belote_tricks``, written
    out for speed; a test checks them against ``legal_cards``)."""
    if not plays:
        return list(hand)
    trump = rules.trump
    led = plays[0][1].suit
    win_seat, win_card = winning_play(plays, trump)
    partner = win_seat == (seat + 2) % SEATS
    trumps = [c for c in hand if c.suit == trump]
    if led == trump:
        if not trumps:
            return list(hand)
        if partner and not rules.overtrump_partner:
            return trumps
        higher = [c for c in trumps if strength(c, trump) > strength(win_card, trump)]
        return higher or trumps
    following = [c for c in hand if c.suit == led]
    if following:
        return following
    if partner or not trumps:
        return list(hand)
    if win_card.suit == trump:
        higher = [c for c in trumps if strength(c, trump) > strength(win_card, trump)]
        return higher or trumps
    return trumps


def _cheap(card: Card, trump: Suit) -> tuple[bool, int, int]:
    return (card.suit == trump, card_points(card, trump) + strength(card, trump), card.index)


def policy(hand: Sequence[Card], plays: Plays, seat: int, rules: Rules) -> Card:
    options = legal(hand, plays, seat, rules)
    trump = rules.trump
    if len(options) == 1:
        return options[0]
    if not plays:
        if team_of(seat) == team_of(rules.taker):
            trumps = [c for c in options if c.suit == trump]
            if trumps:
                top = max(trumps, key=lambda c: strength(c, trump))
                if top.rank in (Rank.JACK, Rank.NINE):
                    return top
        aces = [c for c in options if c.rank == Rank.ACE and c.suit != trump]
        if aces:
            return aces[0]
        plain = [c for c in options if c.suit != trump] or options
        return min(plain, key=lambda c: _cheap(c, trump))
    win_seat, win_card = winning_play(plays, trump)
    last = len(plays) == 3
    if win_seat == (seat + 2) % SEATS:
        safe = (
            last
            or (win_card.suit == trump and strength(win_card, trump) >= 6)
            or (win_card.rank == Rank.ACE and win_card.suit != trump)
        )
        if safe:
            plain = [c for c in options if c.suit != trump] or options
            return max(plain, key=lambda c: (card_points(c, trump), -strength(c, trump)))
        return min(options, key=lambda c: _cheap(c, trump))
    beating = [
        c
        for c in options
        if (c.suit == win_card.suit and strength(c, trump) > strength(win_card, trump))
        or (c.suit == trump and win_card.suit != trump)
    ]
    value = sum(card_points(c, trump) for _, c in plays)
    if beating and (value >= 4 or last):
        return min(beating, key=lambda c: _cheap(c, trump))
    return min(options, key=lambda c: _cheap(c, trump))


def playout(
    hands: dict[int, list[Card]],
    rules: Rules,
    leader: int,
    tricks: Sequence[tuple[Plays, int]],
    current: Plays,
    seat: int,
    first: Card | None = None,
) -> int:
    """Play the deal to the end: this seat's team's hand points minus the other team's."""
    held = {s: list(c) for s, c in hands.items()}
    done: list[tuple[Plays, int]] = list(tricks)
    plays: Plays = list(current)
    to_play = (plays[-1][0] + 1) % SEATS if plays else leader
    pending = first
    while len(done) < TRICKS_PER_HAND:
        hand = held[to_play]
        if not hand:
            break
        if to_play == seat and pending is not None:
            card, pending = pending, None
        else:
            card = policy(hand, plays, to_play, rules)
        hand.remove(card)
        plays.append((to_play, card))
        if len(plays) == SEATS:
            winner = winning_play(plays, rules.trump)[0]
            done.append((plays, winner))
            plays = []
            to_play = winner
        else:
            to_play = (to_play + 1) % SEATS
    if len(done) < TRICKS_PER_HAND:
        return 0
    score = score_hand(
        done,
        rules.trump,
        rules.taker,
        capot=rules.capot,
        contract_counts_belote=rules.counts_belote,
    )
    mine = team_of(seat)
    return score.points[mine] - score.points[1 - mine]


def play_problem(
    seat: int,
    mine: Sequence[Card],
    counts: Sequence[int],
    tricks: Sequence[tuple[Plays, int]],
    current: Plays,
    rules: Rules,
    turned: Card | None,
) -> DealProblem:
    """The unseen cards and who may hold them, during the card play."""
    played = [c for plays, _ in tricks for _, c in plays] + [c for _, c in current]
    excluded: dict[int, set[Card]] = {}
    for plays in [*(p for p, _ in tricks), current]:
        for index, (who, card) in enumerate(plays):
            ruled = obligation(
                plays[:index],
                who,
                card,
                rules.trump,
                overtrump_partner_on_trump_lead=rules.overtrump_partner,
            )
            if ruled.forbidden:
                excluded.setdefault(who, set()).update(ruled.forbidden)
    known: dict[int, list[Card]] = {}
    if turned is not None and turned not in played and rules.taker != seat:
        known[rules.taker] = [turned]
    visible = [*mine, *played, *(c for cards in known.values() for c in cards)]
    if turned is not None:
        visible.append(turned)
    need = {s: counts[s] - len(known.get(s, ())) for s in range(SEATS) if s != seat}
    return DealProblem(pool=unseen_pool(visible, DECK), need=need, excluded=excluded, known=known)
