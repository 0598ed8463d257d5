"""The dirty-laundry exchange and check rounds of the Limit Tuppen engine (a base of
:class:`~dealerless.protocol.rules.limit.LimitEngine`; the rules are in limit_laundry), plus
the small helpers both share (seat order, error position). The engine owns its phase, its
pending chance step and its hands: these methods read them and return what they become."""

from __future__ import annotations

from collections.abc import Sequence

from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import (
    Action,
    ActionKind,
    ChanceRequest,
    Deal,
    Event,
    IllegalAction,
    Reveal,
)
from dealerless.protocol.rules.hands import Hands
from dealerless.protocol.rules.limit_betting import Betting
from dealerless.protocol.rules.limit_laundry import LAUNDRY_PENALTY, Laundry, is_dirty_laundry
from dealerless.protocol.rules.limit_modes import Bankroll
from dealerless.protocol.rules.tuppen_play import TrickPlay

CARDS_PER_HAND = 4
K = ActionKind


class ExchangeFlow:
    players: int
    hand_number: int
    phase: str
    hands: Hands
    bank: Bankroll
    betting: Betting
    laundry: Laundry
    trick: TrickPlay
    active: set[int]
    pending: ChanceRequest | None

    # ---- shared helpers -----------------------------------------------------------------------
    def _from_left_of(self, seat: int, seats: set[int] | None = None) -> list[int]:
        """Seats (default: active ones) in clockwise order starting at ``seat``'s left."""
        pool = self.active if seats is None else seats
        return [
            (seat + i) % self.players
            for i in range(1, self.players + 1)
            if (seat + i) % self.players in pool
        ]

    def _where(self) -> str:
        text = f"hand {self.hand_number}, {self.phase}"
        if self.phase == "play":
            text += f", trick {self.trick.trick_number}"
        return text

    def _fail(self, reason: str, seat: int | None) -> IllegalAction:
        return IllegalAction(reason, seat=seat, where=self._where())

    # ---- exchange round -----------------------------------------------------------------------
    def _may_declare(self, seat: int, hands: Hands) -> bool:
        return (
            self.bank.stacks[seat] >= LAUNDRY_PENALTY
            and hands.stock_left >= CARDS_PER_HAND
            and hands.count(seat) == CARDS_PER_HAND
        )

    def _advance_exchange(self, hands: Hands) -> str:
        """Go on to the next seat that can declare with ``hands`` (skipping seats that cannot):
        the exchange phase, else play."""
        lau = self.laundry
        while lau.deciding is not None and not self._may_declare(lau.deciding, hands):
            lau.index += 1
        return "exchange" if lau.deciding is not None else "play"

    def _open_checks(self, hands: Hands) -> str:
        """After the draw: the other active seats that can pay a penalty may check (the check
        phase), else the exchange goes on."""
        declarer = self.laundry.declarer
        assert declarer is not None
        self.laundry.checkers = [
            s
            for s in self._from_left_of(declarer)
            if s != declarer and self.bank.stacks[s] >= LAUNDRY_PENALTY
        ]
        if self.laundry.checkers:
            return "check"
        self.laundry.finish_declaration({"seat": declarer, "checked_by": None})
        return self._advance_exchange(hands)

    def _verify_exchange(self, action: Action) -> bool:
        """Check an action of the exchange or check round; False in other phases."""
        seat, kind = action.seat, action.kind
        if self.phase == "exchange":
            if kind not in (K.LAUNDRY, K.PASS):
                raise self._fail(f"{kind.value} is not possible in the exchange round", seat)
            if self.laundry.deciding != seat:
                raise self._fail(f"not your turn, seat {self.laundry.deciding} decides", seat)
            return True
        if self.phase == "check":
            if kind not in (K.CHECK, K.ACCEPT):
                raise self._fail(
                    f"{kind.value} is not possible: check or accept the "
                    f"dirty laundry of seat {self.laundry.declarer}",
                    seat,
                )
            if self.laundry.checkers[0] != seat:
                raise self._fail(f"not your turn, seat {self.laundry.checkers[0]} answers", seat)
            return True
        return False

    def _apply_exchange(self, action: Action) -> tuple[list[Event], str, ChanceRequest | None]:
        """Perform a checked LAUNDRY, PASS, CHECK or ACCEPT: its events, the phase after it
        and the chance step it asks for (or None)."""
        seat, kind = action.seat, action.kind
        lau = self.laundry
        if kind == K.PASS:
            lau.index += 1
            return [Event("pass", seat)], self._advance_exchange(self.hands), None
        if kind == K.LAUNDRY:
            lau.declarer = seat
            lau.set_aside = self.hands.set_aside(seat)
            positions = self.hands.take_positions(CARDS_PER_HAND)
            event = Event("laundry", seat, {"set_aside": [s.position for s in lau.set_aside]})
            return [event], "draw", Deal(tuple((seat, p) for p in positions))
        if kind == K.ACCEPT:
            lau.checkers.pop(0)
            phase = self.phase
            if not lau.checkers:
                lau.finish_declaration({"seat": lau.declarer, "checked_by": None})
                phase = self._advance_exchange(self.hands)
            return [Event("accept", seat)], phase, None
        assert kind == K.CHECK and lau.declarer is not None
        lau.checker = seat
        positions = tuple(s.position for s in lau.set_aside)
        reveal = Reveal(lau.declarer, positions, "dirty laundry check")
        return [Event("check", seat, {"declarer": lau.declarer})], "reveal", reveal

    def _apply_reveal(
        self, request: Reveal, hands: Hands, cards: Sequence[Card | None]
    ) -> tuple[list[Event], str]:
        """The checked declarer's discarded cards are shown; ``hands`` is a working copy that
        replaces the engine's only when the reveal is consistent (atomic apply: nothing is
        changed when this raises). The events and the phase after it."""
        declarer = request.seat
        if any(c is None for c in cards):
            raise self._fail("a reveal must show every card", declarer)
        shown = [c for c in cards if c is not None]
        try:
            revealed = hands.reveal(declarer, self.laundry.set_aside, shown)
        except IllegalAction as e:  # a contradiction is the declarer's violation
            raise self._fail(e.reason, declarer) from None
        checker = self.laundry.checker
        assert checker is not None
        true = is_dirty_laundry(shown)
        payer = checker if true else declarer
        self.betting.pay(payer, LAUNDRY_PENALTY)
        if not true:  # the bluffer keeps its original cards; the drawn ones are put away
            hands.set_aside(declarer)
            hands.restore(declarer, revealed)
        record = {
            "seat": declarer,
            "checked_by": checker,
            "cards": [c.index for c in shown],
            "true": true,
            "paid_by": payer,
        }
        self.laundry.finish_declaration(record)
        return [Event("laundry_checked", declarer, record)], self._advance_exchange(hands)
