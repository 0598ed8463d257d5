"""A line-mode game against bots on one machine, driven through the rules engine.

This is the plain-terminal fallback of ``dealerless play`` (``--plain``): it reads moves as
numbers from standard input and prints what happens. The full-screen client and the networked
nodes sit on the same engine API.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from dealerless.client.bots import bot_for
from dealerless.protocol.cards import DECK
from dealerless.protocol.rules.base import Action, ActionKind, Engine, Event, GameConfig
from dealerless.protocol.rules.registry import game_spec, new_engine

Reader = Callable[[str], str]
Writer = Callable[[str], None]


@dataclass
class LinePlayer:
    config: GameConfig
    human_seat: int
    seed: int
    read: Reader
    write: Writer
    unicode: bool = True

    def describe(self, action: Action) -> str:
        who = "you" if action.seat == self.human_seat else f"seat {action.seat}"
        text = action.kind.value
        if action.card is not None:
            text += " " + action.card.pretty(self.unicode)
        if action.cards:
            text += " [" + " ".join(c.pretty(self.unicode) for c in action.cards) + "]"
        if action.suit is not None:
            text += " " + (action.suit.symbol if self.unicode else action.suit.name.lower())
        if action.amount is not None:
            text += f" {action.amount}"
        return f"{who}: {text}"

    def show_event(self, event: Event) -> None:
        if event.kind in ("action",):
            return
        seat = "" if event.seat is None else f" (seat {event.seat})"
        data = ", ".join(f"{k}={v}" for k, v in event.data.items())
        self.write(f"  · {event.kind}{seat}{': ' + data if data else ''}")

    def ask(self, engine: Engine, required: bool) -> Action | None:
        actions = engine.legal_actions(self.human_seat)
        hand = " ".join(
            s.card.pretty(self.unicode) for s in engine.hand(self.human_seat) if s.card is not None
        )
        self.write(f"your hand: {hand}   scores: {list(engine.scores())}")
        for i, action in enumerate(actions, 1):
            self.write(f"  {i}) {self.describe(action).removeprefix('you: ')}")
        if not required:
            self.write("  0) nothing now")
        while True:
            answer = self.read("your move> ").strip().lower()
            if answer in ("q", "quit"):
                raise KeyboardInterrupt
            if answer == "0" and not required:
                return None
            if answer.isdigit() and 1 <= int(answer) <= len(actions):
                return actions[int(answer) - 1]
            self.write(f"type a number from {0 if not required else 1} to {len(actions)}, or q")

    def run(self) -> int:
        rng = random.Random(self.seed)  # noqa: S311 - local deck for an offline game
        engine = new_engine(self.config, first_dealer=rng.randrange(self.config.players))
        bot = bot_for(self.config.game)
        spec = game_spec(self.config.game)
        self.write(f"{spec.title}: you are seat {self.human_seat}; {spec.score_kind}.")
        while engine.outcome is None:
            for event in engine.start_hand():
                self.show_event(event)
            self.write(f"--- hand {engine.hand_number}, dealer seat {engine.dealer} ---")
            deck = list(DECK)
            rng.shuffle(deck)
            while engine.hand_running:
                request = engine.chance_request()
                if request is not None:
                    for event in engine.apply_chance([deck[p] for p in request.positions]):
                        self.show_event(event)
                    continue
                action = self._next(engine, rng, bot)
                self.write(self.describe(action))
                for event in engine.apply(action):
                    self.show_event(event)
            result = engine.hand_result
            assert result is not None
            self.write(
                f"hand {result.hand_number}: winners {list(result.winners)}"
                f" ({result.reason}); change {list(result.deltas)}"
            )
        outcome = engine.outcome
        self.write(f"game over: winners {list(outcome.winners)}; final {list(outcome.standings)}")
        return 0

    def _next(
        self, engine: Engine, rng: random.Random, bot: Callable[..., Action | None]
    ) -> Action:
        waiting = engine.to_act()
        for seat in engine.may_act():
            if seat in waiting:
                continue
            if seat == self.human_seat:
                # Offer optional moves (an out-of-turn knock) only when they exist.
                if any(a.kind != ActionKind.PLAY for a in engine.legal_actions(seat)):
                    choice = self.ask(engine, required=False)
                    if choice is not None:
                        return choice
                continue
            optional = bot(engine, seat, rng, False)
            if optional is not None:
                assert isinstance(optional, Action)
                return optional
        seat = waiting[0] if len(waiting) == 1 else min(waiting)
        if seat == self.human_seat:
            choice = self.ask(engine, required=True)
            assert choice is not None
            return choice
        action = bot(engine, seat, rng, True)
        assert isinstance(action, Action)
        return action
