"""Engine-only simulation: bots play complete games with a seeded shuffled deck.

This is the fast path (``dealerless simulate --engine-only``) with one all-seeing engine; the
bots still only look at what their seat may know. Randomness here is a seeded
``random.Random`` for reproducible test games; it never touches protocol code.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from dealerless.client.bots import Bot, lineup_bot
from dealerless.protocol.cards import DECK, Card
from dealerless.protocol.rules.base import (
    Action,
    ActionKind,
    Deal,
    Engine,
    GameConfig,
    HandResult,
    Outcome,
)
from dealerless.protocol.rules.registry import new_engine

MAX_STEPS_PER_HAND = 2000


class SimulationError(RuntimeError):
    """A game that did not progress or end (a bug in an engine or bot)."""


class HiddenInformationError(SimulationError):
    """A bot chose differently on the all-seeing engine than on its seat's view: it read
    something its seat cannot know."""


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
    lineup: Sequence[str] | None = None,
    bots: Sequence[Bot] | None = None,
) -> GameRecord:
    """One engine-only game; ``lineup`` names the bot kind of every seat (default: basic),
    or ``bots`` gives every seat's chooser (benchmarks wrap them)."""
    _check_lineup(config, lineup)
    rng = random.Random(seed)
    engine = new_engine(config, first_dealer=rng.randrange(config.players))
    bot = lineup_bot(config.game, lineup) if bots is None else _per_seat(bots)
    record = GameRecord(config)
    while engine.outcome is None:
        if len(record.hands) >= max_hands:
            raise SimulationError(f"game did not end in {max_hands} hands")
        engine.start_hand()
        record.hands.append(play_hand(engine, rng, bot, on_step=on_step))
    record.outcome = engine.outcome
    return record


class DivergenceError(SimulationError):
    """Two views of the same game disagree on the public state."""


def _per_seat(bots: Sequence[Bot]) -> Bot:
    def choose(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
        return bots[seat](engine, seat, rng, required)

    return choose


def _check_lineup(config: GameConfig, lineup: Sequence[str] | None) -> None:
    if lineup is not None and len(lineup) != config.players:
        raise ValueError(f"{config.players} seats need {config.players} kinds, got {len(lineup)}")


def play_game_with_views(
    config: GameConfig,
    seed: int,
    *,
    max_hands: int = 10_000,
    lineup: Sequence[str] | None = None,
    check_hidden: bool = False,
) -> tuple[GameRecord, int]:
    """Play a game as the peers would see it: one view engine per seat that only learns its own
    cards and the revealed ones, plus an all-seeing referee engine. Each bot decides on its own
    seat's view; card plays carry deck positions. After every step all engines must agree on
    the public digest. Returns the record and the number of steps checked.

    With ``check_hidden`` every decision is also asked of the same bot on the all-seeing
    referee with the same random state; a different choice raises
    :class:`HiddenInformationError`.
    """
    _check_lineup(config, lineup)
    rng = random.Random(seed)
    dealer = rng.randrange(config.players)
    referee = new_engine(config, first_dealer=dealer)
    views = [new_engine(config, first_dealer=dealer) for _ in range(config.players)]
    engines = [referee, *views]
    bot = lineup_bot(config.game, lineup)
    if check_hidden:
        bot = _blind_checked(bot, referee)
    record = GameRecord(config)
    steps = 0

    def check_same(where: str) -> None:
        digest = referee.public_digest()
        for seat, view in enumerate(views):
            if view.public_digest() != digest:
                raise DivergenceError(f"seat {seat}'s view diverged {where}")

    while referee.outcome is None:
        if len(record.hands) >= max_hands:
            raise SimulationError(f"game did not end in {max_hands} hands")
        for engine in engines:
            engine.start_hand()
        deck = list(DECK)
        rng.shuffle(deck)
        while referee.hand_running:
            steps += 1
            if steps > MAX_STEPS_PER_HAND * max_hands:
                raise SimulationError("too many steps")
            request = referee.chance_request()
            if request is not None:
                cards = [deck[p] for p in request.positions]
                referee.apply_chance(cards)
                for seat, view in enumerate(views):
                    if isinstance(request, Deal):
                        seen: list[Card | None] = [
                            c if s == seat else None
                            for (s, _), c in zip(request.assignments, cards, strict=True)
                        ]
                        view.apply_chance(seen)
                    else:
                        view.apply_chance(list(cards))
                check_same(f"after chance step {request}")
                continue
            action = _next_action_on_views(referee, views, rng, bot)
            for engine in engines:
                engine.apply(action)
            record.actions += 1
            check_same(f"after {action}")
        assert referee.hand_result is not None
        record.hands.append(referee.hand_result)
    record.outcome = referee.outcome
    return record, steps


def _next_action_on_views(
    referee: Engine, views: list[Engine], rng: random.Random, bot: Bot
) -> Action:
    waiting = referee.to_act()
    chosen: Action | None = None
    for seat in referee.may_act():
        if seat not in waiting:
            chosen = bot(views[seat], seat, rng, False)
            if chosen is not None:
                break
    if chosen is None:
        if not waiting:
            raise SimulationError("nobody to act and no chance step")
        seat = waiting[0] if len(waiting) == 1 else rng.choice(waiting)
        chosen = bot(views[seat], seat, rng, True)
        if chosen is None:
            raise SimulationError(f"bot for seat {seat} returned no action when required")
    if chosen.kind is ActionKind.PLAY and chosen.position is None:
        assert chosen.card is not None
        slot = next(s for s in views[chosen.seat].hand(chosen.seat) if s.card == chosen.card)
        chosen = replace(chosen, position=slot.position)
    return chosen


def _blind_checked(bot: Bot, referee: Engine) -> Bot:
    """A bot that asks ``bot`` on the referee first (with a copy of the random state), then on
    the view, and insists on the same move and the same random state afterwards."""

    def choose(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
        twin = random.Random()
        twin.setstate(rng.getstate())
        seen_all = bot(referee, seat, twin, required)
        chosen = bot(engine, seat, rng, required)  # the seat's view
        same_card = (seen_all is None) == (chosen is None) and (
            seen_all is None
            or chosen is None
            or replace(seen_all, position=None) == replace(chosen, position=None)
        )
        if not same_card or twin.getstate() != rng.getstate():
            raise HiddenInformationError(
                f"seat {seat}: {seen_all} on the all-seeing engine, {chosen} on its view"
            )
        return chosen

    return choose
