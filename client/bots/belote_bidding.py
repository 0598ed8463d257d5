"""The strong Belote bot's bidding: take when taking should score more than passing.

The hand is valued as the taker would hold it (its five cards and the turned-up card, which the
taker gets whatever the suit) for each suit it may name, and :func:`take_gain` estimates how many
hand points (the team's minus the other team's) taking that suit gains over passing here.

The estimate is linear in what a hand can win: the trump jack, nine, ace and ten, the other
trumps, length beyond two and three trumps, side aces, side tens with and without their ace,
the belote, void side suits, and the situation: the dealer leads the first trick, the dealer's
partner speaks last, and the second round comes after everyone passed the turned-up suit once.
:data:`GAIN_WEIGHTS` were fitted by least squares on 14,800 bidding decisions: at a random
decision of a team in random deals (everyone before it bidding like the bots: the basic bot's
threshold for the opponents, this team's taking about as often as this bidder), the hand was
played to the end once after taking each suit and once after passing (the bidding then going on
the same way), with the sampled-deal card play; the weight of a feature is the points it adds
to the difference. On held-out decisions the fitted rule gained 0.5 points a decision over the
best plain threshold of the basic hand value.
"""

from __future__ import annotations

from collections.abc import Sequence

from dealerless.client.bots.belote_fast import ACE, JACK, KING, NINE, QUEEN, SEATS, TEN

HONOURS = (JACK, NINE, ACE, TEN)

GAIN_WEIGHTS: dict[str, float] = {
    "base": -101.5,
    "trump jack": 77.2,
    "trump nine": 42.2,
    "trump ace": 17.6,
    "trump ten": 17.4,
    "other trump": 17.5,  # each of king, queen, eight, seven
    "trumps beyond two": 15.9,  # each
    "trumps beyond three": -8.8,  # each (length counts less once the top is drawn)
    "side ace": 10.1,
    "side ten with its ace": 10.1,
    "side ten without its ace": 3.6,
    "belote": 29.6,
    "void side suit": 4.5,
    "dealer": 8.7,  # leads the first trick
    "dealer's partner": 5.4,  # the last to speak in each round
    "second round": -7.3,
}
# the gain a take must clear: below zero, as this bot plays its contracts better than the
# sampled-deal card play the weights were fitted with
TAKE_MARGIN = -8.0


def hand_features(
    cards: Sequence[int], trump: int, seat: int, dealer: int, second_round: bool
) -> dict[str, float]:
    """What :func:`take_gain` counts, for the taker's six cards (indices) and ``trump``."""
    trumps = {c & 7 for c in cards if c >> 3 == trump}
    side = {c for c in cards if c >> 3 != trump}
    length = len(trumps)
    position = (seat - dealer) % SEATS
    return {
        "base": 1.0,
        "trump jack": float(JACK in trumps),
        "trump nine": float(NINE in trumps),
        "trump ace": float(ACE in trumps),
        "trump ten": float(TEN in trumps),
        "other trump": float(len(trumps - set(HONOURS))),
        "trumps beyond two": float(max(0, length - 2)),
        "trumps beyond three": float(max(0, length - 3)),
        "side ace": float(sum(1 for c in side if c & 7 == ACE)),
        "side ten with its ace": float(sum(1 for c in side if c & 7 == TEN and c | 7 in side)),
        "side ten without its ace": float(
            sum(1 for c in side if c & 7 == TEN and c | 7 not in side)
        ),
        "belote": float(KING in trumps and QUEEN in trumps),
        "void side suit": float(
            sum(1 for s in range(4) if s != trump and not any(c >> 3 == s for c in side))
        ),
        "dealer": float(position == 0),
        "dealer's partner": float(position == 2),
        "second round": float(second_round),
    }


def take_gain(
    cards: Sequence[int], trump: int, seat: int, dealer: int, second_round: bool
) -> float:
    """Estimated hand points gained by taking ``trump`` rather than passing."""
    features = hand_features(cards, trump, seat, dealer, second_round)
    return sum(GAIN_WEIGHTS[name] * value for name, value in features.items())


def choose_bid(
    cards: Sequence[int], suits: Sequence[int], seat: int, dealer: int, second_round: bool
) -> int | None:
    """The suit to take among ``suits`` (the taker's six cards ``cards``), or None to pass."""
    best: tuple[float, int] | None = None
    for suit in suits:
        gain = take_gain(cards, suit, seat, dealer, second_round)
        if best is None or gain > best[0]:
            best = (gain, suit)
    if best is not None and best[0] > TAKE_MARGIN:
        return best[1]
    return None
