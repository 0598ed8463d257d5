"""Why a hand or a game ended, as a stable code a client can translate.

Every :class:`~dealerless.protocol.rules.base.HandResult` and
:class:`~dealerless.protocol.rules.base.Outcome` carries its English ``reason`` (the text that
goes into the transcript and the signed result digest, so it never changes) and one of these
codes. Parameters for a translated sentence come from the result's ``details`` and its
``note``: the free text of a voided hand (the violation or silence that voided it), which is
produced by the table machine and is not translated.
"""

from __future__ import annotations

from enum import StrEnum


class HandEnd(StrEnum):
    LAST_TRICK = "last_trick"  # the winner of the last trick wins the hand
    ALL_FOLDED = "all_folded"  # every other seat folded
    TUPP = "tupp"  # a Tupp claim was shown true
    CONTRACT_MADE = "contract_made"  # Belote: the taker's team made its contract
    CONTRACT_FAILED = "contract_failed"  # Belote: it did not
    REDEAL = "redeal"  # Belote: every seat passed twice
    SINGLE_BETTOR_WON = "single_bettor_won"  # Pottuppen: the only bettor took the last trick
    DEFENDERS_WON = "defenders_won"  # Pottuppen: it did not
    PASS_ROUND = "pass_round"  # Pottuppen: nobody bet; the last trick pays into the pot
    VOIDED = "voided"  # a violation or a silence voided the hand (``note`` says which)


class GameEnd(StrEnum):
    ONE_LEFT = "one_left"  # classic Tuppen: one player left under the penalty limit
    NONE_LEFT = "none_left"  # classic Tuppen: the last hand took every seat to the limit
    ALL_CHIPS = "all_chips"  # tournament: one seat has all the chips
    HANDS_PLAYED = "hands_played"  # the agreed number of hands was played
    PLAYERS_ENDED = "players_ended"  # the players agreed to end the game
    TARGET_REACHED = "target_reached"  # Belote: a team reached the target


__all__ = ["GameEnd", "HandEnd"]
