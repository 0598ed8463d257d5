"""How a table moves through its hands: rounds of automatic steps, chance steps, the end of a
hand and the start of the next, and the effects of vote certificates. A part of
:class:`~dealerless.protocol.table.machine.TableMachine`, one per segment: it owns the running
hand's state, the rules engine and what the segment's end decided; the machine appends to the
chain, writes and receives, and asks it where the hand goes next."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from dealerless.protocol.cards import Card
from dealerless.protocol.crypto import HandDeckContext, PlayerSecret
from dealerless.protocol.rules.base import Deal, Engine, Reveal, TurnUp
from dealerless.protocol.rules.registry import new_engine
from dealerless.protocol.table.chain import ROLLBACK_HANDS, Chain, prepare_anchor
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.dealer import fallback_dealer, first_dealer
from dealerless.protocol.table.events import (
    ActionApplied,
    CardsDealt,
    CardsShown,
    GameOver,
    HandEnded,
    HandSigned,
    HandStarted,
    SeatsChanging,
    SeatSilent,
    ShareMissing,
    TableEvent,
    TableNotStarted,
)
from dealerless.protocol.table.hand_deck import (
    DEAL,
    OPEN,
    HandDeck,
    stored_share,
)
from dealerless.protocol.table.hand_state import HandState
from dealerless.protocol.table.key_shares import KeyShares
from dealerless.protocol.table.round import Round
from dealerless.protocol.table.steps import (
    PARALLEL_PHASES,
    PREPARED_PHASES,
    STEP_BY_PHASE,
    After,
    Phase,
)

SIT_OUT_AFTER = 3  # hands in a row ended by a seat's silence before it sits out (§9)


@dataclass(frozen=True)
class _FinishedHand:
    """What a roll-back into the hand before the running one starts it again from."""

    hand: HandState  # as it ended: its number, seats and key share
    engine: Engine | None  # the rules as it began (None: the configuration round)
    streak: dict[int, int]  # the silence streaks as it began


class HandCycle:
    def __init__(
        self,
        config: TableConfig,
        seat: int | None,
        *,
        chain: Chain,
        keys: KeyShares,
        events: list[TableEvent],
        proofs_checked: bool,
        replaying: Callable[[], bool],
        on_new_hand: Callable[[], None],
        prepared_secret: Callable[[int, bytes], PlayerSecret | str | None] = lambda _n, _a: None,
    ) -> None:
        self.config, self.seat = config, seat
        self.chain, self.keys, self.events = chain, keys, events
        self.proofs_checked = proofs_checked  # a confirming replay: proofs verified on arrival
        self.replaying = replaying  # the machine rebuilds from records: no new key shares
        self.on_new_hand = on_new_hand  # the votes of a hand are per hand
        self.prepared_secret = prepared_secret  # our share of a hand prepared before it (P-53)
        hands_before = config.carry.hands if config.carry is not None else 0
        self.hand = HandState.before_first(hands_before, config.players)
        self.first_hand = hands_before + 1  # 1 unless seats changed
        self.silent_streak: dict[int, int] = {}  # seat -> hands in a row its silence ended
        self.seat_change: SeatsChanging | None = None  # this segment ended for a seat change
        self.boundary_silent: tuple[int, ...] = ()  # next hosts timed out at the segment's end
        # Not started until the first hand's keys are revealed, which draw the first dealer.
        self.engine: Engine = self.new_engine(0)
        self.dealer_due = True  # hand 1: the rules start once the joint key draws the dealer
        self.hand_engine: Engine | None = None  # the rules as the running hand began
        self.streak_at_start: dict[int, int] = {}  # the silence streaks as it began
        # The hands before it, oldest first, as far back as the chain keeps them (roll-back).
        self.previous: list[_FinishedHand] = []

    # ---------------------------------------------------------------- moving on
    def advance(self) -> None:
        """After an accepted element: once the round (if any) is complete, execute the
        transition the phase table (steps.py) names for this phase."""
        if self.hand.round is not None and self.hand.round.seats:
            return
        finished = self.hand.round
        self.hand.round = None
        if self.hand.phase is Phase.SHUFFLE and self.hand.prepared_from is not None:
            self.chain.join()  # the deck was prepared: the hand goes on from its start (P-53)
        step = STEP_BY_PHASE.get(self.hand.phase)
        if step is None:
            raise AssertionError(f"nothing follows the {self.hand.phase} phase")
        TRANSITIONS[step.after](self, finished)

    def _key_reveals(self) -> None:
        self.set_round(Phase.KEY_REVEAL, list(self.hand.participants))

    def _shuffles(self) -> None:
        if self.dealer_due:
            assert self.hand.deck is not None and self.hand.deck.joint is not None
            self.begin_rules_hand(first_dealer(self.config, self.hand.deck.joint.encode()))
        self.set_round(Phase.SHUFFLE, list(self.hand.participants))

    def _open_shared(self, finished: Round | None) -> None:
        assert finished is not None
        self._finish_shares(finished)
        self._next_in_hand()

    def _end_hand(self) -> None:
        self.events.append(HandSigned(self.hand.number))
        if self.engine.outcome is not None:
            self.hand.phase = Phase.OVER
            self.events.append(GameOver(self.engine.outcome))
        elif self.engine.seat_changes and (
            self.hand.changes or self.hand.silent_in_hand is not None
        ):
            # Seats come and go only here, between hands: this segment ends and the next
            # configuration (segments.py) seats who is left, who comes and who comes back.
            # A seat whose silence ended this very hand sits out at a change that happens
            # anyway (it keeps its chips and may come back): it may be gone for good, and
            # if it were the next host nobody would sign the next configuration.
            silent = self.hand.silent_in_hand
            if silent is None and self.silent_streak:
                silent = next(iter(self.silent_streak))
            self.hand.phase = Phase.OVER
            self.seat_change = SeatsChanging(
                self.hand.number, tuple(sorted(self.hand.changes.items())), silent
            )
            self.events.append(self.seat_change)
        else:
            self.start_hand()

    def set_round(self, phase: Phase, seats: list[int]) -> None:
        self.hand.phase = phase
        self.hand.round = Round(seats, parallel=phase in PARALLEL_PHASES)

    def start_hand(self) -> None:
        number = self.hand.number + 1
        # Seats in the game when the hand starts (before antes: an all-in ante still plays).
        participants = tuple(self.engine.in_game())
        if not self.dealer_due:
            self.engine.start_hand()
            self.events.append(HandStarted(number, self.engine.dealer))
        prepared_from = self._prepared_from(participants)
        hctx = HandDeckContext(self.config.table_id, number, self.config.digest())
        secret, lost_share = None, None
        if self.seat is not None and self.seat in participants:
            anchor = self.chain.head if prepared_from is None else prepared_from[0]
            secret, lost_share = self._hand_secret(hctx, self.seat, anchor)
        deck = HandDeck(hctx, participants, secret, proofs_checked=self.proofs_checked)
        self.previous.append(_FinishedHand(self.hand, self.hand_engine, self.streak_at_start))
        del self.previous[:-ROLLBACK_HANDS]
        self.hand = HandState.starting(
            number, participants, deck, secret, lost_share, prepared_from
        )
        # The rules as the hand began, for a roll-back; the check at the end of a game never
        # rolls back, and copying the engine every hand was a quarter of that check.
        self.hand_engine = None if self.proofs_checked else copy.deepcopy(self.engine)
        self.streak_at_start = dict(self.silent_streak)
        self.chain.start_hand()
        if prepared_from is not None:
            self.chain.rebase(*prepared_from)
        if lost_share is not None and not self.replaying():
            self.events.append(ShareMissing(number, lost_share))  # its share was prepared, lost
        self.on_new_hand()

    def _prepared_from(self, participants: tuple[int, ...]) -> tuple[bytes, int] | None:
        """Where the setup of the hand that starts now is signed on from (P-53): a head made
        from the start of the hand before when that hand dealt in the same seats and was no
        segment's configuration round nor its first hand's dealer draw; else None (its own
        start)."""
        mark = self.chain.hand_mark
        if (
            mark is None
            or self.hand.phase is Phase.CONFIG
            or self.dealer_due
            or participants != self.hand.participants
        ):
            return None
        return prepare_anchor(mark.head), mark.seq

    def begin_rules_hand(self, dealer: int) -> None:
        """The first hand's rules start once its dealer is drawn (or the hand ends first)."""
        self.dealer_due = False
        self.engine = self.new_engine(dealer)
        self.engine.start_hand()
        self.events.append(HandStarted(self.hand.number, self.engine.dealer))

    def new_engine(self, dealer: int) -> Engine:
        """The rules engine of this segment: after a seat change it starts from the ledgers
        and the hand count the configuration carries."""
        engine = new_engine(self.config.game, dealer)
        carry = self.config.carry
        if carry is not None:
            engine.load_ledger([dict(x) for x in carry.ledgers], dict(carry.table), carry.hands)
        return engine

    def _hand_secret(
        self, hctx: HandDeckContext, seat: int, anchor: bytes
    ) -> tuple[PlayerSecret | None, str | None]:
        """This hand's key share: the one made to prepare it (``anchor``: the head its setup
        is signed on from), the stored one when replaying, else a new one. A hand whose
        share is gone (deleted once the hand was signed, lost, or damaged) is replayed without
        it, as an observer replays it; if we are still in it, we cannot write there (the
        others time us out: silence, bounded) and :class:`ShareMissing` says why (the second
        value: why the share is missing)."""
        prepared = self.prepared_secret(hctx.hand, anchor)
        if isinstance(prepared, str):
            return None, prepared  # prepared before a crash, its share lost: played blind
        if prepared is not None:
            return prepared, None
        stored = stored_share(self.keys.stored(hctx.hand), hctx, seat, anchor)
        if stored.damaged is not None or stored.secret is not None:
            return stored.secret, stored.damaged
        if self.replaying():
            return None, f"no stored key share for hand {hctx.hand}"
        return self.new_secret(hctx, seat), None

    def fresh_share(self, seat: int) -> None:
        """A resumed hand of ours whose share was lost before anything of ours was on its
        chain: a fresh share is safe there."""
        deck = self.hand.deck
        assert deck is not None
        self.hand.secret = deck.secret = self.new_secret(deck.hctx, seat)
        self.hand.lost_share = None

    def new_secret(self, hctx: HandDeckContext, seat: int) -> PlayerSecret:
        secret = PlayerSecret.generate(hctx, seat)
        self.keys.keep_share(secret)
        return secret

    def _next_in_hand(self) -> None:
        engine = self.engine
        if not engine.hand_running:
            result = engine.hand_result
            assert result is not None
            self.silent_streak = {}  # a hand that ends by the rules: nobody's silence goes on
            self.events.append(HandEnded(result, scores=tuple(engine.scores())))
            self.set_round(Phase.RESULT, list(self.hand.participants))
            return
        request = engine.chance_request()
        if request is None:
            self.hand.phase = Phase.PLAY
        elif isinstance(request, Reveal):
            self.hand.phase = Phase.REVEAL
            self.hand.reveal_due = request
        else:
            self._start_shares(request)

    def _start_shares(self, request: Deal | TurnUp) -> None:
        if isinstance(request, Deal):
            dues = {
                s: [p for owner, p in request.assignments if owner != s]
                for s in self.hand.participants
            }
            step = DEAL
        else:
            dues = {s: [request.position] for s in self.hand.participants}
            step = OPEN
        seats = [s for s in self.hand.participants if dues[s]]
        self.hand.phase = Phase.SHARES
        self.hand.round = Round(seats, dues, step, request, parallel=True)
        if not seats:  # a deal to a single-seat table: nothing to share
            self._finish_shares(self.hand.round)
            self.hand.round = None
            self._next_in_hand()

    def _finish_shares(self, finished: Round) -> None:
        deck = self.hand.deck
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
    def certificate_effect(self, effect: str, culprit: int, reason: str) -> None:
        """Carry out a complete certificate's effect (the machine appended its votes): an
        abort (a proven violation) ends the hand by the cheat settlement; a timeout takes the
        rules' timeout action, or ends the hand by the bounded settlement for silence."""
        silence = effect == "timeout"
        if silence:
            self.events.append(SeatSilent(culprit, str(self.hand.phase), self.hand.number))
        if self.hand.prepared_from is not None and self.hand.phase in PREPARED_PHASES:
            # A prepared setup's heads, and so a certificate there, are the same whichever way
            # the hand before ended; the result round that follows is not: it goes on at the
            # join, bound to the hand's start, as the deal does (P-54).
            self.chain.join()
        if self.hand.phase is Phase.CONFIG and self.config.carry is not None:
            # A later segment that a seat did not sign (a newcomer gone, or one that signed
            # something else): the table does not end for it. That seat sits out (silence) or
            # stands up (a proven violation) and the others re-form without it.
            self.hand.phase = Phase.OVER
            changes = () if silence else ((culprit, "stand"),)
            self.seat_change = SeatsChanging(
                self.hand.number, changes, culprit if silence else None
            )
            self.events.append(self.seat_change)
        elif self.hand.phase is Phase.CONFIG:
            self.hand.phase = Phase.OVER
            self.events.append(
                TableNotStarted(
                    reason,
                    culprit=None if silence else culprit,
                    silent=culprit if silence else None,
                )
            )
        elif self.hand.phase is Phase.RESULT:
            # The result is already fixed by the rules; only that seat's signature is missing.
            # The others' frames were signed at the round's old head, which the certificate
            # moved: they sign again at the new one (the same result; their frames at the old
            # head are stale, nobody's violation).
            assert self.hand.round is not None
            self.hand.changes.clear()  # asked again in the frames signed at the new head
            self.set_round(Phase.RESULT, [s for s in self.hand.round.seats if s != culprit])
            self.advance()
        elif silence and self.hand.phase is Phase.PLAY and self.timeout_move(culprit):
            self.advance()
        else:
            self.abort_hand(culprit, reason, silent=silence)

    def timeout_move(self, seat: int) -> bool:
        """Apply the rules' move for a silent seat (a fold, a pass), if they have one."""
        action = self.engine.timeout_action(seat)
        if action is None:
            return False
        rules_events = self.engine.apply(action)
        self.events.append(ActionApplied(action, tuple(rules_events), by_timeout=True))
        return True

    def note_boundary_silent(self, host: int) -> None:
        """A certificate at the segment's end: that next host was silent (it sits out)."""
        self.boundary_silent = (*self.boundary_silent, host)

    # ---------------------------------------------------------------- rollback
    def restart_hand(self) -> None:
        """The running hand as it was at its start, for the machine to replay its records up
        to a fork point (the chain was cut there)."""
        hand = self.hand
        self.silent_streak = dict(self.streak_at_start)
        # If the segment ended with this hand (a seat change), that end is void now: the hand
        # ends again as its records replayed decide (not rolled back, a stale seat change
        # turned the game's end into a boundary and the seats parted there).
        self.seat_change, self.boundary_silent = None, ()
        if self.hand_engine is None:  # the segment's configuration round: before any hand
            self.hand = HandState.before_first(hand.number, self.config.players)
            self.engine = self.new_engine(0)
            self.dealer_due = True
            return
        self.engine = copy.deepcopy(self.hand_engine)
        hctx = HandDeckContext(self.config.table_id, hand.number, self.config.digest())
        deck = HandDeck(hctx, hand.participants, hand.secret, proofs_checked=self.proofs_checked)
        self.hand = hand.restarted(deck)
        if self.hand.prepared_from is not None:
            self.chain.rebase(*self.hand.prepared_from)
        # The segment's first hand: its rules start again after the reveals draw the dealer.
        self.dealer_due = self.hand.number == self.first_hand

    def restart_previous(self, back: int = 1) -> None:
        """The hand ``back`` hands before the running one, as it was at its start (the chain
        was cut back into it): a timeout certificate formed there while our element was in
        flight. The hands after it are void."""
        assert 1 <= back <= len(self.previous)
        previous = self.previous[-back]
        del self.previous[-back:]
        self.hand, self.hand_engine = previous.hand, previous.engine
        self.streak_at_start = previous.streak
        self.restart_hand()

    def abort_hand(self, culprit: int, reason: str, *, silent: bool = False) -> None:
        """End the hand: for a proven violation (``culprit`` cheated) or for silence (the hand
        cannot go on without that seat). Both use the rules' ``abort_hand`` settlement, which
        costs the seat at most what losing the hand at the current stake costs (rules.md,
        per game) and gives the others no more than that; only a violation is reported as a
        cheat."""
        if self.dealer_due:
            self.begin_rules_hand(fallback_dealer(self.config))
        self.hand.round = None
        self.hand.reveal_due = None
        # Sat out only when silent in two hands in a row: one lost step (a hub dropping a
        # frame past a deadline) must not be enough to take a seat from the table.
        streak = self.silent_streak.get(culprit, 0) + 1 if silent else 0
        self.silent_streak = {culprit: streak} if silent else {}
        if silent and streak >= SIT_OUT_AFTER:
            self.hand.silent_in_hand = culprit
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
        signers = [s for s in self.hand.participants if s != culprit]
        self.set_round(Phase.RESULT, signers)
        if not signers:
            self.advance()


# The transitions of steps.py's table, as the machine executes them.
TRANSITIONS: dict[After, Callable[[HandCycle, Round | None], None]] = {
    After.START_HAND: lambda cycle, _: cycle.start_hand(),
    After.KEY_REVEALS: lambda cycle, _: cycle._key_reveals(),
    After.SHUFFLES: lambda cycle, _: cycle._shuffles(),
    After.OPEN_SHARED: lambda cycle, finished: cycle._open_shared(finished),
    After.ENGINE_NEXT: lambda cycle, _: cycle._next_in_hand(),
    After.END_HAND: lambda cycle, _: cycle._end_hand(),
}
