"""Bot levels: every kind exists for every game, plays legal moves, and the levels reach the
commands (play, join, the start screen)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dealerless.client import start_launch
from dealerless.client.bots import BOT_MODULES, DEFAULT_LEVEL, KINDS, bot_for
from dealerless.client.cli import build_parser
from dealerless.client.simulate import play_game
from dealerless.client.tui.settings import Settings
from dealerless.client.tui.start import StartChoice
from dealerless.protocol.cards import DECK
from dealerless.protocol.rules.base import ActionKind, Engine
from dealerless.protocol.rules.registry import make_config, new_engine
from dealerless.protocol.rules.tuppen_tricks import strength

K = ActionKind


def test_unknown_game_or_level_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"unknown bot level 'expert'.*strong"):
        bot_for("tuppen", "expert")
    with pytest.raises(ValueError, match="no bot for game 'poker'"):
        bot_for("poker", "strong")


@pytest.mark.parametrize("game", sorted(BOT_MODULES))
def test_every_kind_plays_a_whole_game_of_every_game(game: str) -> None:
    """A game with all five kinds (Belote: four of them) ends; play_game checks every move."""
    kinds = [k for k in KINDS if k != "passive"] if game == "belote" else list(KINDS[:4])
    record = play_game(make_config(game, 4, {}), 7, lineup=kinds)
    assert record.outcome is not None


def _dealt(game: str, seed: int) -> Engine:
    engine = new_engine(make_config(game, 4, {}), first_dealer=0)
    engine.start_hand()
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    while (request := engine.chance_request()) is not None:
        engine.apply_chance([deck[p] for p in request.positions])
    return engine


def test_passive_never_knocks_and_plays_its_weakest_card() -> None:
    passive = bot_for("limit-tuppen", "passive")
    for seed in range(20):
        engine = _dealt("limit-tuppen", seed)
        seat = engine.to_act()[0]
        action = passive(engine, seat, random.Random(0), True)
        assert action is not None and action.kind == K.PLAY
        assert passive(engine, seat, random.Random(0), False) is None
        plays = [a for a in engine.legal_actions(seat) if a.kind == K.PLAY]
        assert strength(action.card) == min(strength(a.card) for a in plays)  # type: ignore[arg-type]
        engine.apply(action)
        after = engine.legal_actions(engine.to_act()[0])
        knock = next((a for a in after if a.kind == K.KNOCK), None)
        if knock is not None:
            engine.apply(knock)
            answer = passive(engine, engine.to_act()[0], random.Random(0), True)
            assert answer is not None and answer.kind == K.CALL


def test_passive_passes_the_bets_and_bids() -> None:
    for game in ("pottuppen", "belote"):
        engine = _dealt(game, 3)
        action = bot_for(game, "passive")(engine, engine.to_act()[0], random.Random(0), True)
        assert action is not None and action.kind == K.PASS


def test_random_draws_from_the_legal_moves_with_its_rng_only() -> None:
    engine = _dealt("pottuppen", 5)
    seat = engine.to_act()[0]
    chooser = bot_for("pottuppen", "random")
    picks = {chooser(engine, seat, random.Random(s), True) for s in range(40)}
    legal = engine.legal_actions(seat)
    assert picks == set(legal)  # 40 draws over a handful of moves: each one came up
    again = {chooser(engine, seat, random.Random(s), True) for s in range(40)}
    assert picks == again


def test_play_and_join_take_a_level_and_default_to_strong(tmp_path: Path) -> None:
    from dealerless.client.config import apply_config

    parser = build_parser()
    assert DEFAULT_LEVEL == "strong"
    args = parser.parse_args(["play", "--home", str(tmp_path)])
    assert args.level is None  # not given: the settings file's, else strong
    apply_config(args)
    assert args.level == "strong"
    assert parser.parse_args(["play", "--level", "basic"]).level == "basic"
    assert parser.parse_args(["join", "dl1:x", "--bot", "--level", "normal"]).level == "normal"
    with pytest.raises(SystemExit):
        parser.parse_args(["play", "--level", "random"])  # a measuring stick, not a level


def test_the_start_screen_level_reaches_the_play_command(tmp_path: Path) -> None:
    settings = Settings(name="ann", level="normal")
    argv = start_launch.play_argv(settings, StartChoice("play", "tuppen", 3))
    assert build_parser().parse_args(argv).level == "normal"
    path = tmp_path / "config.toml"
    path.write_text('level = "godlike"\n', encoding="utf-8")
    assert Settings.load(path).level == DEFAULT_LEVEL  # a bad saved value falls back
    path.write_text('level = "basic"\n', encoding="utf-8")
    assert Settings.load(path).level == "basic"
