"""Pottuppen: Tuppen played for a pot of money (seed 003, "Regeln von Pottuppen").

A hand: antes (or a top-up) into the pot, a deal of four cards each, one betting round from the
dealer's left (BET 1..pot or PASS), then Tuppen trick play:

* two or more bettors play among themselves (passers sit out); the taker of the last trick
  takes its bet from the pot, every other bettor pays its bet in (pay-ins first);
* exactly one bettor plays against all passers, who defend with nothing at stake: the bettor
  takes its bet if it wins the last trick, else pays it in (no free win);
* nobody bets: a pass round, everybody plays and the taker of the last trick pays in.

The taker of the last trick deals next. After ``hands`` hands (or when the players end the game
between hands with :meth:`PottuppenEngine.finish_game`) the pot is split evenly. See
spec/rules/pottuppen.md for every rule and decision.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
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
    OptionSpec,
    Outcome,
    apply_history_step,
)
from dealerless.protocol.rules.hands import Hands
from dealerless.protocol.rules.pottuppen_money import (
    Mode,
    Purse,
    bet_amounts,
    effective_minimum,
    top_up_rounds,
)
from dealerless.protocol.rules.reasons import GameEnd, HandEnd
from dealerless.protocol.rules.registry import GameSpec
from dealerless.protocol.rules.tuppen_play import TrickPlay

CARDS_PER_SEAT = 4
MIN_PLAYERS = 2
MAX_PLAYERS = 8  # 8 x 4 = the whole 32-card deck

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "ante",
        1,
        "what every seat pays into the pot at the first hand and at a top-up",
        minimum=1,
        maximum=1_000_000,
    ),
    OptionSpec(
        "pot_minimum",
        0,
        "when the pot is below this at the start of a hand, every seat "
        "pays the ante again (as often as needed); 0 = players x ante",
        minimum=0,
        maximum=1_000_000_000,
    ),
    OptionSpec(
        "hands",
        20,
        "game length in hands; after the last one the pot is split evenly",
        minimum=1,
        maximum=1_000_000,
    ),
    OptionSpec(
        "pass_round_payment",
        0,
        "what the taker of the last trick of a pass round pays into the pot; 0 = the ante",
        minimum=0,
        maximum=1_000_000,
    ),
)


class Phase(StrEnum):
    IDLE = "idle"  # between hands (or before the first)
    DEAL = "deal"  # waiting for the deal chance step
    BETTING = "betting"
    PLAY = "play"
    OVER = "over"  # the game has an outcome


class PottuppenEngine(Engine):
    game = "pottuppen"

    def __init__(self, config: GameConfig, *, first_dealer: int = 0) -> None:
        super().__init__(config, first_dealer=first_dealer)
        self.first_dealer = first_dealer  # with the history, enough to replay the game
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ConfigError(f"pottuppen is for 2 to 8 players, not {self.players}")
        self.ante = config.int_option("ante")
        self.pot_minimum = effective_minimum(
            self.players, self.ante, config.int_option("pot_minimum")
        )
        self.total_hands = config.int_option("hands")
        self.pass_payment = config.int_option("pass_round_payment") or self.ante
        self.purse = Purse(self.players)
        self.phase = Phase.IDLE
        self.hands = Hands(self.players)
        self.pending: Deal | None = None
        self.bets: list[int | None] = [None] * self.players  # None undecided, 0 pass, >0 bet
        self.mode: Mode | None = None
        self.trick: TrickPlay | None = None
        self.topped_up = 0  # ante rounds paid at the start of this hand
        self.balances_at_start: tuple[int, ...] = tuple(self.purse.balances)
        self.history: list[HistoryStep] = []

    # -- public figures -------------------------------------------------------------------------
    @property
    def pot(self) -> int:
        return self.purse.pot

    @property
    def balances(self) -> tuple[int, ...]:
        return tuple(self.purse.balances)

    def betting_order(self) -> list[int]:
        """Seats from the dealer's left, clockwise (seat + 1 is the next seat)."""
        return [(self.dealer + 1 + i) % self.players for i in range(self.players)]

    def bettors(self) -> list[int]:
        """Seats that bet this hand, in order from the dealer's left."""
        return [s for s in self.betting_order() if (self.bets[s] or 0) > 0]

    def _where(self) -> str:
        text = f"hand {self.hand_number}, {self.phase.value}"
        if self.phase is Phase.PLAY and self.trick is not None:
            text += f", trick {self.trick.trick_number}"
        return text

    # -- seat changes (rules.md "Seat changes"): a balance travels with its seat, the pot stays --
    seat_changes = True

    def seat_ledger(self, seat: int) -> dict[str, int]:
        return {"balance": self.purse.balances[seat]}

    def table_ledger(self) -> dict[str, int]:
        return {"pot": self.purse.pot}

    def newcomer_ledger(self, buy_in: int) -> dict[str, int]:
        if buy_in != 0:
            raise ConfigError("in Pottuppen a newcomer sits down with a balance of 0 (no buy-in)")
        return {"balance": 0}

    def load_ledger(
        self,
        seats: Sequence[Mapping[str, int]],
        table: Mapping[str, int],
        hands_before: int,
    ) -> None:
        if len(seats) != self.players or any(set(e) != {"balance"} for e in seats):
            raise ConfigError("a Pottuppen ledger is one balance per seat")
        if set(table) != {"pot"} or table["pot"] < 0:
            raise ConfigError("a Pottuppen table ledger is the pot, at least 0")
        self.purse = Purse(self.players, [e["balance"] for e in seats], table["pot"])
        self.balances_at_start = self.balances
        self._hands_played_before(hands_before)

    def ledger_score(self, ledger: Mapping[str, int]) -> int:
        return ledger["balance"]

    # -- hands ----------------------------------------------------------------------------------
    @property
    def hand_running(self) -> bool:
        return self.phase in (Phase.DEAL, Phase.BETTING, Phase.PLAY)

    def start_hand(self) -> list[Event]:
        if self.outcome is not None:
            raise IllegalAction("the game is over", where=f"after hand {self.hand_number}")
        if self.hand_running:
            raise IllegalAction("a hand is already running", where=self._where())
        self._hand_begins(self.dealer)
        self.balances_at_start = self.balances
        self.hands = Hands(self.players)
        self.bets = [None] * self.players
        self.mode = None
        self.trick = None
        rounds = top_up_rounds(self.pot, self.players, self.ante, self.pot_minimum)
        self.topped_up = rounds
        for seat in range(self.players):
            self.purse.pay_in(seat, rounds * self.ante)
        order = self.betting_order()
        positions = self.hands.take_positions(CARDS_PER_SEAT * self.players)
        # One card at a time, clockwise from the dealer's left.
        self.pending = Deal(tuple((order[i % self.players], p) for i, p in enumerate(positions)))
        self.phase = Phase.DEAL
        self.history.append(HistoryStep("start"))
        events = [Event("hand_started", self.dealer, {"hand": self.hand_number})]
        if rounds:
            events.append(Event("antes", None, {"each": rounds * self.ante, "pot": self.pot}))
        return events

    # -- chance ---------------------------------------------------------------------------------
    def chance_request(self) -> ChanceRequest | None:
        return self.pending if self.phase is Phase.DEAL else None

    def apply_chance(self, cards: Sequence[Card | None]) -> list[Event]:
        request = self.pending
        if self.phase is not Phase.DEAL or request is None:
            raise IllegalAction("no chance step is pending", where=self._where())
        entries = list(cards)
        if len(entries) != len(request.assignments):
            raise IllegalAction(
                f"the deal needs {len(request.assignments)} cards, got {len(entries)}",
                where=self._where(),
            )
        known = [c for c in entries if c is not None]
        if any(not isinstance(c, Card) for c in known):
            raise IllegalAction("a dealt card must be a Card or None", where=self._where())
        if len(set(known)) != len(known):
            raise IllegalAction("the deal contains a card twice", where=self._where())
        for (seat, position), card in zip(request.assignments, entries, strict=True):
            self.hands.receive(seat, (position,), (card,))
        self.history.append(HistoryStep("chance", cards=tuple(entries)))
        self.pending = None
        self.phase = Phase.BETTING
        return [Event("dealt", None, {"positions": [list(a) for a in request.assignments]})]

    # -- actions --------------------------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        if self.phase is Phase.BETTING:
            seat = self._next_bettor()
            return () if seat is None else (seat,)
        if self.phase is Phase.PLAY and self.trick is not None:
            seat = self.trick.next_to_play()
            return () if seat is None else (seat,)
        return ()

    def _next_bettor(self) -> int | None:
        return next((s for s in self.betting_order() if self.bets[s] is None), None)

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        if self.phase is Phase.BETTING:
            bets = [Action(ActionKind.BET, seat, amount=a) for a in bet_amounts(self.pot)]
            return [Action(ActionKind.PASS, seat), *bets]
        assert self.trick is not None
        if self.hands.is_hidden(seat):
            return []
        by_card = {s.card: s.position for s in self.hands.slots[seat] if s.card is not None}
        return [
            Action(ActionKind.PLAY, seat, card=c, position=by_card[c])
            for c in self.trick.legal_cards(list(by_card))
        ]

    def verify(self, action: Action) -> None:
        seat = action.seat
        if not 0 <= seat < self.players:
            raise IllegalAction(f"there is no seat {seat}", where=self._where())
        if not self.hand_running:
            state = "the game is over" if self.outcome is not None else "no hand is running"
            raise IllegalAction(state, seat=seat, where=self._where())
        if self.phase is Phase.DEAL:
            raise IllegalAction("the cards are not dealt yet", seat=seat, where=self._where())
        if self.phase is Phase.BETTING:
            self._verify_bet(action)
        else:
            self._verify_play(action)

    def _verify_bet(self, action: Action) -> None:
        seat, where = action.seat, self._where()
        if action.kind not in (ActionKind.BET, ActionKind.PASS):
            raise IllegalAction(
                f"{action.kind.value} is not allowed in Pottuppen's betting round "
                "(bet or pass; no knocking or extra rules)",
                seat=seat,
                where=where,
            )
        if (
            action.card is not None
            or action.cards
            or action.suit is not None
            or action.position is not None
        ):
            raise IllegalAction(
                f"a {action.kind.value} names no card, suit or position", seat=seat, where=where
            )
        expected = self._next_bettor()
        if seat != expected:
            raise IllegalAction(
                f"not your turn to bet, seat {expected} is to bet", seat=seat, where=where
            )
        if action.kind is ActionKind.PASS:
            if action.amount is not None:
                raise IllegalAction("a pass carries no amount", seat=seat, where=where)
            return
        if action.amount is None:
            raise IllegalAction("a bet needs an amount", seat=seat, where=where)
        if action.amount < 1:
            raise IllegalAction(
                f"a bet must be at least 1, not {action.amount}", seat=seat, where=where
            )
        if action.amount > self.pot:
            raise IllegalAction(
                f"cannot bet {action.amount}, more than the pot of {self.pot}",
                seat=seat,
                where=where,
            )

    def _verify_play(self, action: Action) -> None:
        seat, where = action.seat, self._where()
        trick = self.trick
        assert trick is not None
        if action.kind is not ActionKind.PLAY:
            raise IllegalAction(
                f"{action.kind.value} is not allowed during trick play (no knocking or extra "
                "rules in Pottuppen)",
                seat=seat,
                where=where,
            )
        card = action.card
        if card is None:
            raise IllegalAction("a play needs a card", seat=seat, where=where)
        if action.amount is not None or action.cards or action.suit is not None:
            raise IllegalAction("a play names one card only", seat=seat, where=where)
        if seat not in trick.active:
            raise IllegalAction("you sit this hand out (you passed)", seat=seat, where=where)
        hidden = self.hands.is_hidden(seat)
        known_hand = None if hidden else self.hands.known(seat)
        try:
            trick.check_play(seat, card, known_hand)
        except IllegalAction as exc:
            raise IllegalAction(exc.reason, seat=seat, where=where) from None
        if hidden and action.position is None and card not in self.hands.known(seat):
            raise IllegalAction(
                "a play from a hand this viewer cannot see must name its deck position",
                seat=seat,
                where=where,
            )
        try:
            self.hands.find(seat, card, action.position)
        except IllegalAction as exc:
            raise IllegalAction(exc.reason, seat=seat, where=where) from None

    def apply(self, action: Action) -> list[Event]:
        self.verify(action)
        self.history.append(HistoryStep("action", action=action))
        if self.phase is Phase.BETTING:
            return self._apply_bet(action)
        return self._apply_play(action)

    def _apply_bet(self, action: Action) -> list[Event]:
        seat = action.seat
        amount = action.amount if action.kind is ActionKind.BET else 0
        assert amount is not None
        self.bets[seat] = amount
        events = [Event(action.kind.value, seat, {"amount": amount})]
        if self._next_bettor() is None:
            events.append(self._begin_play())
        return events

    def _begin_play(self) -> Event:
        bettors = self.bettors()
        left = (self.dealer + 1) % self.players
        if len(bettors) >= 2:
            self.mode = Mode.CONTEST
            active, leader = set(bettors), bettors[0]
        else:
            self.mode = Mode.SINGLE if bettors else Mode.PASS_ROUND
            active, leader = set(range(self.players)), left
        self.trick = TrickPlay(self.players, active, leader)
        self.phase = Phase.PLAY
        return Event("play_begins", leader, {"mode": self.mode.value, "active": sorted(active)})

    def _apply_play(self, action: Action) -> list[Event]:
        seat, card = action.seat, action.card
        assert self.trick is not None and card is not None
        slot = self.hands.remove(seat, card, action.position)
        events = [Event("play", seat, {"card": card.index, "position": slot.position})]
        done = self.trick.play(seat, card)
        if done is not None:
            events.append(Event("trick", done.winner, {"number": len(self.trick.completed)}))
        if self.trick.finished:
            events.extend(self._settle(done.winner if done else seat))
        return events

    def _settle(self, last_trick: int) -> list[Event]:
        assert self.mode is not None
        bets = {s: self.bets[s] or 0 for s in self.bettors()}
        self.purse.settle(self.mode, bets, last_trick, self.pass_payment)
        if self.mode is Mode.CONTEST:
            winners: tuple[int, ...] = (last_trick,)
            reason, code = "last trick", HandEnd.LAST_TRICK
        elif self.mode is Mode.SINGLE:
            (bettor,) = bets
            won = bettor == last_trick
            winners = (bettor,) if won else tuple(s for s in range(self.players) if s != bettor)
            reason = "single bettor took the last trick" if won else "defenders beat the bettor"
            code = HandEnd.SINGLE_BETTOR_WON if won else HandEnd.DEFENDERS_WON
        else:
            winners = tuple(s for s in range(self.players) if s != last_trick)
            reason, code = "pass round: the last trick pays in", HandEnd.PASS_ROUND
        details = {"mode": self.mode.value, "bets": bets, "last_trick": last_trick}
        self._end_hand(winners, reason, details, code)
        self._deals_next(last_trick)
        self._maybe_game_over()
        return [Event("hand_over", last_trick, {"reason": reason, "pot": self.pot})]

    def _end_hand(
        self,
        winners: tuple[int, ...],
        reason: str,
        details: dict[str, Any],
        code: HandEnd,
        note: str = "",
    ) -> None:
        details = {**details, "antes": self.topped_up * self.ante, "pot": self.pot}
        result = HandResult(
            self.hand_number,
            winners,
            self.purse.deltas_since(self.balances_at_start),
            reason,
            details,
            code,
            note,
        )
        self._hand_settled(result)
        self.phase = Phase.IDLE
        self.pending = None

    def _maybe_game_over(self) -> None:
        if self.hand_number >= self.total_hands:
            self._split("the agreed number of hands was played", GameEnd.HANDS_PLAYED)

    def _split(self, reason: str, code: GameEnd) -> None:
        # The remainder goes one unit each from the left of the seat due to deal next.
        self.purse.split((self.dealer + 1) % self.players)
        top = max(self.purse.balances)
        winners = tuple(s for s, b in enumerate(self.purse.balances) if b == top)
        self._game_settled(Outcome(winners, self.balances, reason, code))
        self.phase = Phase.OVER

    def finish_game(self) -> list[Event]:
        """The players agree to end the game between hands: the pot is split evenly."""
        if self.outcome is not None:
            raise IllegalAction("the game is already over")
        if self.hand_running:
            raise IllegalAction("the game can only end between hands", where=self._where())
        self.history.append(HistoryStep("finish"))
        self._split("the players ended the game", GameEnd.PLAYERS_ENDED)
        return [Event("game_over", None, {"standings": list(self.balances)})]

    def forbidden_cards(self, action: Action) -> frozenset[Card]:
        if action.kind is not ActionKind.PLAY or action.card is None or self.trick is None:
            return frozenset()
        return self.trick.forbidden(action.card)

    # -- faults ---------------------------------------------------------------------------------
    def timeout_action(self, seat: int) -> Action | None:
        if self.phase is Phase.BETTING and seat in self.to_act():
            return Action(ActionKind.PASS, seat)
        return None

    def abort_hand(self, culprit: int | None, reason: str) -> HandResult:
        """Void the running hand. The culprit pays its bet into the pot (the ante if it has not
        bet); nobody else pays or wins; without a culprit no money moves. The dealer stays."""
        if not self.hand_running:
            raise IllegalAction("no hand is running to abort", where=self._where())
        if culprit is not None and not 0 <= culprit < self.players:
            raise IllegalAction(f"there is no seat {culprit}", where=self._where())
        fine = 0
        if culprit is not None:
            fine = self.bets[culprit] or self.ante
            self.purse.pay_in(culprit, fine)
        self.history.append(HistoryStep("abort", culprit=culprit, reason=reason))
        winners: tuple[int, ...] = ()
        details = {"culprit": culprit, "fine": fine}
        self._end_hand(winners, f"voided: {reason}", details, HandEnd.VOIDED, reason)
        self._maybe_game_over()
        assert self.hand_result is not None
        return self.hand_result

    # -- views ----------------------------------------------------------------------------------
    def hand(self, seat: int) -> tuple[HandSlot, ...]:
        return tuple(self.hands.slots[seat])

    def scores(self) -> tuple[int, ...]:
        return self.balances

    def public_state(self) -> dict[str, Any]:
        last = self.hand_result
        return {
            "game": self.game,
            "players": self.players,
            "options": dict(self.config.options),
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "phase": self.phase.value,
            "balances": list(self.purse.balances),
            "pot": self.pot,
            "antes_this_hand": self.topped_up * self.ante,
            "bets": list(self.bets),
            "mode": None if self.mode is None else self.mode.value,
            "hand_positions": [[s.position for s in slots] for slots in self.hands.slots],
            "trick": None if self.trick is None else self.trick.public_state(),
            "results": len(self.results),
            "last_result": None
            if last is None
            else {
                "winners": list(last.winners),
                "deltas": list(last.deltas),
                "reason": last.reason,
            },
            "outcome": None
            if self.outcome is None
            else {
                "winners": list(self.outcome.winners),
                "standings": list(self.outcome.standings),
                "reason": self.outcome.reason,
            },
            "steps": len(self.history),
        }


def replay(config: GameConfig, first_dealer: int, steps: Iterable[HistoryStep]) -> PottuppenEngine:
    """Rebuild an engine from its history (the same viewer's chance entries)."""
    engine = PottuppenEngine(config, first_dealer=first_dealer)
    for step in steps:
        if step.kind == "finish":
            engine.finish_game()
        else:
            apply_history_step(engine, step)
    return engine


def _factory(config: GameConfig, first_dealer: int) -> Engine:
    return PottuppenEngine(config, first_dealer=first_dealer)


SPECS: dict[str, GameSpec] = {
    "pottuppen": GameSpec(
        name="pottuppen",
        title="Pottuppen",
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        score_kind="balance",
        options=OPTIONS,
        factory=_factory,
        seeds="003 (Regeln von Pottuppen; deal and play from classic Tuppen)",
        summary="Tuppen for a pot: bet part or all of the pot or pass; the last trick among the "
        "bettors takes its bet, the other bettors pay theirs in; all pass = a pass round.",
    )
}
