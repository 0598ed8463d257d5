"""Limit Tuppen and its variants show the chips in front of each seat during a hand (its stack
less what it has put into the pot), not only the net result that changes at hand end."""

from __future__ import annotations

import random

import pytest
from tui_helpers import snapshot

from dealerless.client.bots import bot_for
from dealerless.client.tui import presenter as P
from dealerless.client.tui.model import chips_in_front
from dealerless.protocol.cards import DECK
from dealerless.protocol.rules.registry import make_config, new_engine


@pytest.mark.parametrize("game", ["limit-tuppen", "no-limit-tuppen", "pot-limit-tuppen"])
@pytest.mark.parametrize("mode", ["cash", "play-money", "tournament"])
def test_chips_in_front_plus_the_pot_are_the_stacks(game: str, mode: str) -> None:
    engine = new_engine(make_config(game, 3, {"mode": mode, "hands": 2}))
    rng = random.Random(5)
    deck = list(DECK)
    rng.shuffle(deck)
    bot = bot_for(game)
    engine.start_hand()
    seen_bets = False
    while engine.hand_running:
        request = engine.chance_request()
        if request is not None:
            engine.apply_chance([deck[p] for p in request.positions])
            continue
        seat = engine.to_act()[0]
        engine.apply(bot(engine, seat, rng, True))
        if not engine.hand_running:
            break
        state = engine.public_state()
        chips = chips_in_front(state)
        stacks = state["bank"]["stacks"]
        pot = state["betting"]["pot"]
        assert sum(chips) + pot == sum(stacks)  # nothing created or lost mid-hand
        seen_bets |= pot > 0 and chips != tuple(stacks)
    assert seen_bets  # antes at least went into the pot


def test_the_seat_list_shows_them() -> None:
    snap = snapshot(stacks=(47, 50, 49, 50))
    text = "".join(t for _, t, *_ in P.seats(snap, P.Look("de")))
    assert "vor sich   47" in text and "vor sich   49" in text
    assert "in front" not in "".join(t for _, t, *_ in P.seats(snapshot(), P.Look("en")))


def test_games_without_stacks_show_none() -> None:
    engine = new_engine(make_config("tuppen", 3))
    engine.start_hand()
    assert chips_in_front(engine.public_state()) == ()
