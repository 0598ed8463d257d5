"""How a table moves through its hands: rounds of automatic steps, chance steps, the end of a
hand and the start of the next, the effects of vote certificates, and rolling a hand back to a
fork point. A mixin of :class:`~dealerless.protocol.table.machine.TableMachine`, which holds the
state declared below and provides the chain primitives (receive, append, drive)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

from dealerless.protocol.cards import Card
from dealerless.protocol.crypto import HandDeckContext, PlayerSecret
from dealerless.protocol.messages import MessageError
from dealerless.protocol.rules.base import Deal, Engine, Reveal, TurnUp
from dealerless.protocol.rules.registry import new_engine
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.dealer import fallback_dealer, first_dealer
from dealerless.protocol.table.events import (
    Accepted,
    ActionApplied,
    CardsDealt,
    CardsShown,
    GameOver,
    HandEnded,
    HandSigned,
    HandStarted,
    SeatsChanging,
    SeatSilent,
    TableEvent,
    TableNotStarted,
    TranscriptCut,
)
from dealerless.protocol.table.hand_deck import DEAL, OPEN, HandDeck, decode_secret, encode_secret
from dealerless.protocol.table.hand_state import HandState
from dealerless.protocol.table.mode import Mode
from dealerless.protocol.table.round import Round
from dealerless.protocol.table.steps import PARALLEL_PHASES, STEP_BY_PHASE, After, Phase
from dealerless.protocol.table.votes import VoteBook

SIT_OUT_AFTER = 3  # hands in a row ended by a seat's silence before it sits out (§9)


class HandCycle:
    # State of the table machine this mixin reads and moves on.
    config: TableConfig
    seat: int | None
    engine: Engine
    this_hand: HandState
    proofs_checked: bool  # a confirming replay: proofs verified when the records came
    chain: Chain
    first_hand: int  # the number of this segment's first hand (1 unless seats changed)
    silent_streak: dict[int, int]  # seat -> hands in a row that its silence ended
    seat_change: SeatsChanging | None  # this segment ended for a seat change
    events: list[TableEvent]
    votes: VoteBook
    _hand_engine: Engine | None
    _stored_secrets: dict[int, bytes]
    _new_secrets: list[tuple[int, bytes]]
    mode: Mode
    _dealer_due: bool  # hand 1: the rules start once the joint key draws the first dealer

    # Chain primitives of the table machine.
    def _append(self, frames: Sequence[bytes], digest: bytes) -> None:
        raise NotImplementedError

    def _receive(self, frame: bytes, *, again: bool = False) -> None:
        raise NotImplementedError

    def _drive(self) -> None:
        raise NotImplementedError

    def state_hash(self) -> bytes:
        raise NotImplementedError

    def _note_head(self) -> None:
        raise NotImplementedError

    # ---------------------------------------------------------------- moving on
    def _advance(self) -> None:
        """After an accepted element: once the round (if any) is complete, execute the
        transition the phase table (steps.py) names for this phase."""
        if self.this_hand.round is not None and self.this_hand.round.seats:
            return
        finished = self.this_hand.round
        self.this_hand.round = None
        step = STEP_BY_PHASE.get(self.this_hand.phase)
        if step is None:
            raise AssertionError(f"nothing follows the {self.this_hand.phase} phase")
        TRANSITIONS[step.after](self, finished)

    def _key_reveals(self) -> None:
        self._set_round(Phase.KEY_REVEAL, list(self.this_hand.participants))

    def _shuffles(self) -> None:
        if self._dealer_due:
            assert self.this_hand.deck is not None and self.this_hand.deck.joint is not None
            self._begin_rules_hand(first_dealer(self.config, self.this_hand.deck.joint.encode()))
        self._set_round(Phase.SHUFFLE, list(self.this_hand.participants))

    def _open_shared(self, finished: Round | None) -> None:
        assert finished is not None
        self._finish_shares(finished)
        self._next_in_hand()

    def _end_hand(self) -> None:
        self.events.append(HandSigned(self.this_hand.number))
        if self.engine.outcome is not None:
            self.this_hand.phase = Phase.OVER
            self.events.append(GameOver(self.engine.outcome))
        elif self.engine.seat_changes and (
            self.this_hand.changes or self.this_hand.silent_in_hand is not None
        ):
            # Seats come and go only here, between hands: this segment ends and the next
            # configuration (segments.py) seats who is left, who comes and who comes back.
            # A seat whose silence ended this very hand sits out at a change that happens
            # anyway (it keeps its chips and may come back): it may be gone for good, and
            # if it were the next host nobody would sign the next configuration.
            silent = self.this_hand.silent_in_hand
            if silent is None and self.silent_streak:
                silent = next(iter(self.silent_streak))
            self.this_hand.phase = Phase.OVER
            self.seat_change = SeatsChanging(
                self.this_hand.number, tuple(sorted(self.this_hand.changes.items())), silent
            )
            self.events.append(self.seat_change)
        else:
            self._start_hand()

    def _set_round(self, phase: Phase, seats: list[int]) -> None:
        self.this_hand.phase = phase
        self.this_hand.round = Round(seats, parallel=phase in PARALLEL_PHASES)

    def _start_hand(self) -> None:
        number = self.this_hand.number + 1
        # Seats in the game when the hand starts (before antes: an all-in ante still plays).
        participants = tuple(self.engine.in_game())
        if not self._dealer_due:
            self.engine.start_hand()
            self.events.append(HandStarted(number, self.engine.dealer))
        hctx = HandDeckContext(self.config.table_id, number, self.config.digest())
        secret, lost_share = None, None
        if self.seat is not None and self.seat in participants:
            secret, lost_share = self._hand_secret(hctx, self.seat)
        deck = HandDeck(hctx, participants, secret, proofs_checked=self.proofs_checked)
        self.this_hand = HandState.starting(number, participants, deck, secret, lost_share)
        self._hand_engine = copy.deepcopy(self.engine)
        self.chain.start_hand()
        self.votes.new_hand()

    def _begin_rules_hand(self, dealer: int) -> None:
        """The first hand's rules start once its dealer is drawn (or the hand ends first)."""
        self._dealer_due = False
        self.engine = self._new_engine(dealer)
        self.engine.start_hand()
        self.events.append(HandStarted(self.this_hand.number, self.engine.dealer))

    def _new_engine(self, dealer: int) -> Engine:
        """The rules engine of this segment: after a seat change it starts from the ledgers
        and the hand count the configuration carries."""
        engine = new_engine(self.config.game, dealer)
        carry = self.config.carry
        if carry is not None:
            engine.load_ledger([dict(x) for x in carry.ledgers], dict(carry.table), carry.hands)
        return engine

    def _hand_secret(
        self, hctx: HandDeckContext, seat: int
    ) -> tuple[PlayerSecret | None, str | None]:
        """This hand's key share: the stored one when replaying, else a new one. A hand whose
        share is gone (deleted once the hand was signed, lost, or damaged) is replayed without
        it, as an observer replays it; if we are still in it, we cannot write there (the
        others time us out: silence, bounded) and :class:`ShareMissing` says why (the second
        value: why the share is missing)."""
        stored = self._stored_secrets.get(hctx.hand)
        if stored is not None:
            try:
                return decode_secret(hctx, seat, stored), None
            except (ValueError, MessageError) as exc:
                return None, f"the stored key share of hand {hctx.hand} is damaged ({exc})"
        if self.mode.replaying:
            return None, f"no stored key share for hand {hctx.hand}"
        return self._new_secret(hctx, seat), None

    def _new_secret(self, hctx: HandDeckContext, seat: int) -> PlayerSecret:
        secret = PlayerSecret.generate(hctx, seat)
        self._new_secrets.append((hctx.hand, encode_secret(secret)))
        return secret

    def _next_in_hand(self) -> None:
        engine = self.engine
        if not engine.hand_running:
            result = engine.hand_result
            assert result is not None
            self.silent_streak = {}  # a hand that ends by the rules: nobody's silence goes on
            self.events.append(HandEnded(result, scores=tuple(engine.scores())))
            self._set_round(Phase.RESULT, list(self.this_hand.participants))
            return
        request = engine.chance_request()
        if request is None:
            self.this_hand.phase = Phase.PLAY
        elif isinstance(request, Reveal):
            self.this_hand.phase = Phase.REVEAL
            self.this_hand.reveal_due = request
        else:
            self._start_shares(request)

    def _start_shares(self, request: Deal | TurnUp) -> None:
        if isinstance(request, Deal):
            dues = {
                s: [p for owner, p in request.assignments if owner != s]
                for s in self.this_hand.participants
            }
            step = DEAL
        else:
            dues = {s: [request.position] for s in self.this_hand.participants}
            step = OPEN
        seats = [s for s in self.this_hand.participants if dues[s]]
        self.this_hand.phase = Phase.SHARES
        self.this_hand.round = Round(seats, dues, step, request, parallel=True)
        if not seats:  # a deal to a single-seat table: nothing to share
            self._finish_shares(self.this_hand.round)
            self.this_hand.round = None
            self._next_in_hand()

    def _finish_shares(self, finished: Round) -> None:
        deck = self.this_hand.deck
        assert deck is not None and finished.request is not None
        request = finished.request
        if isinstance(request, Deal):
            cards = deck.deal_to(request.assignments)
            self.engine.apply_chance([None if c is None else Card.from_index(c) for c in cards])
            mine = tuple(
                (p, c)
                for (_, p), c in zip(request.assignments, cards, strict=True)
                if c is not None
            )
            if mine:
                self.events.append(CardsDealt(mine))
        else:
            card = deck.open_public(request.position)
            self.engine.apply_chance([Card.from_index(card)])
            self.events.append(CardsShown(None, ((request.position, card),)))

    # ---------------------------------------------------------------- certificates
    def apply_certificate(
        self, frames: list[bytes], digest: bytes, effect: str, culprit: int, reason: str
    ) -> None:
        """Append a complete certificate (votes in seat order) and carry out its effect: an
        abort (a proven violation) ends the hand by the cheat settlement; a timeout takes the
        rules' timeout action, or ends the hand by the bounded settlement for silence."""
        self._append(frames, digest)
        self.events.append(
            Accepted(f"{effect}-certificate", None, self.chain.seq - 1, self.state_hash())
        )
        silence = effect == "timeout"
        if silence:
            self.events.append(
                SeatSilent(culprit, str(self.this_hand.phase), self.this_hand.number)
            )
        if self.this_hand.phase is Phase.CONFIG and self.config.carry is not None:
            # A later segment that a seat did not sign (a newcomer gone, or one that signed
            # something else): the table does not end for it. That seat sits out (silence) or
            # stands up (a proven violation) and the others re-form without it.
            self.this_hand.phase = Phase.OVER
            changes = () if silence else ((culprit, "stand"),)
            self.seat_change = SeatsChanging(
                self.this_hand.number, changes, culprit if silence else None
            )
            self.events.append(self.seat_change)
        elif self.this_hand.phase is Phase.CONFIG:
            self.this_hand.phase = Phase.OVER
            self.events.append(
                TableNotStarted(
                    reason,
                    culprit=None if silence else culprit,
                    silent=culprit if silence else None,
                )
            )
        elif self.this_hand.phase is Phase.RESULT:
            # The result is already fixed by the rules; only that seat's signature is missing.
            assert self.this_hand.round is not None
            self.this_hand.round.seats = [s for s in self.this_hand.round.seats if s != culprit]
            self._advance()
        elif silence and self.this_hand.phase is Phase.PLAY and self._timeout_move(culprit):
            self._advance()
        else:
            self._abort_hand(culprit, reason, silent=silence)
        self._note_head()
        self._drive()

    def _timeout_move(self, seat: int) -> bool:
        """Apply the rules' move for a silent seat (a fold, a pass), if they have one."""
        action = self.engine.timeout_action(seat)
        if action is None:
            return False
        rules_events = self.engine.apply(action)
        self.events.append(ActionApplied(action, tuple(rules_events), by_timeout=True))
        return True

    # ---------------------------------------------------------------- rollback
    def seq_after(self, head: bytes) -> int:
        """The sequence number of the element that follows ``head`` (current or of this hand)."""
        return self.chain.seq_after(head)

    def can_rollback_to(self, anchor: bytes) -> bool:
        """True when ``anchor`` is an earlier head of the running hand."""
        return self.chain.can_rollback_to(anchor)

    def rollback_to(self, anchor: bytes) -> None:
        """Undo the hand's chain back to ``anchor`` (a fork point proven by equivocation).

        The hand is replayed from its start up to the anchor with the records we hold; the
        transcript is cut there (a :class:`TranscriptCut` event tells the node to truncate).
        Elements signed on the void branch are forgotten, so their authors may sign that step
        again without being taken for equivocators.
        """
        if anchor == self.chain.head:
            return
        assert self._hand_engine is not None
        frames = self.chain.cut_to_hand_start(anchor)
        self.engine = copy.deepcopy(self._hand_engine)
        hand = self.this_hand
        hctx = HandDeckContext(self.config.table_id, hand.number, self.config.digest())
        deck = HandDeck(hctx, hand.participants, hand.secret, proofs_checked=self.proofs_checked)
        self.this_hand = hand.restarted(deck)
        # The segment's first hand: its rules start again after the reveals draw the dealer.
        self._dealer_due = self.this_hand.number == self.first_hand
        mode, self.mode = self.mode, Mode.ROLLBACK
        try:
            for frame in frames:
                self._receive(frame, again=True)
                self.votes.check_certificates()
        finally:
            self.mode = mode
        # What we hold now is a prefix of what the node stored: it cuts its file there.
        self.chain.forget_unsaved()
        self.events.append(TranscriptCut(len(self.chain.records)))

    def _abort_hand(self, culprit: int, reason: str, *, silent: bool = False) -> None:
        if self._dealer_due:
            self._begin_rules_hand(fallback_dealer(self.config))
        """End the hand: for a proven violation (``culprit`` cheated) or for silence (the hand
        cannot go on without that seat). Both use the rules' ``abort_hand`` settlement, which
        costs the seat at most what losing the hand at the current stake costs (rules.md,
        per game) and gives the others no more than that; only a violation is reported as a
        cheat."""
        self.this_hand.round = None
        self.this_hand.reveal_due = None
        # Sat out only when silent in two hands in a row: one lost step (a hub dropping a
        # frame past a deadline) must not be enough to take a seat from the table.
        streak = self.silent_streak.get(culprit, 0) + 1 if silent else 0
        self.silent_streak = {culprit: streak} if silent else {}
        if silent and streak >= SIT_OUT_AFTER:
            self.this_hand.silent_in_hand = culprit
        result = self.engine.abort_hand(culprit, reason)
        self.events.append(
            HandEnded(
                result,
                aborted=True,
                culprit=None if silent else culprit,
                silent=culprit if silent else None,
                scores=tuple(self.engine.scores()),
            )
        )
        signers = [s for s in self.this_hand.participants if s != culprit]
        self._set_round(Phase.RESULT, signers)
        if not signers:
            self._advance()


# The transitions of steps.py's table, as the machine executes them.
TRANSITIONS: dict[After, Callable[[HandCycle, Round | None], None]] = {
    After.START_HAND: lambda cycle, _: cycle._start_hand(),
    After.KEY_REVEALS: lambda cycle, _: cycle._key_reveals(),
    After.SHUFFLES: lambda cycle, _: cycle._shuffles(),
    After.OPEN_SHARED: lambda cycle, finished: cycle._open_shared(finished),
    After.ENGINE_NEXT: lambda cycle, _: cycle._next_in_hand(),
    After.END_HAND: lambda cycle, _: cycle._end_hand(),
}
