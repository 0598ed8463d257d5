"""Randomised complete Limit Tuppen games over every option set: invariants, and the
hidden-information check (an all-seeing engine and one view engine per seat agree).

CI plays a bounded number of hands; ``DEALERLESS_HANDS=10000`` runs at least that many.
"""

from __future__ import annotations

import itertools
import os
import random
import time
from collections import Counter

import pytest

from dealerless.client.bots.limit import choose_action
from dealerless.client.simulate import play_game
from dealerless.protocol.cards import DECK, Card
from dealerless.protocol.rules.base import Action, ActionKind, Deal, Engine, OptionValue
from dealerless.protocol.rules.limit import LimitEngine
from dealerless.protocol.rules.registry import make_config

GAMES = ("limit-tuppen", "no-limit-tuppen", "pot-limit-tuppen")
OPTION_SETS: list[dict[str, OptionValue]] = [
    {"mode": mode, "dirty_laundry": laundry, "knock_timing": timing}
    for mode, laundry, timing in itertools.product(
        ("play-money", "cash", "tournament"), (False, True), ("own-turn", "any-time")
    )
]
CASES = [(g, o) for g in GAMES for o in OPTION_SETS]
HANDS = int(os.environ.get("DEALERLESS_HANDS", "400"))


def _check_step(engine: Engine, _action: Action | None) -> None:
    assert isinstance(engine, LimitEngine)
    bank, betting = engine.bank, engine.betting
    assert all(s >= 0 for s in bank.stacks)
    total = sum(bank.stacks) + betting.pot
    n = engine.players
    if bank.mode == "cash":
        assert total == sum(bank.bought_in)
    elif (bank.mode == "play-money" and engine.hand_running) or bank.mode == "tournament":
        assert total == n * engine.config.int_option("starting_chips")
    seen: Counter[int] = Counter()
    for t in engine.trick.completed:
        seen.update(c.index for _, c in t.plays)
    seen.update(c.index for _, c in engine.trick.plays)
    for seat in range(n):
        seen.update(s.card.index for s in engine.hand(seat) if s.card is not None)
    assert all(v == 1 for v in seen.values()), "a card twice"
    positions = [s.position for seat in range(n) for s in engine.hand(seat)]
    assert len(positions) == len(set(positions))
    if engine.hand_result is not None and not engine.hand_running:
        assert sum(engine.hand_result.deltas) == 0
        if bank.mode != "tournament":
            assert sum(engine.scores()) == 0


def _play(game: str, options: dict[str, OptionValue], players: int, seed: int) -> int:
    config = make_config(game, players, options)
    record = play_game(config, seed, on_step=_check_step)
    assert record.outcome is not None
    for result in record.hands:
        assert sum(result.deltas) == 0
    if options["mode"] == "tournament":
        assert sorted(record.outcome.standings)[-2] == 0  # one seat has all the chips
    return len(record.hands)


@pytest.mark.parametrize(("game", "options"), CASES)
def test_random_games_keep_the_invariants_in_every_option_set(
    game: str, options: dict[str, OptionValue]
) -> None:
    for players in (2, 4, 7):
        _play(game, options, players, seed=players)


def test_many_random_hands() -> None:
    """At least HANDS random hands over every game, option set and player count."""
    rng = random.Random(2026)
    hands = games = 0
    started = time.monotonic()
    while hands < HANDS:
        game, options = rng.choice(CASES)
        hands += _play(game, options, rng.randint(2, 8), rng.randrange(10**9))
        games += 1
    elapsed = time.monotonic() - started
    print(f"\n{hands} random hands in {games} games, {elapsed:.1f} s")


def _same_legal(referee: LimitEngine, view: LimitEngine, seat: int) -> None:
    assert referee.legal_actions(seat) == view.legal_actions(seat)


def play_with_views(game: str, options: dict[str, OptionValue], players: int, seed: int) -> int:
    """An all-seeing engine plus one view engine per seat through a complete game; after every
    step all public digests agree and each seat's own legal actions agree. Card plays are
    checked against forbidden_cards on the all-seeing engine (the zero-knowledge proof)."""
    rng = random.Random(seed)
    config = make_config(game, players, options)
    dealer = rng.randrange(players)
    referee = LimitEngine(config, first_dealer=dealer)
    views = [LimitEngine(config, first_dealer=dealer) for _ in range(players)]
    engines = [referee, *views]
    steps = 0
    while referee.outcome is None:
        for e in engines:
            e.start_hand()
        deck: list[Card] = list(DECK)
        rng.shuffle(deck)
        while referee.hand_running:
            request = referee.chance_request()
            if request is not None:
                shown = [deck[p] for p in request.positions]
                referee.apply_chance(shown)
                for seat, view in enumerate(views):
                    if isinstance(request, Deal):
                        view.apply_chance(
                            [
                                c if s == seat else None
                                for (s, _), c in zip(request.assignments, shown, strict=True)
                            ]
                        )
                    else:
                        view.apply_chance(shown)
            else:
                action = _next(referee, views, rng)
                if action.kind is ActionKind.PLAY:
                    held = {s.card for s in referee.hand(action.seat)} - {action.card}
                    assert not held & referee.forbidden_cards(action)
                    for seat, view in enumerate(views):
                        if seat != action.seat:
                            assert view.forbidden_cards(action) == referee.forbidden_cards(action)
                for e in engines:
                    e.apply(action)
            steps += 1
            digest = referee.public_digest()
            for seat, view in enumerate(views):
                assert view.public_digest() == digest, f"seat {seat} diverged"
                _same_legal(referee, view, seat)
    return steps


def _next(referee: LimitEngine, views: list[LimitEngine], rng: random.Random) -> Action:
    waiting = referee.to_act()
    for seat in referee.may_act():
        if seat not in waiting:
            optional = choose_action(views[seat], seat, rng, False)
            if optional is not None:
                return optional
    seat = waiting[0]
    action = choose_action(views[seat], seat, rng, True)
    assert action is not None
    if action.kind is ActionKind.PLAY:
        assert action.position is not None  # a seat's own view knows its positions
    return action


@pytest.mark.parametrize(("game", "options"), CASES)
def test_every_view_engine_agrees_with_the_all_seeing_engine(
    game: str, options: dict[str, OptionValue]
) -> None:
    short = {**options, "hands": 8}  # tournaments run to the end anyway
    for players in (2, 5):
        assert play_with_views(game, short, players, seed=players) > 0
