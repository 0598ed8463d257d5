"""Engine-only simulation: bots play complete games with a seeded shuffled deck.

This is the fast path (``dealerless simulate --engine-only``) with one all-seeing engine; the
bots still only look at what their seat may know. Randomness here is a seeded
``random.Random`` for reproducible test games; it never touches protocol code.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from dealerless.client.bots import Bot, bot_for
from dealerless.protocol.cards import DECK, Card
from dealerless.protocol.rules.base import Action, Engine, GameConfig, HandResult, Outcome
from dealerless.protocol.rules.registry import new_engine

MAX_STEPS_PER_HAND = 2000


class SimulationError(RuntimeError):
    """A game that did not progress or end (a bug in an engine or bot)."""


@dataclass
class GameRecord:
    config: GameConfig
    hands: list[HandResult] = field(default_factory=list)
    outcome: Outcome | None = None
    actions: int = 0


StepHook = Callable[[Engine, Action | None], None]


def play_hand(
    engine: Engine,
    rng: random.Random,
    bot: Bot,
    deck: list[Card] | None = None,
    on_step: StepHook | None = None,
) -> HandResult:
    """Play the running hand to its end; returns its result."""
    if deck is None:
        deck = list(DECK)
        rng.shuffle(deck)
    steps = 0
    while engine.hand_running:
        steps += 1
        if steps > MAX_STEPS_PER_HAND:
            raise SimulationError(f"hand {engine.hand_number} did not end in {steps} steps")
        request = engine.chance_request()
        if request is not None:
            engine.apply_chance([deck[p] for p in request.positions])
            if on_step:
                on_step(engine, None)
            continue
        action = _next_action(engine, rng, bot)
        engine.apply(action)
        if on_step:
            on_step(engine, action)
    assert engine.hand_result is not None
    return engine.hand_result


def _next_action(engine: Engine, rng: random.Random, bot: Bot) -> Action:
    waiting = engine.to_act()
    for seat in engine.may_act():
        if seat in waiting:
            continue
        optional = bot(engine, seat, rng, False)
        if optional is not None:
            return optional
    if not waiting:
        raise SimulationError(f"hand {engine.hand_number}: nobody to act and no chance step")
    seat = waiting[0] if len(waiting) == 1 else rng.choice(waiting)
    action = bot(engine, seat, rng, True)
    if action is None:
        raise SimulationError(f"bot for seat {seat} returned no action when required")
    return action


def play_game(
    config: GameConfig,
    seed: int,
    *,
    max_hands: int = 10_000,
    on_step: StepHook | None = None,
) -> GameRecord:
    rng = random.Random(seed)
    engine = new_engine(config, first_dealer=rng.randrange(config.players))
    bot = bot_for(config.game)
    record = GameRecord(config)
    while engine.outcome is None:
        if len(record.hands) >= max_hands:
            raise SimulationError(f"game did not end in {max_hands} hands")
        engine.start_hand()
        record.hands.append(play_hand(engine, rng, bot, on_step=on_step))
    record.outcome = engine.outcome
    return record
