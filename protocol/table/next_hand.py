"""Where the table machine meets the next hand's prepared deck (spec/protocol.md P-53): which
frames of a peer it keeps for that deck, which of ours are due and when, what a hand takes at
its start, and what a roll-back gives back. A part of
:class:`~dealerless.protocol.table.machine.TableMachine`, built anew with each segment; it owns
the segment's :class:`~dealerless.protocol.table.next_deck.Preparations` and whether a started
hand's prepared frames still wait to be fed to the chain. It returns what the machine must do
(frames to send, to buffer, to receive again) and sends nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dealerless.protocol.crypto import PlayerSecret
from dealerless.protocol.messages import MessageError, SignedMessage, decode_message
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.hand_state import HandState
from dealerless.protocol.table.key_shares import KeyShares
from dealerless.protocol.table.kinds import SIDE_KINDS, TABLE_REGISTRY
from dealerless.protocol.table.next_deck import SETUP_KINDS, NextDeck, Preparations
from dealerless.protocol.table.steps import SETUP_PHASES, Phase

# Phases in which we write our shuffle of the next hand's setup: the running hand is dealt
# (its own deal comes first: a shuffle is the setup's dearest step).
PREPARE_PHASES = frozenset({Phase.PLAY, Phase.REVEAL, Phase.RESULT})
NO_PREPARATION = frozenset({Phase.CONFIG, Phase.OVER})

Sign = Callable[[int, int, bytes, str, dict[str, Any]], SignedMessage]


class NextHandSetup:
    def __init__(
        self,
        config: TableConfig,
        seat: int | None,
        *,
        keys: KeyShares,
        sign: Sign | None,
        chain: Chain,
        replaying: Callable[[], bool],
    ) -> None:
        # The next hand's deck, prepared while a hand is played, by the head it builds on.
        self.preparations = Preparations(config, seat, keys=keys, sign=sign)
        self.seat = seat
        self.chain = chain
        self._replaying = replaying
        self.feed_due = False  # a hand started: the frames prepared for it go onto the chain

    def resumed(self, hand: int) -> None:
        """The machine was rebuilt after a crash, into ``hand``: what was prepared for it goes
        onto its chain, and nothing of the hand after it is prepared without a stored share
        (Preparations.resumed_hand)."""
        self.feed_due = True
        self.preparations.resumed_hand = hand

    def secret(self, number: int, anchor: bytes) -> PlayerSecret | str | None:
        """Our share of hand ``number`` if its setup was prepared on from ``anchor`` (see
        :meth:`Preparations.secret`)."""
        return self.preparations.secret(number, anchor)

    def deck(self, hand: HandState, *, make: bool = True) -> NextDeck | None:
        """The deck of the hand after ``hand``, prepared while it is played (``make``: begin
        it if there is none yet). None where nothing is prepared: no hand, the segment over, or
        a replay (its records hold what each hand took)."""
        if hand.phase in NO_PREPARATION or self._replaying():
            return None
        return self.preparations.next_deck(
            self.chain.hand_mark, hand.number, hand.participants, make=make
        )

    def takes(self, message: SignedMessage, hand: HandState) -> bool:
        """A peer's frame of the next hand's setup: its prepared deck keeps it (True)."""
        if message.hand != hand.number + 1 or message.kind not in SETUP_KINDS:
            return False
        deck = self.deck(hand)
        if deck is None:
            return False
        deck.take(message)
        return True

    def due(self, hand: HandState) -> list[bytes]:
        """Our frames of the next hand's setup that are due, signed and taken (the key
        commitment and reveal as soon as ``hand`` started, our shuffle once it is dealt).
        The machine sends them, and asks only while it writes (live, seated, no check waits)."""
        if self.seat is None:
            return []
        deck = self.deck(hand)
        if deck is None:
            return []
        return self.preparations.write(deck, shuffle=hand.phase in PREPARE_PHASES)

    def keep_taken(self, hand: HandState, message: SignedMessage, own: bool) -> None:
        """A frame the running hand's chain took: if it is of the hand's prepared setup, its
        deck keeps it too (Preparations.keep_taken)."""
        self.preparations.keep_taken(hand.prepared_from, hand.number, message, own)

    def start_frames(self, hand: HandState) -> list[SignedMessage]:
        """The hand just started: the frames of its setup that came while the hand before was
        played, to go onto its chain as they fit, through the usual checks (the proofs a
        prepared deck verified on arrival are marked checked in the hand's deck). Only a
        prepared hand (P-53) takes them at its start; another one finds them built on heads it
        never has (a seat that prepared on a view the table left), judged as any such frame."""
        deck = hand.deck
        if deck is None or hand.phase not in SETUP_PHASES:
            return []
        out: list[SignedMessage] = []
        for prepared in self.preparations.for_hand(hand.number):
            deck.checked_frames |= prepared.checked
            out.extend(prepared.frames())
        return out

    def votes_again(self, void: Sequence[bytes]) -> list[SignedMessage]:
        """Of the records a roll-back cut, the votes signed at a prepared setup's heads. A
        prepared setup comes again with the same heads (P-53), and so does what was signed on
        them: the certificates there may count again."""
        heads = {h for deck in self.preparations.decks.values() for h in deck.heads}
        out: list[SignedMessage] = []
        for frame in void:
            try:
                message = decode_message(frame, registry=TABLE_REGISTRY)
            except MessageError:
                continue
            if message.kind in SIDE_KINDS and message.prev in heads:
                out.append(message)
        return out

    def held_frames(self, hand: HandState) -> list[bytes]:
        """Every frame we hold of the next hand's prepared setup, the others' and ours."""
        deck = self.deck(hand, make=False)
        return [] if deck is None else list(dict.fromkeys(m.frame for m in deck.frames()))

    def own_next(self, hand: HandState) -> list[bytes]:
        """Our frames of the next hand's prepared setup so far."""
        deck = self.deck(hand, make=False)
        return [] if deck is None else deck.own

    def own_open_frames(self, hand: HandState) -> list[bytes]:
        """Our frames of a prepared setup that is not complete here: the running hand's while
        its setup is open, and the next hand's."""
        start = hand.prepared_from if hand.phase in SETUP_PHASES else None
        return self.preparations.own_frames(start, self.chain.hand_mark, hand.number)
