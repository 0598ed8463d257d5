"""The dirty-laundry exchange and check rounds of the Limit Tuppen engine (a mixin of
:class:`~dealerless.protocol.rules.limit.LimitEngine`; the rules are in limit_laundry), plus
the small helpers both share (seat order, error position)."""

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
    def _may_declare(self, seat: int) -> bool:
        return (
            self.bank.stacks[seat] >= LAUNDRY_PENALTY
            and self.hands.stock_left >= CARDS_PER_HAND
            and self.hands.count(seat) == CARDS_PER_HAND
        )

    def _advance_exchange(self) -> None:
        """Go to the next seat that can declare (skipping seats that cannot), else to play."""
        lau = self.laundry
        while lau.deciding is not None and not self._may_declare(lau.deciding):
            lau.index += 1
        self.phase = "exchange" if lau.deciding is not None else "play"

    def _open_checks(self) -> None:
        """After the draw: the other active seats that can pay a penalty may check."""
        declarer = self.laundry.declarer
        assert declarer is not None
        self.laundry.checkers = [
            s
            for s in self._from_left_of(declarer)
            if s != declarer and self.bank.stacks[s] >= LAUNDRY_PENALTY
        ]
        self.phase = "check"
        if not self.laundry.checkers:
            self.laundry.finish_declaration({"seat": declarer, "checked_by": None})
            self._advance_exchange()

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

    def _apply_exchange(self, action: Action) -> list[Event]:
        """Perform a checked LAUNDRY, PASS, CHECK or ACCEPT."""
        seat, kind = action.seat, action.kind
        lau = self.laundry
        if kind == K.PASS:
            lau.index += 1
            self._advance_exchange()
            return [Event("pass", seat)]
        if kind == K.LAUNDRY:
            lau.declarer = seat
            lau.set_aside = self.hands.set_aside(seat)
            positions = self.hands.take_positions(CARDS_PER_HAND)
            self.pending = Deal(tuple((seat, p) for p in positions))
            self.phase = "draw"
            return [Event("laundry", seat, {"set_aside": [s.position for s in lau.set_aside]})]
        if kind == K.ACCEPT:
            lau.checkers.pop(0)
            if not lau.checkers:
                lau.finish_declaration({"seat": lau.declarer, "checked_by": None})
                self._advance_exchange()
            return [Event("accept", seat)]
        assert kind == K.CHECK and lau.declarer is not None
        lau.checker = seat
        self.pending = Reveal(
            lau.declarer, tuple(s.position for s in lau.set_aside), "dirty laundry check"
        )
        self.phase = "reveal"
        return [Event("check", seat, {"declarer": lau.declarer})]

    def _apply_reveal(
        self, request: Reveal, hands: Hands, cards: Sequence[Card | None]
    ) -> list[Event]:
        """The checked declarer's discarded cards are shown; ``hands`` is a working copy that
        replaces the engine's only when the reveal is consistent (atomic apply)."""
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
        self.hands = hands
        self.pending = None
        true = is_dirty_laundry(shown)
        payer = checker if true else declarer
        self.betting.pay(payer, LAUNDRY_PENALTY)
        if not true:  # the bluffer keeps its original cards; the drawn ones are put away
            self.hands.set_aside(declarer)
            self.hands.restore(declarer, revealed)
        record = {
            "seat": declarer,
            "checked_by": checker,
            "cards": [c.index for c in shown],
            "true": true,
            "paid_by": payer,
        }
        self.laundry.finish_declaration(record)
        self._advance_exchange()
        return [Event("laundry_checked", declarer, record)]
