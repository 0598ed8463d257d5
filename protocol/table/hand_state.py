"""What the table machine holds about the hand it is in, in one value.

A hand's fields are made in one place: before a segment's first hand (:meth:`HandState.
before_first`), at a hand's start (:meth:`HandState.starting`) and again at its start when it is
rolled back (:meth:`HandState.restarted`). A field added here is reset everywhere at once, so a
peer that rolled a hand back holds what a peer that never left it holds."""

from __future__ import annotations

from dataclasses import dataclass, field

from dealerless.protocol.crypto import PlayerSecret
from dealerless.protocol.messages import SignedMessage
from dealerless.protocol.rules.base import Reveal
from dealerless.protocol.table.hand_deck import HandDeck
from dealerless.protocol.table.round import Round
from dealerless.protocol.table.steps import PARALLEL_PHASES, Phase


@dataclass
class HandState:
    number: int  # the hand's number in the table (0 before the first)
    participants: tuple[int, ...]  # seats dealt in (in the game when the hand started)
    phase: Phase
    round: Round | None  # the round of automatic steps open at the head
    deck: HandDeck | None = None
    secret: PlayerSecret | None = None  # our key share of this hand
    lost_share: str | None = None  # why our key share is missing (we play the hand blind)
    wrote_in_hand: bool = False  # an element of ours is on the chain in this hand
    reveal_due: Reveal | None = None  # the cards the rules ask a seat to show
    changes: dict[int, str] = field(default_factory=dict)  # seat -> the seat change it asked
    silent_in_hand: int | None = None  # the seat whose silence ended this hand (it sits out)
    requests: list[SignedMessage] = field(default_factory=list)  # out-of-turn, at the head
    # A prepared hand (P-53): the head its setup was signed on from (the start of the hand
    # before) and that head's sequence number; None: the setup starts at the hand's own start.
    prepared_from: tuple[bytes, int] | None = None

    @classmethod
    def before_first(cls, number: int, players: int) -> HandState:
        """A segment before its first hand: every seat signs the configuration, in order."""
        seats = tuple(range(players))
        return cls(number, seats, Phase.CONFIG, Round(list(seats)))

    @classmethod
    def starting(
        cls,
        number: int,
        participants: tuple[int, ...],
        deck: HandDeck,
        secret: PlayerSecret | None,
        lost_share: str | None,
        prepared_from: tuple[bytes, int] | None = None,
    ) -> HandState:
        """A hand at its start: the key-commit round of every seat dealt in."""
        return cls(
            number,
            participants,
            Phase.KEY_COMMIT,
            Round(list(participants), parallel=Phase.KEY_COMMIT in PARALLEL_PHASES),
            deck,
            secret,
            lost_share,
            prepared_from=prepared_from,
        )

    def restarted(self, deck: HandDeck) -> HandState:
        """The same hand back at its start (a roll-back replays it from there): the same seats
        and key share, a fresh deck; whether we wrote in it is learnt again from the replay."""
        return HandState.starting(
            self.number, self.participants, deck, self.secret, self.lost_share, self.prepared_from
        )
