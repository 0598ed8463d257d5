"""Limit Tuppen and its variants show the chips in front of each seat during a hand: what it
has left after the ante and its bets (the engine takes them off the stack when they are paid),
never negative, and with the pot always the chips the seats brought to the hand."""

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
    before = list(engine.public_state()["bank"]["stacks"])
    engine.start_hand()
    seen_bets = False
    first = True
    while engine.hand_running:
        request = engine.chance_request()
        if request is not None:
            engine.apply_chance([deck[p] for p in request.positions])
            continue
        state = engine.public_state()
        chips = chips_in_front(state)
        pot = state["betting"]["pot"]
        assert all(c >= 0 for c in chips), chips
        assert sum(chips) + pot == sum(before)  # nothing created or lost mid-hand
        if first:  # only the antes are paid: each seat has its stack less its ante
            paid = state["ante_paid"]
            assert chips == tuple(b - a for b, a in zip(before, paid, strict=True))
            assert pot == sum(paid) > 0
            first = False
        seen_bets |= any(state["betting"]["bets"])
        seat = engine.to_act()[0]
        engine.apply(bot(engine, seat, rng, True))
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
