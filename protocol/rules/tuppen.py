"""Classic Tuppen (seed 003, first part): 2 to 8 players, penalty points, out at 10.

Piquet deck, 4 cards each, follow suit, the last trick wins. Knocking raises the stake; the
others call or fold. Extra rules (options): poverty, Tupp, Tupp attempt, dirty laundry, winning
the last trick with a jack. Decisions and the rule-by-rule mapping: ``spec/rules/tuppen.md``.
The checks of each move live in :mod:`tuppen_verify`; this module changes the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dealerless.protocol.cards import Card, Rank
from dealerless.protocol.rules.base import (
    Action,
    ActionKind,
    ChanceRequest,
    ConfigError,
    Deal,
    Event,
    GameConfig,
    HandResult,
    HandSlot,
    Outcome,
    Reveal,
    RulesError,
)
from dealerless.protocol.rules.hands import Hands
from dealerless.protocol.rules.reasons import GameEnd, HandEnd
from dealerless.protocol.rules.registry import GameSpec
from dealerless.protocol.rules.tuppen_exchange import (
    ATTEMPT_DRAW,
    LAUNDRY_DRAW,
    Laundry,
    attempt_actions,
    is_true_laundry,
)
from dealerless.protocol.rules.tuppen_options import OPTIONS
from dealerless.protocol.rules.tuppen_play import TrickPlay
from dealerless.protocol.rules.tuppen_stakes import (
    PENALTY_LIMIT,
    POOR_AT,
    POVERTY_STAKE,
    clockwise_after,
    settle,
    tupp_settlement,
)
from dealerless.protocol.rules.tuppen_state import (
    AbortRecord,
    ChanceRecord,
    HandStart,
    HandState,
    HistoryEntry,
    Pending,
    Phase,
    Purpose,
)
from dealerless.protocol.rules.tuppen_verify import TuppenVerifier

_NO_FIELDS = (
    ActionKind.KNOCK,
    ActionKind.CALL,
    ActionKind.FOLD,
    ActionKind.PASS,
    ActionKind.LAUNDRY,
    ActionKind.CHECK,
    ActionKind.ACCEPT,
    ActionKind.TUPP,
)


class TuppenEngine(TuppenVerifier):
    game = "tuppen"

    def __init__(self, config: GameConfig, *, first_dealer: int = 0) -> None:
        super().__init__(config, first_dealer=first_dealer)
        if not 2 <= self.players <= 8:
            raise ConfigError(f"tuppen is for 2 to 8 players, not {self.players}")
        self._h: HandState | None = None
        self._scores: list[int] = [0] * config.players
        self.history: list[HistoryEntry] = []

    # -- hands ---------------------------------------------------------------------------------
    @property
    def hand_running(self) -> bool:
        return self._h is not None and self._h.phase != Phase.OVER

    def in_game(self) -> list[int]:
        return [s for s in range(self.players) if self._scores[s] < PENALTY_LIMIT]

    def start_hand(self) -> list[Event]:
        if self.outcome is not None:
            raise RulesError("the game is over")
        if self.hand_running:
            raise RulesError(f"hand {self.hand_number} is still running")
        playing = self.in_game()
        self._hand_begins(
            self.dealer if self.dealer in playing else self._next_in_game(self.dealer)
        )
        order = clockwise_after(self.players, self.dealer, playing)
        hands = Hands(self.players)
        positions = hands.take_positions(4 * len(order))
        assignments = tuple((order[i % len(order)], p) for i, p in enumerate(positions))
        active = set(order)
        self._h = HandState(
            number=self.hand_number,
            start_scores=tuple(self._scores),
            in_hand=tuple(order),
            hands=hands,
            active=active,
            trick=TrickPlay(self.players, active, order[0]),
        )
        self._h.pending = Pending(Purpose.DEAL, Deal(assignments), seat=self.dealer)
        self.history.append(HandStart(self.hand_number))
        return [
            Event(
                "hand_start",
                self.dealer,
                {"hand": self.hand_number, "dealer": self.dealer, "seats": list(order)},
            )
        ]

    def _next_in_game(self, seat: int) -> int:
        playing = self.in_game() or list(range(self.players))
        return clockwise_after(self.players, seat, playing)[0]

    # -- chance --------------------------------------------------------------------------------
    def chance_request(self) -> ChanceRequest | None:
        if self._h is None or self._h.pending is None or not self.hand_running:
            return None
        return self._h.pending.request

    def apply_chance(self, cards: Sequence[Card | None]) -> list[Event]:
        h = self._running()
        given = tuple(cards)
        self.check_chance(given)
        p = h.pending
        assert p is not None
        self.history.append(ChanceRecord(p.request.positions, given))
        h.pending = None
        if p.purpose in (Purpose.DEAL, Purpose.DRAW):
            assert isinstance(p.request, Deal)
            for (seat, position), card in zip(p.request.assignments, given, strict=True):
                h.hands.receive(seat, [position], [card])
            if p.purpose == Purpose.DEAL:
                dealt = Event("dealt", None, {"positions": list(p.request.positions)})
                return [dealt, *self._after_deal()]
            events = [Event("drew", p.seat, {"positions": list(p.request.positions)})]
            return events + self._advance_exchange()
        known = [c for c in given if c is not None]
        if p.purpose == Purpose.REVEAL_TUPP:
            return self._tupp_shown(p, known)
        if p.purpose == Purpose.REVEAL_ATTEMPT:
            return self._attempt_shown(p, known)
        return self._laundry_shown(p, known)

    def _reveal(self, p: Pending, cards: list[Card]) -> list[HandSlot]:
        h = self._running()
        shown = h.hands.reveal(p.seat, list(p.slots), cards)
        for slot in shown:
            assert slot.card is not None
            h.revealed[slot.position] = slot.card
        return shown

    # -- after the deal ------------------------------------------------------------------------
    def _after_deal(self) -> list[Event]:
        h = self._running()
        if self.opt("poverty"):
            poor = tuple(s for s in h.in_hand if self._scores[s] == POOR_AT)
            if poor:
                h.poor = poor
                h.stake = POVERTY_STAKE
                others = [s for s in h.in_hand if s not in poor]
                event = Event("poverty", None, {"poor": list(poor), "stake": h.stake})
                if others:
                    h.phase = Phase.POVERTY
                    h.answer_queue = others
                    h.answer_kind = "poverty"
                    return [event]
                return [event, *self._start_exchange()]
        return self._start_exchange()

    def _start_exchange(self) -> list[Event]:
        h = self._running()
        if (self.opt("dirty_laundry") or self.opt("tupp_attempt")) and h.hands.stock_left > 0:
            h.phase = Phase.EXCHANGE
            h.exchange_queue = [s for s in h.in_hand if s in h.active]
            started = Event("exchange_round", None, {"stock": h.hands.stock_left})
            return [started, *self._advance_exchange()]
        return self._start_play()

    def _advance_exchange(self) -> list[Event]:
        h = self._running()
        h.phase = Phase.EXCHANGE
        while h.exchange_queue and not self.can_exchange(h.exchange_queue[0]):
            h.exchange_queue.pop(0)
        if h.exchange_queue:
            return []
        return self._start_play()

    def _start_play(self) -> list[Event]:
        h = self._running()
        h.phase = Phase.PLAY
        h.trick.leader = next(s for s in h.in_hand if s in h.active)
        return [Event("play_starts", h.trick.leader, {"stake": h.stake})]

    # -- actions -------------------------------------------------------------------------------
    def apply(self, action: Action) -> list[Event]:
        self.verify(action)
        h = self._running()
        self.history.append(action)
        seat, kind = action.seat, action.kind
        if kind == ActionKind.PLAY:
            return self._play(action)
        if kind == ActionKind.KNOCK:
            h.stake += 1
            h.last_knocker = seat
            h.answer_queue = clockwise_after(self.players, seat, h.active - {seat})
            h.answer_kind = "knock"
            return [Event("knock", seat, {"stake": h.stake})]
        if kind in (ActionKind.CALL, ActionKind.FOLD):
            h.answer_queue.pop(0)
            if kind == ActionKind.FOLD:
                h.fold_cost[seat] = h.stake - 1
                h.active.discard(seat)
            event = Event(kind.value, seat, {"stake": h.stake, "round": h.answer_kind})
            if h.answer_queue:
                return [event]
            return [event, *self._answers_done()]
        if kind == ActionKind.PASS:
            h.exchange_queue.pop(0)
            return [Event("pass", seat), *self._advance_exchange()]
        if kind == ActionKind.LAUNDRY:
            h.exchange_queue.pop(0)
            slots = h.hands.set_aside(seat)
            checkers = clockwise_after(self.players, seat, h.active - {seat})
            h.laundry = Laundry(seat, slots, checkers)
            h.phase = Phase.CHECK
            return [Event("laundry", seat, {"positions": [s.position for s in slots]})]
        if kind == ActionKind.CHECK:
            assert h.laundry is not None
            aside = tuple(h.laundry.slots)
            request = Reveal(h.laundry.declarer, tuple(s.position for s in aside), "laundry check")
            h.pending = Pending(
                Purpose.REVEAL_CHECK, request, h.laundry.declarer, slots=aside, checker=seat
            )
            return [Event("check", seat, {"declarer": h.laundry.declarer})]
        if kind == ActionKind.ACCEPT:
            assert h.laundry is not None
            h.laundry.checkers.pop(0)
            if h.laundry.checkers:
                return [Event("accept", seat)]
            declarer = h.laundry.declarer
            h.discards.extend(s.position for s in h.laundry.slots)
            h.laundry = None
            h.phase = Phase.EXCHANGE
            self._draw(declarer, LAUNDRY_DRAW)
            return [Event("accept", seat), Event("laundry_stands", declarer)]
        if kind == ActionKind.TUPP_ATTEMPT:
            h.exchange_queue.pop(0)
            h.attempted.add(seat)
            shown = tuple(s for s in h.hands.slots[seat] if s.position != action.position)
            request = Reveal(seat, tuple(s.position for s in shown), "tupp attempt")
            h.pending = Pending(
                Purpose.REVEAL_ATTEMPT,
                request,
                seat,
                claim=action.cards,
                slots=shown,
                discard=action.position,
            )
            return [Event("tupp_attempt", seat, {"cards": [c.index for c in action.cards]})]
        assert kind == ActionKind.TUPP
        held = tuple(h.hands.slots[seat])
        request = Reveal(seat, tuple(s.position for s in held), "tupp claim")
        h.pending = Pending(Purpose.REVEAL_TUPP, request, seat, slots=held)
        return [Event("tupp_claim", seat)]

    def _draw(self, seat: int, count: int) -> None:
        h = self._running()
        positions = h.hands.take_positions(count)
        h.pending = Pending(Purpose.DRAW, Deal(tuple((seat, p) for p in positions)), seat)

    def _play(self, action: Action) -> list[Event]:
        h = self._running()
        assert action.card is not None
        slot = h.hands.remove(action.seat, action.card, action.position)
        h.played.add(action.seat)
        events = [
            Event("play", action.seat, {"card": action.card.index, "position": slot.position})
        ]
        done = h.trick.play(action.seat, action.card)
        if done is not None:
            events.append(Event("trick", done.winner, {"number": len(h.trick.completed)}))
            if h.trick.finished:
                events += self._end_by_last_trick()
        return events

    def _answers_done(self) -> list[Event]:
        h = self._running()
        kind, h.answer_kind = h.answer_kind, ""
        if len(h.active) == 1:
            winner = next(iter(h.active))
            return self._settle(winner, "all others folded", HandEnd.ALL_FOLDED)
        if kind == "poverty":
            return self._start_exchange()
        done = h.trick.close_trick()
        if done is None:
            return []
        events = [Event("trick", done.winner, {"number": len(h.trick.completed)})]
        if h.trick.finished:
            events += self._end_by_last_trick()
        return events

    # -- revealed claims -----------------------------------------------------------------------
    def _tupp_shown(self, p: Pending, cards: list[Card]) -> list[Event]:
        h = self._running()
        self._reveal(p, cards)
        points = tupp_settlement(h.in_hand, p.seat)
        for seat, pts in points.items():
            self._scores[seat] += pts
        shown = Event("tupp", p.seat, {"cards": [c.index for c in cards]})
        details = {"cards": [c.index for c in cards]}
        return [shown, *self._finish((p.seat,), "tupp", details, HandEnd.TUPP)]

    def _attempt_shown(self, p: Pending, cards: list[Card]) -> list[Event]:
        h = self._running()
        shown = {s.position: s for s in self._reveal(p, cards)}
        hand = h.hands.slots[p.seat]
        h.hands.slots[p.seat] = [shown.get(s.position, s) for s in hand if s.position != p.discard]
        assert p.discard is not None
        h.discards.append(p.discard)
        self._draw(p.seat, ATTEMPT_DRAW)
        return [Event("tupp_attempt_shown", p.seat, {"cards": [c.index for c in cards]})]

    def _laundry_shown(self, p: Pending, cards: list[Card]) -> list[Event]:
        h = self._running()
        shown = self._reveal(p, cards)
        h.laundry = None
        h.phase = Phase.EXCHANGE
        data = {"cards": [c.index for c in cards], "checker": p.checker}
        if is_true_laundry(cards):
            assert p.checker is not None
            self._scores[p.checker] += 1
            h.discards.extend(s.position for s in shown)
            self._draw(p.seat, LAUNDRY_DRAW)
            return [Event("laundry_true", p.seat, data)]
        self._scores[p.seat] += 1
        h.hands.restore(p.seat, shown)
        return [Event("laundry_bluff", p.seat, data), *self._advance_exchange()]

    # -- the end of a hand ---------------------------------------------------------------------
    def _end_by_last_trick(self) -> list[Event]:
        h = self._running()
        last = h.trick.completed[-1]
        card = next(c for s, c in last.plays if s == last.winner)
        events = self._settle(last.winner, "last trick", HandEnd.LAST_TRICK, card)
        return events

    def _settle(
        self, winner: int, reason: str, code: HandEnd, card: Card | None = None
    ) -> list[Event]:
        h = self._running()
        for seat, pts in settle(h.in_hand, winner, h.stake, h.fold_cost).items():
            self._scores[seat] += pts
        details: dict[str, Any] = {"stake": h.stake}
        if card is not None:
            details["card"] = card.index
            # A seat that reached the limit during the hand (a laundry point) is out: the
            # jack does not bring it back (seed 003; spec/rules/tuppen.md decision 4).
            score = self._scores[winner]
            if self.opt("jack_win") and card.rank == Rank.JACK and 0 < score < PENALTY_LIMIT:
                self._scores[winner] -= 1
                details["jack_win"] = True
        return self._finish((winner,), reason, details, code)

    def _finish(
        self,
        winners: tuple[int, ...],
        reason: str,
        details: dict[str, Any],
        code: HandEnd,
        note: str = "",
    ) -> list[Event]:
        h = self._running()
        h.phase = Phase.OVER
        h.pending = None
        h.answer_queue = []
        deltas = tuple(self._scores[s] - h.start_scores[s] for s in range(self.players))
        result = HandResult(self.hand_number, winners, deltas, reason, details, code, note)
        self._hand_settled(result)
        if winners and self._scores[winners[0]] < PENALTY_LIMIT:
            self._deals_next(winners[0])
        else:
            self._deals_next(self._next_in_game(self.dealer))
        data = {"reason": reason, "deltas": list(deltas)}
        events = [Event("hand_end", winners[0] if winners else None, data)]
        playing = self.in_game()
        if len(playing) == 1:
            self._game_settled(
                Outcome(
                    tuple(playing),
                    tuple(self._scores),
                    "one player left under 10",
                    GameEnd.ONE_LEFT,
                )
            )
            events.append(Event("game_over", playing[0], {"winners": playing}))
        elif not playing:
            # Nobody is left under 10 (only a dirty-laundry check point in the last hand can do
            # it): the seats of that hand with the fewest points win; a seat that was out
            # before it never does (spec/rules/tuppen.md S15).
            last = [s for s in range(self.players) if h.start_scores[s] < PENALTY_LIMIT]
            low = min(self._scores[s] for s in last)
            best = [s for s in last if self._scores[s] == low]
            self._game_settled(
                Outcome(
                    tuple(best),
                    tuple(self._scores),
                    "nobody left under 10: the fewest points of the last hand win",
                    GameEnd.NONE_LEFT,
                )
            )
            events.append(Event("game_over", best[0], {"winners": best}))
        return events

    # -- faults --------------------------------------------------------------------------------
    def timeout_action(self, seat: int) -> Action | None:
        h = self._h
        if h is None or not self.hand_running or h.pending is not None:
            return None
        if h.answer_queue and h.answer_queue[0] == seat:
            return Action(ActionKind.FOLD, seat)
        if h.phase == Phase.EXCHANGE and h.exchange_queue and h.exchange_queue[0] == seat:
            return Action(ActionKind.PASS, seat)
        if h.phase == Phase.CHECK and h.laundry and h.laundry.checkers[0] == seat:
            return Action(ActionKind.ACCEPT, seat)
        return None

    def abort_hand(self, culprit: int | None, reason: str) -> HandResult:
        """Void the hand: every score goes back to where it stood at the start of the hand;
        then the culprit (if any) gets the current stake (at least 1). The dealer passes to the
        next seat still in the game."""
        h = self._running()
        if culprit is not None and not 0 <= culprit < self.players:
            raise RulesError(f"culprit {culprit} is not a seat")
        self.history.append(AbortRecord(culprit, reason))
        self._scores = list(h.start_scores)
        details: dict[str, Any] = {"culprit": culprit}
        if culprit is not None:
            self._scores[culprit] += max(h.stake, 1)
        self._finish((), f"aborted: {reason}", details, HandEnd.VOIDED, reason)
        assert self.hand_result is not None
        return self.hand_result

    # -- listing moves -------------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        h = self._h
        if h is None or not self.hand_running or h.pending is not None:
            return []
        candidates = [
            Action(ActionKind.PLAY, seat, card=s.card, position=s.position)
            for s in h.hands.slots[seat]
            if s.card is not None
        ]
        candidates += [Action(kind, seat) for kind in _NO_FIELDS]
        candidates += attempt_actions(seat, h.hands.slots[seat])
        return [a for a in candidates if self.can(a)]


SPECS: dict[str, GameSpec] = {
    "tuppen": GameSpec(
        name="tuppen",
        title="Tuppen (classic, penalty points)",
        min_players=2,
        max_players=8,
        score_kind="penalty points",
        options=OPTIONS,
        factory=lambda config, first_dealer: TuppenEngine(config, first_dealer=first_dealer),
        seeds="003 (first part: classic Tuppen and its extra rules)",
        summary=(
            "Four cards, follow suit, the last trick wins; losers get penalty points, out at 10; "
            "knock to raise the stake; poverty, Tupp, Tupp attempt, dirty laundry, jack win."
        ),
    )
}
