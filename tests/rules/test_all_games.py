"""Properties every game must hold, checked over complete random games of every game.

CI runs a bounded number of games; set DEALERLESS_GAMES to run more.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

from dealerless.client.simulate import play_game, play_game_with_views
from dealerless.protocol.rules.base import Engine
from dealerless.protocol.rules.registry import game_names, game_spec, make_config

GAMES = int(os.environ.get("DEALERLESS_GAMES", "3"))


def player_counts(game: str) -> list[int]:
    spec = game_spec(game)
    return list(range(spec.min_players, spec.max_players + 1))


CASES = [(game, n) for game in game_names() for n in player_counts(game)]


def _no_card_twice(engine: Engine) -> None:
    state = engine.public_state()
    seen: Counter[int] = Counter()

    def walk(value: object, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, str(k))
        elif isinstance(value, list) and key in ("current", "plays"):
            for item in value:
                if isinstance(item, list) and len(item) == 2:
                    seen[item[1]] += 1

    walk(state)
    doubles = [card for card, n in seen.items() if n > 1]
    assert not doubles, f"cards played twice: {doubles}"


@pytest.mark.parametrize(("game", "players"), CASES)
def test_random_games_end_and_keep_their_invariants(game: str, players: int) -> None:
    config = make_config(game, players)
    spec = game_spec(game)
    for seed in range(GAMES):
        record = play_game(config, seed, on_step=lambda e, _a: _no_card_twice(e))
        assert record.outcome is not None
        assert record.hands, "a game has at least one hand"
        assert len(record.outcome.standings) == players
        if spec.score_kind in ("chips", "balance"):
            for result in record.hands:
                # Chips and money only change hands (Pottuppen's pot is checked by its tests).
                if spec.score_kind == "chips":
                    assert sum(result.deltas) == 0, f"hand {result.hand_number} not zero-sum"


@pytest.mark.parametrize(("game", "players"), CASES)
def test_every_seat_view_agrees_on_the_public_state(game: str, players: int) -> None:
    config = make_config(game, players)
    record, steps = play_game_with_views(config, seed=players)
    assert record.outcome is not None
    assert steps > 0
