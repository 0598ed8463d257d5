"""What a classic Tuppen engine shows and checks: whose turn it is, whether a move or a chance
outcome is legal (with the precise reason), and the public state. :mod:`tuppen` applies moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import (
    Action,
    ActionKind,
    Engine,
    HandSlot,
    IllegalAction,
    Reveal,
    RulesError,
)
from dealerless.protocol.rules.tuppen_exchange import (
    ATTEMPT_DRAW,
    LAUNDRY_DRAW,
    is_tupp,
    same_rank,
)
from dealerless.protocol.rules.tuppen_stakes import knock_cap
from dealerless.protocol.rules.tuppen_state import HandState, Phase, Purpose

_CLAIM_PHASES = (Phase.POVERTY, Phase.EXCHANGE, Phase.CHECK, Phase.PLAY)


class TuppenVerifier(Engine):
    """The read-only half of the classic Tuppen engine: it reads the state that
    :class:`~dealerless.protocol.rules.tuppen.TuppenEngine` owns and changes."""

    _h: HandState | None  # the running (or last) hand
    _scores: list[int]  # every seat's points

    def opt(self, name: str) -> bool:
        return self.config.bool_option(name)

    def _running(self) -> HandState:
        h = self._h
        if h is None or h.phase == Phase.OVER:
            raise RulesError("no hand is running")
        return h

    def _where(self) -> str:
        h = self._h
        if h is None:
            return "no hand"
        text = f"hand {h.number}, {h.phase.value} phase"
        if h.phase == Phase.PLAY:
            text += f", trick {min(h.trick.trick_number, 4)}"
        if h.answer_kind:
            text += f", answering the {h.answer_kind}"
        return text

    def _illegal(self, reason: str, seat: int | None) -> IllegalAction:
        return IllegalAction(reason, seat=seat, where=self._where())

    # -- whose move ----------------------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        h = self._h
        if h is None or h.phase == Phase.OVER or h.pending is not None:
            return ()
        if h.answer_queue:
            return (h.answer_queue[0],)
        if h.phase == Phase.EXCHANGE and h.exchange_queue:
            return (h.exchange_queue[0],)
        if h.phase == Phase.CHECK and h.laundry is not None:
            return (h.laundry.checkers[0],)
        if h.phase == Phase.PLAY:
            seat = h.trick.next_to_play()
            return () if seat is None else (seat,)
        return ()

    def may_act(self) -> tuple[int, ...]:
        """:meth:`to_act` plus every seat that may knock now or could claim Tupp (judged on
        public information only, so every viewer gives the same answer)."""
        seats = set(self.to_act())
        h = self._h
        if h is not None and h.phase != Phase.OVER and h.pending is None:
            for seat in h.active:
                if self._knock_problem(h, seat) is None or self._tupp_problem(h, seat) is None:
                    seats.add(seat)
        return tuple(sorted(seats))

    def can_exchange(self, seat: int) -> bool:
        """Whether dirty laundry or a Tupp attempt is still possible for the seat (public)."""
        h = self._running()
        stock = h.hands.stock_left
        laundry = self.opt("dirty_laundry") and stock >= LAUNDRY_DRAW
        attempt = self.opt("tupp_attempt") and stock >= ATTEMPT_DRAW and seat not in h.attempted
        return laundry or attempt

    # -- checking moves ------------------------------------------------------------------------
    def verify(self, action: Action) -> None:
        h = self._h
        seat = action.seat
        if h is None or h.phase == Phase.OVER:
            raise IllegalAction("no hand is running", seat=seat, where=self._where())
        if not 0 <= seat < self.players:
            raise self._illegal(f"there is no seat {seat}", None)
        self._check_fields(action)
        if h.pending is not None:
            raise self._illegal(f"waiting for the {h.pending.purpose.value} chance step", seat)
        if seat not in h.in_hand:
            raise self._illegal("this seat is out of the game and not dealt in", seat)
        problem = self._problem(h, action)
        if problem is not None:
            raise self._illegal(problem, seat)

    def _check_fields(self, action: Action) -> None:
        kind = action.kind
        extra = []
        if action.amount is not None:
            extra.append("amount")
        if action.suit is not None:
            extra.append("suit")
        if kind == ActionKind.PLAY:
            if action.card is None:
                raise self._illegal("a play must name the card", action.seat)
            if action.cards:
                extra.append("cards")
        elif kind == ActionKind.TUPP_ATTEMPT:
            if action.card is not None:
                extra.append("card (the fourth card is discarded face down: give its position)")
        else:
            if action.card is not None:
                extra.append("card")
            if action.cards:
                extra.append("cards")
            if action.position is not None:
                extra.append("position")
        if extra:
            raise self._illegal(f"{kind.value} takes no {', '.join(extra)}", action.seat)

    def _problem(self, h: HandState, action: Action) -> str | None:
        seat, kind = action.seat, action.kind
        if kind == ActionKind.KNOCK:
            return self._knock_problem(h, seat)
        if kind == ActionKind.TUPP:
            return self._tupp_problem(h, seat, check_cards=True)
        if kind in (ActionKind.CALL, ActionKind.FOLD):
            if not h.answer_queue:
                return f"there is nothing to answer; {kind.value} only answers a knock or poverty"
            if h.answer_queue[0] != seat:
                return f"seat {h.answer_queue[0]} answers first"
            return None
        if kind in (ActionKind.CHECK, ActionKind.ACCEPT):
            if h.phase != Phase.CHECK or h.laundry is None:
                return f"{kind.value} only answers a dirty-laundry declaration"
            if h.laundry.checkers[0] != seat:
                return f"seat {h.laundry.checkers[0]} decides first whether to check"
            return None
        if kind in (ActionKind.PASS, ActionKind.LAUNDRY, ActionKind.TUPP_ATTEMPT):
            if kind == ActionKind.TUPP_ATTEMPT and seat in h.attempted:
                return "only one Tupp attempt per hand"
            if h.phase != Phase.EXCHANGE or not h.exchange_queue:
                return f"{kind.value} is only allowed in the exchange round"
            if h.exchange_queue[0] != seat:
                return f"seat {h.exchange_queue[0]} exchanges first"
            if kind == ActionKind.LAUNDRY:
                return self._laundry_problem(h)
            if kind == ActionKind.TUPP_ATTEMPT:
                return self._attempt_problem(h, action)
            return None
        if kind == ActionKind.PLAY:
            return self._play_problem(h, action)
        return f"{kind.value} is not a move of classic Tuppen"

    def _knock_problem(self, h: HandState, seat: int) -> str | None:
        if h.phase != Phase.PLAY:
            return "knocking is only allowed in the play phase"
        if h.answer_queue:
            return f"seat {h.answer_queue[0]} must first answer the last knock"
        if seat not in h.active:
            return "a seat that folded cannot knock"
        if h.last_knocker == seat:
            return "nobody may knock twice in a row"
        cap = knock_cap(self._scores, h.active)
        if h.stake + 1 > cap:
            top = max(h.active, key=lambda s: self._scores[s])
            return (
                f"a knock to stake {h.stake + 1} could take seat {top} "
                f"({self._scores[top]} points) past 10; the highest stake now is {cap}"
            )
        return None

    def _tupp_problem(self, h: HandState, seat: int, check_cards: bool = False) -> str | None:
        if not self.opt("tupp") and not (self.opt("tupp_attempt") and seat in h.attempted):
            return (
                "Tupp is not played (only after a Tupp attempt)"
                if self.opt("tupp_attempt")
                else "Tupp is not played at this table"
            )
        if h.phase not in _CLAIM_PHASES:
            return "Tupp can only be claimed once the cards are dealt"
        if seat not in h.active:
            return "a seat that folded cannot claim Tupp"
        if seat in h.played:
            return "Tupp must be claimed before playing a card"
        if h.hands.count(seat) != 4:
            return f"Tupp needs four cards in hand, not {h.hands.count(seat)}"
        if check_cards and not h.hands.is_hidden(seat):
            cards = h.hands.known(seat)
            if not is_tupp(cards):
                return f"{' '.join(map(str, sorted(cards)))} is not four of a kind"
        return None

    def _laundry_problem(self, h: HandState) -> str | None:
        if not self.opt("dirty_laundry"):
            return "dirty laundry is not played at this table"
        if h.hands.stock_left < LAUNDRY_DRAW:
            return f"dirty laundry needs 4 cards in the stock, it has {h.hands.stock_left}"
        return None

    def _attempt_problem(self, h: HandState, action: Action) -> str | None:
        seat = action.seat
        if not self.opt("tupp_attempt"):
            return "the Tupp attempt is not played at this table"
        if h.hands.stock_left < ATTEMPT_DRAW:
            return "the stock is empty"
        claim = action.cards
        if len(claim) != 3 or len(set(claim)) != 3:
            return "a Tupp attempt shows three different cards"
        if not same_rank(claim):
            return f"{' '.join(map(str, claim))} is not three of a kind (no bluffing)"
        hand = h.hands.slots[seat]
        fourth = [s for s in hand if s.position == action.position]
        if action.position is None or not fourth:
            return "name the deck position of the fourth card (the one exchanged)"
        if len(hand) != 4:
            return f"a Tupp attempt needs four cards in hand, not {len(hand)}"
        if fourth[0].card is not None and fourth[0].card.rank == claim[0].rank:
            return "that is four of a kind already: claim Tupp"
        rest = [s for s in hand if s.position != action.position]
        known = [s.card for s in rest if s.card is not None]
        for card in known:
            if card not in claim:
                return f"the hand holds {card}, which is not among {' '.join(map(str, claim))}"
        for card in claim:
            if card not in known and card in h.hands.seen:
                return f"{card} is not in the hand (it was already seen)"
        return None

    def _play_problem(self, h: HandState, action: Action) -> str | None:
        seat, card = action.seat, action.card
        assert card is not None
        if h.phase != Phase.PLAY:
            return f"cards are played only in the play phase, not the {h.phase.value} phase"
        if h.answer_queue:
            return f"seat {h.answer_queue[0]} must first answer the knock"
        if seat not in h.active:
            return "a seat that folded plays no more cards"
        hidden = h.hands.is_hidden(seat)
        try:
            h.trick.check_play(seat, card, None if hidden else h.hands.known(seat))
            if hidden and action.position is None and card not in h.hands.known(seat):
                return "a play from a hand this viewer cannot see must give the deck position"
            h.hands.find(seat, card, action.position)
        except IllegalAction as exc:
            return exc.reason
        led = h.trick.led_suit
        if hidden and led is not None and card.suit != led:
            following = [c for c in h.hands.known(seat) if c.suit == led]
            if following:
                return f"must follow suit {led.name.lower()} ({following[0]} is known), not {card}"
        return None

    def forbidden_cards(self, action: Action) -> frozenset[Card]:
        """For a PLAY (ask before applying it): every card of the led suit when the card does
        not follow suit; otherwise nothing."""
        h = self._h
        if action.kind != ActionKind.PLAY or action.card is None or h is None:
            return frozenset()
        if h.phase != Phase.PLAY:
            return frozenset()
        return h.trick.forbidden(action.card)

    # -- checking chance outcomes --------------------------------------------------------------
    def check_chance(self, cards: Sequence[Card | None]) -> None:
        """Raise IllegalAction if ``cards`` cannot fulfil the pending chance step. A reveal
        that contradicts a claim names the claimant seat."""
        h = self._running()
        p = h.pending
        if p is None:
            raise self._illegal("no chance step is pending", None)
        request = p.request
        if len(cards) != len(request.positions):
            raise self._illegal(
                f"{len(request.positions)} cards expected, {len(cards)} given", None
            )
        for c in cards:
            if c is not None and not isinstance(c, Card):
                raise self._illegal(f"not a card: {c!r}", None)
        known = [c for c in cards if c is not None]
        if len(set(known)) != len(known):
            raise self._illegal("the same card appears twice", None)
        if not isinstance(request, Reveal):
            for c in known:
                if c in h.hands.seen:
                    raise self._illegal(f"card {c} was already seen this hand", None)
            return
        self._check_reveal(h, p.seat, p.slots, cards)
        shown = [c for c in cards if c is not None]
        if p.purpose == Purpose.REVEAL_ATTEMPT and sorted(shown) != sorted(p.claim):
            raise self._illegal(
                f"Tupp attempt claimed {' '.join(map(str, sorted(p.claim)))} but the cards are "
                f"{' '.join(map(str, sorted(shown)))}",
                p.seat,
            )
        if p.purpose == Purpose.REVEAL_TUPP and not is_tupp(shown):
            raise self._illegal(
                f"false Tupp claim: {' '.join(map(str, sorted(shown)))} is not four of a kind",
                p.seat,
            )

    def _check_reveal(
        self, h: HandState, seat: int, slots: Sequence[HandSlot], cards: Sequence[Card | None]
    ) -> None:
        for slot, card in zip(slots, cards, strict=True):
            if card is None:
                raise self._illegal("a reveal must show every card", seat)
            if slot.card is not None and slot.card != card:
                raise self._illegal(
                    f"deck position {slot.position} holds {slot.card}, not {card}", seat
                )
            if slot.card is None and card in h.hands.seen:
                raise self._illegal(f"{card} was already seen elsewhere this hand", seat)

    # -- what this viewer sees -----------------------------------------------------------------
    def hand(self, seat: int) -> tuple[HandSlot, ...]:
        if self._h is None:
            return ()
        return tuple(self._h.hands.slots[seat])

    def scores(self) -> tuple[int, ...]:
        return tuple(self._scores)

    def stake(self) -> int:
        return self._h.stake if self._h is not None else 1

    def public_state(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            "game": self.game,
            "players": self.players,
            "options": dict(self.config.options),
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "scores": list(self._scores),
            "results": [
                {
                    "hand": r.hand_number,
                    "winners": list(r.winners),
                    "deltas": list(r.deltas),
                    "reason": r.reason,
                }
                for r in self.results
            ],
            "outcome": None
            if self.outcome is None
            else {"winners": list(self.outcome.winners), "reason": self.outcome.reason},
        }
        h = self._h
        if h is None:
            return state
        state["hand"] = {
            "phase": h.phase.value,
            "in_hand": list(h.in_hand),
            "active": sorted(h.active),
            "stake": h.stake,
            "last_knocker": h.last_knocker,
            "folded": sorted([s, c] for s, c in h.fold_cost.items()),
            "answer_queue": list(h.answer_queue),
            "answer_kind": h.answer_kind,
            "poor": list(h.poor),
            "exchange_queue": list(h.exchange_queue),
            "laundry": None if h.laundry is None else h.laundry.public_state(),
            "attempted": sorted(h.attempted),
            "played": sorted(h.played),
            "revealed": sorted([p, c.index] for p, c in h.revealed.items()),
            "discards": list(h.discards),
            "stock_next": h.hands.next_position,
            "holding": [
                [
                    [s.position, h.revealed[s.position].index if s.position in h.revealed else None]
                    for s in slots
                ]
                for slots in h.hands.slots
            ],
            "pending": None if h.pending is None else h.pending.public_state(),
            "trick": h.trick.public_state(),
        }
        return state
