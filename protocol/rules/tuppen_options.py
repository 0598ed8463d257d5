"""The switchable extra rules of classic Tuppen (seed 003) and their defaults.

Every extra rule of the seed is on by default: seed 003 lists them as the rules of the classic
game ("Zusatzregeln beim Tuppen"); tables that do not play one switch it off.
"""

from __future__ import annotations

from dealerless.protocol.rules.base import OptionSpec

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "poverty",
        True,
        "Armut: when a seat with 9 penalty points is dealt in, every other seat decides after "
        "seeing its cards to play along (loses 2) or fold (gets 1); no knocking in such a hand.",
    ),
    OptionSpec(
        "tupp",
        True,
        "Tupp: a seat dealt four of a kind claims it before playing a card, wins the hand at "
        "once and every other seat gets 3 penalty points.",
    ),
    OptionSpec(
        "tupp_attempt",
        True,
        "Tupp attempt: in the exchange round a seat shows three of a kind and exchanges the "
        "fourth card once; if the new card completes four of a kind it claims Tupp (allowed "
        "even with the tupp option off). No bluffing: the three cards are revealed.",
    ),
    OptionSpec(
        "dirty_laundry",
        True,
        "Schmutzige Waesche: in the exchange round a seat sets all four cards aside and draws "
        "four; bluffing allowed; another seat may check: true laundry (4 of J/Q/K/A, or 3 of "
        "them and a 7) gives the checker 1 point, a bluff gives the declarer 1 point and the "
        "declarer keeps its original cards.",
    ),
    OptionSpec(
        "jack_win",
        True,
        "Sieg mit einem Buben: the winner of the last trick with a jack gets 1 penalty point "
        "off (never below 0).",
    ),
)
