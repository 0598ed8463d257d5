"""Limit Tuppen / Limit toepen and its No Limit and Pot Limit variants (seeds 000, 001; the
general rules from classic Tuppen, seed 003). The decisions are in spec/rules/limit-tuppen.md.

A hand: antes, a deal of four cards each (one at a time from the dealer's left), optionally a
dirty-laundry exchange round (limit_laundry), then four tricks (tuppen_play). During the tricks
a seat may knock (bet) before it plays its card to the current trick; the other active seats
answer in order from the knocker's left: CALL, FOLD or RAISE (limit_betting). The last active
seat, or the winner of the last trick, takes the pot. Between hands limit_modes refills stacks
(play-money), rebuys (cash) or knocks seats out (tournament).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import (
    Action,
    ActionKind,
    ChanceRequest,
    ConfigError,
    Deal,
    Engine,
    Event,
    GameConfig,
    HandResult,
    HandSlot,
    HistoryStep,
    IllegalAction,
    Outcome,
    Reveal,
    apply_history_step,
)
from dealerless.protocol.rules.hands import Hands
from dealerless.protocol.rules.limit_betting import Betting
from dealerless.protocol.rules.limit_exchange import CARDS_PER_HAND, ExchangeFlow
from dealerless.protocol.rules.limit_laundry import Laundry
from dealerless.protocol.rules.limit_modes import OPTIONS, Bankroll, check_config
from dealerless.protocol.rules.reasons import GameEnd, HandEnd
from dealerless.protocol.rules.registry import GameSpec
from dealerless.protocol.rules.tuppen_play import CompletedTrick, TrickPlay

K = ActionKind


class LimitEngine(ExchangeFlow, Engine):
    game = "limit-tuppen"

    def __init__(self, config: GameConfig, *, first_dealer: int = 0) -> None:
        super().__init__(config, first_dealer=first_dealer)
        check_config(config)
        self.variant = {
            "limit-tuppen": "limit",
            "no-limit-tuppen": "no-limit",
            "pot-limit-tuppen": "pot-limit",
        }.get(config.game, "")
        if not self.variant:
            raise ConfigError(f"{config.game} is not a Limit Tuppen game")
        self.any_time = config.str_option("knock_timing") == "any-time"
        self.bank = Bankroll(config)
        self.history: list[HistoryStep] = []
        self.phase = "idle"  # idle, deal, exchange, draw, check, reveal, play, over
        self.hands = Hands(self.players)
        self.betting = Betting(self.players, self.variant, self.bank.stacks)
        self.active: set[int] = set()
        self.trick = TrickPlay(self.players, self.active, 0)
        self.laundry = Laundry([])
        self.pending: ChanceRequest | None = None
        self.ante_paid: list[int] = [0] * self.players

    # ---- hands --------------------------------------------------------------------------------
    @property
    def hand_running(self) -> bool:
        return self.phase not in ("idle", "over")

    def in_game(self) -> list[int]:
        return [s for s in range(self.players) if self.bank.in_game(s)]

    def start_hand(self) -> list[Event]:
        if self.hand_running:
            raise self._fail("a hand is already running", None)
        if self.outcome is not None:
            raise self._fail("the game is over", None)
        self.history.append(HistoryStep("start"))
        events: list[Event] = []
        dealer = self.dealer
        if self.hand_number > 0:
            seats = {s for s in range(self.players) if self.bank.in_game(s)}
            dealer = self._from_left_of(self.dealer, seats)[0]
        self._hand_begins(dealer)
        for seat, chips in self.bank.before_hand(self.hand_number):
            events.append(Event("refill", seat, {"chips": chips}))
        self.active.clear()
        self.active.update(s for s in range(self.players) if self.bank.in_game(s))
        self.hands = Hands(self.players)
        self.betting = Betting(self.players, self.variant, self.bank.stacks)
        ante = self.bank.ante(self.hand_number)
        self.ante_paid = [0] * self.players
        order = self._from_left_of(self.dealer)
        for seat in order:
            self.ante_paid[seat] = self.betting.pay_ante(seat, ante)
            events.append(Event("ante", seat, {"amount": self.ante_paid[seat]}))
        positions = self.hands.take_positions(CARDS_PER_HAND * len(order))
        self.pending = Deal(tuple((order[i % len(order)], p) for i, p in enumerate(positions)))
        self.laundry = Laundry(order if self.config.bool_option("dirty_laundry") else [])
        self.trick = TrickPlay(self.players, self.active, order[0])
        self.phase = "deal"
        events.insert(
            0,
            Event(
                "hand_start", None, {"hand": self.hand_number, "dealer": self.dealer, "ante": ante}
            ),
        )
        return events

    # ---- chance -------------------------------------------------------------------------------
    def chance_request(self) -> ChanceRequest | None:
        return self.pending

    def apply_chance(self, cards: Sequence[Card | None]) -> list[Event]:
        request = self.pending
        if request is None:
            raise self._fail("no chance step is pending", None)
        if len(cards) != len(request.positions):
            raise self._fail(f"{len(request.positions)} cards expected, got {len(cards)}", None)
        hands = Hands(
            self.players,
            [list(s) for s in self.hands.slots],
            set(self.hands.seen),
            set(self.hands.used_positions),
            self.hands.next_position,
        )
        events: list[Event]
        if isinstance(request, Deal):
            for (seat, position), card in zip(request.assignments, cards, strict=True):
                try:
                    hands.receive(seat, [position], [card])
                except IllegalAction as e:
                    raise self._fail(e.reason, None) from None
            self.hands = hands
            self.pending = None
            events = [Event("dealt", None, {"positions": list(request.positions)})]
            if self.phase == "deal":
                self.phase = self._advance_exchange(hands)
            else:  # the dirty-laundry draw
                self.phase = self._open_checks(hands)
        else:
            assert isinstance(request, Reveal)
            events, phase = self._apply_reveal(request, hands, cards)
            self.hands, self.pending, self.phase = hands, None, phase
        self.history.append(HistoryStep("chance", cards=tuple(cards)))
        return events

    # ---- who acts -----------------------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        if self.pending is not None:
            return ()
        if self.phase == "exchange":
            seat = self.laundry.deciding
            return () if seat is None else (seat,)
        if self.phase == "check":
            return (self.laundry.checkers[0],)
        if self.phase == "play":
            if self.betting.answering:
                return (self.betting.answering[0],)
            nxt = self.trick.next_to_play()
            return () if nxt is None else (nxt,)
        return ()

    def may_act(self) -> tuple[int, ...]:
        waiting = set(self.to_act())
        if self.any_time and self.phase == "play" and self.pending is None:
            waiting.update(s for s in self.active if self._may_knock(s))
        return tuple(sorted(waiting))

    def _may_knock(self, seat: int) -> bool:
        return self._knock_refusal(seat) is None

    def _knock_refusal(self, seat: int) -> str | None:
        if self.phase != "play" or self.pending is not None:
            return "knocking is only possible during the card play"
        if self.betting.answering:
            return "a knock is being answered; answer with call, fold or raise"
        if seat not in self.active:
            return "you are not in the hand"
        if not self.any_time and self.trick.next_to_play() != seat:
            return "you may knock only when it is your turn to play"
        if self.trick.has_played(seat):
            return "you may knock only before playing your card to this trick"
        if self.betting.last_knocker == seat:
            return "you may not knock twice in a row"
        if not self.betting.increases(seat, self.active):
            return "no knock is possible: some active seat could not cover it"
        return None

    def legal_actions(self, seat: int) -> list[Action]:
        out: list[Action] = []
        if self.pending is not None or not self.hand_running:
            return out
        if self.phase == "exchange" and self.laundry.deciding == seat:
            return [Action(K.LAUNDRY, seat), Action(K.PASS, seat)]
        if self.phase == "check" and self.laundry.checkers[0] == seat:
            return [Action(K.CHECK, seat), Action(K.ACCEPT, seat)]
        if self.phase != "play":
            return out
        if self.betting.answering:
            if self.betting.answering[0] == seat:
                out += [Action(K.CALL, seat), Action(K.FOLD, seat)]
                if self.betting.last_knocker != seat:
                    out += self._bets(K.RAISE, seat)
            return out
        if self._may_knock(seat):
            out += self._bets(K.KNOCK, seat)
        if self.trick.next_to_play() == seat:
            for card in self.trick.legal_cards(self.hands.known(seat)):
                slot = self.hands.slots[seat][self.hands.find(seat, card, None)]
                out.append(Action(K.PLAY, seat, card=card, position=slot.position))
        return out

    def _bets(self, kind: ActionKind, seat: int) -> list[Action]:
        steps = self.betting.increases(seat, self.active)
        if self.variant == "limit":
            return [Action(kind, seat)] if steps else []
        return [Action(kind, seat, amount=a) for a in steps]

    # ---- verify -------------------------------------------------------------------------------
    def verify(self, action: Action) -> None:
        seat = action.seat
        if not 0 <= seat < self.players:
            raise self._fail(f"there is no seat {seat}", seat)
        if not self.hand_running:
            raise self._fail("no hand is running", seat)
        if self.pending is not None:
            raise self._fail("waiting for the cards (a chance step is pending)", seat)
        kind = action.kind
        if action.suit is not None or action.cards:
            raise self._fail(f"{kind.value} takes no suit and no card list", seat)
        if kind != K.PLAY and (action.card is not None or action.position is not None):
            raise self._fail(f"{kind.value} takes no card and no position", seat)
        if kind not in (K.KNOCK, K.RAISE) and action.amount is not None:
            raise self._fail(f"{kind.value} takes no amount", seat)
        if self._verify_exchange(action):
            return
        if kind in (K.CALL, K.FOLD, K.RAISE):
            if not self.betting.answering:
                raise self._fail(f"there is no knock to answer with {kind.value}", seat)
            if self.betting.answering[0] != seat:
                raise self._fail(
                    f"not your turn to answer, seat {self.betting.answering[0]} answers first", seat
                )
            if kind == K.RAISE:
                if self.betting.last_knocker == seat:
                    raise self._fail("you may not knock twice in a row", seat)
                self._check_amount(action)
            return
        if kind == K.KNOCK:
            refusal = self._knock_refusal(seat)
            if refusal is not None:
                raise self._fail(refusal, seat)
            self._check_amount(action)
            return
        if kind == K.PLAY:
            self._check_play(action)
            return
        raise self._fail(f"{kind.value} is not an action of this game now", seat)

    def _check_amount(self, action: Action) -> None:
        steps = self.betting.increases(action.seat, self.active)
        what = action.kind.value
        if not steps:
            raise self._fail(
                f"no {what} is possible: some active seat could not cover it", action.seat
            )
        if self.variant == "limit":
            if action.amount is not None:
                raise self._fail(f"in Limit a {what} is always 1 chip; give no amount", action.seat)
            return
        if action.amount is None or action.amount not in steps:
            raise self._fail(
                f"a {what} must raise the bet by 1 to {steps[-1]} chips, not {action.amount}",
                action.seat,
            )

    def _check_play(self, action: Action) -> None:
        seat, card = action.seat, action.card
        if card is None:
            raise self._fail("a play needs a card", seat)
        if self.betting.answering:
            raise self._fail(
                f"a knock is being answered, seat {self.betting.answering[0]} answers first", seat
            )
        hidden = self.hands.is_hidden(seat)
        if hidden and action.position is None:
            raise self._fail("a play from a hidden hand must give its deck position", seat)
        try:
            self.trick.check_play(seat, card, None if hidden else self.hands.known(seat))
            self.hands.find(seat, card, action.position)
        except IllegalAction as e:
            raise self._fail(e.reason, seat) from None

    def forbidden_cards(self, action: Action) -> frozenset[Card]:
        if action.kind != K.PLAY or action.card is None:
            return frozenset()
        return self.trick.forbidden(action.card)

    # ---- apply --------------------------------------------------------------------------------
    def apply(self, action: Action) -> list[Event]:
        self.verify(action)
        self.history.append(HistoryStep("action", action=action))
        seat, kind = action.seat, action.kind
        if kind in (K.PASS, K.LAUNDRY, K.ACCEPT, K.CHECK):
            # (No chance step is pending while a seat acts: the move sets the next one or none.)
            events, self.phase, self.pending = self._apply_exchange(action)
            return events
        if kind == K.PLAY:
            return self._apply_play(action)
        if kind in (K.KNOCK, K.RAISE):
            increase = 1 if action.amount is None else action.amount
            order = [s for s in self._from_left_of(seat) if s != seat]
            paid = self.betting.raise_to(seat, increase, order)
            return [Event(kind.value, seat, {"paid": paid, "bet": self.betting.current_bet})]
        if kind == K.CALL:
            paid = self.betting.call(seat)
            return [Event("call", seat, {"paid": paid}), *self._after_answer()]
        assert kind == K.FOLD
        self.betting.fold(seat)
        self.active.discard(seat)
        events = [Event("fold", seat)]
        if len(self.active) == 1:
            return events + self._finish(
                next(iter(self.active)), "all others folded", HandEnd.ALL_FOLDED
            )
        return events + self._after_answer()

    def _apply_play(self, action: Action) -> list[Event]:
        assert action.card is not None
        slot = self.hands.remove(action.seat, action.card, action.position)
        events = [
            Event("play", action.seat, {"card": action.card.index, "position": slot.position})
        ]
        done = self.trick.play(action.seat, action.card)
        return events + self._trick_done(done)

    def _after_answer(self) -> list[Event]:
        if self.betting.answering:
            return []
        return self._trick_done(self.trick.close_trick())

    def _trick_done(self, done: CompletedTrick | None) -> list[Event]:
        if done is None:
            return []
        events = [Event("trick", done.winner, {"number": len(self.trick.completed)})]
        if self.trick.finished:
            events += self._finish(done.winner, "last trick", HandEnd.LAST_TRICK)
        return events

    # ---- hand end -----------------------------------------------------------------------------
    def _finish(self, winner: int, reason: str, code: HandEnd) -> list[Event]:
        pot = self.betting.pot
        deltas = [-c for c in self.betting.contributions]
        deltas[winner] += pot
        self.bank.stacks[winner] += pot
        self.betting.pot = 0
        return self._close(
            HandResult(
                self.hand_number,
                (winner,),
                tuple(deltas),
                reason,
                {"pot": pot, "contributions": list(self.betting.contributions)},
                code,
            )
        )

    def _close(self, result: HandResult) -> list[Event]:
        self.bank.settle(list(result.deltas))
        self._hand_settled(result)
        self.phase = "over"
        self.pending = None
        self.betting.answering = []
        events = [
            Event(
                "hand_end",
                None,
                {
                    "winners": list(result.winners),
                    "deltas": list(result.deltas),
                    "reason": result.reason,
                },
            )
        ]
        if self.bank.game_over(self.hand_number):
            scores = self.scores()
            best = max(scores)
            winners = tuple(s for s in range(self.players) if scores[s] == best)
            tournament = self.bank.mode == "tournament"
            reason = (
                "one seat has all the chips" if tournament else f"{self.hand_number} hands played"
            )
            code = GameEnd.ALL_CHIPS if tournament else GameEnd.HANDS_PLAYED
            self._game_settled(Outcome(winners, scores, reason, code))
            events.append(Event("game_over", None, {"winners": list(winners)}))
        return events

    # ---- faults -------------------------------------------------------------------------------
    def timeout_action(self, seat: int) -> Action | None:
        if self.pending is not None or seat not in self.to_act():
            return None
        if self.phase == "exchange":
            return Action(K.PASS, seat)
        if self.phase == "check":
            return Action(K.ACCEPT, seat)
        if self.betting.answering:
            return Action(K.FOLD, seat)
        return None  # a fold is only an answer to a knock: a silent player aborts the hand

    def abort_hand(self, culprit: int | None, reason: str) -> HandResult:
        """Everyone honest gets its contribution back; the culprit's contribution is split
        equally among the honest seats still in the hand (remainder one chip each to those
        seats in order from the dealer's left)."""
        if not self.hand_running:
            raise self._fail("no hand is running", culprit)
        self.history.append(HistoryStep("abort", culprit=culprit, reason=reason))
        contrib = self.betting.contributions
        back = list(contrib)
        deltas = [0] * self.players
        if culprit is not None and contrib[culprit]:
            takers = [s for s in self._from_left_of(self.dealer) if s != culprit]
            if not takers:
                takers = [
                    s
                    for s in self._from_left_of(self.dealer, set(range(self.players)))
                    if s != culprit and contrib[s] > 0
                ]
            share, rest = divmod(contrib[culprit], len(takers))
            back[culprit] = 0
            deltas[culprit] = -contrib[culprit]
            for i, s in enumerate(takers):
                gain = share + (1 if i < rest else 0)
                back[s] += gain
                deltas[s] += gain
        for s in range(self.players):
            self.bank.stacks[s] += back[s]
        self.betting.pot = 0
        winners = tuple(s for s in range(self.players) if deltas[s] > 0)
        self._close(
            HandResult(
                self.hand_number,
                winners,
                tuple(deltas),
                f"voided: {reason}",
                {"culprit": culprit, "contributions": list(contrib)},
                HandEnd.VOIDED,
                reason,
            )
        )
        assert self.hand_result is not None
        return self.hand_result

    # ---- seat changes (rules.md "Seat changes") -----------------------------------------------
    seat_changes = True

    def seat_ledger(self, seat: int) -> dict[str, int]:
        return self.bank.ledger(seat)

    def newcomer_ledger(self, buy_in: int) -> dict[str, int]:
        return self.bank.newcomer(buy_in)

    def load_ledger(
        self,
        seats: Sequence[Mapping[str, int]],
        table: Mapping[str, int],
        hands_before: int,
    ) -> None:
        if table:
            raise ConfigError("Limit Tuppen carries nothing but the seats' ledgers")
        self.bank.load(seats)
        self._hands_played_before(hands_before)

    def ledger_score(self, ledger: Mapping[str, int]) -> int:
        mode = self.bank.mode
        if mode == "play-money":
            return ledger["net"]
        if mode == "cash":
            return ledger["stack"] - ledger["bought_in"]
        return ledger["stack"]

    # ---- what a viewer sees -------------------------------------------------------------------
    def hand(self, seat: int) -> tuple[HandSlot, ...]:
        return tuple(self.hands.slots[seat])

    def scores(self) -> tuple[int, ...]:
        return self.bank.scores()

    def pot(self) -> int:
        return self.betting.pot

    def public_state(self) -> dict[str, Any]:
        pending: dict[str, Any] | None = None
        if isinstance(self.pending, Deal):
            pending = {"deal": [list(a) for a in self.pending.assignments]}
        elif isinstance(self.pending, Reveal):
            pending = {"reveal": self.pending.seat, "positions": list(self.pending.positions)}
        return {
            "game": self.config.game,
            "options": dict(self.config.options),
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "phase": self.phase,
            "ante": self.bank.ante(max(1, self.hand_number)),
            "ante_paid": list(self.ante_paid),
            "active": sorted(self.active),
            "bank": self.bank.public_state(),
            "betting": self.betting.public_state(),
            "laundry": self.laundry.public_state(),
            "trick": self.trick.public_state(),
            "hands": [[s.position for s in slots] for slots in self.hands.slots],
            "stock_top": self.hands.next_position,
            "pending": pending,
            "results": [
                [r.hand_number, list(r.winners), list(r.deltas), r.reason] for r in self.results
            ],
            "outcome": None
            if self.outcome is None
            else [list(self.outcome.winners), list(self.outcome.standings), self.outcome.reason],
        }


def replay(config: GameConfig, first_dealer: int, history: Sequence[HistoryStep]) -> LimitEngine:
    """Rebuild an engine from its history (a saved game, a dispute)."""
    engine = LimitEngine(config, first_dealer=first_dealer)
    for step in history:
        apply_history_step(engine, step)
    return engine


def _factory(config: GameConfig, first_dealer: int) -> Engine:
    return LimitEngine(config, first_dealer=first_dealer)


def _spec(name: str, title: str, how: str) -> GameSpec:
    return GameSpec(
        name,
        title,
        2,
        8,
        "chips",
        OPTIONS,
        _factory,
        "000, 001 (003 for the general Tuppen rules)",
        f"Tuppen for chips: ante 1, {how}; the last active "
        "seat or the winner of the last trick takes the pot.",
    )


SPECS: dict[str, GameSpec] = {
    "limit-tuppen": _spec("limit-tuppen", "Limit Tuppen", "a knock bets 1, a raise is call + 1"),
    "no-limit-tuppen": _spec(
        "no-limit-tuppen", "No Limit Tuppen", "a knock bets any amount up to your stack"
    ),
    "pot-limit-tuppen": _spec(
        "pot-limit-tuppen", "Pot Limit Tuppen", "a knock bets any amount up to the pot"
    ),
}
