"""The bots read nothing their seat cannot know (issue 14).

Every decision of every seat is asked twice with the same random state: of the bot on the
all-seeing referee engine and of the bot on its seat's own view engine (which has None for
every card the seat has not seen). The move and the random state afterwards must be the same;
:func:`play_game_with_views` raises otherwise. A bot that peeks is caught (the negative test).
"""

from __future__ import annotations

import random

import pytest

from dealerless.client.bots import BOT_MODULES
from dealerless.client.simulate import HiddenInformationError, play_game_with_views
from dealerless.protocol.rules.base import Action, ActionKind, Engine
from dealerless.protocol.rules.registry import make_config

LINEUPS = (
    ["strong", "normal", "strong", "basic"],
    ["strong", "random", "passive", "strong"],
)


@pytest.mark.parametrize("game", sorted(BOT_MODULES))
@pytest.mark.parametrize("lineup", LINEUPS, ids=["strong-normal-basic", "strong-random-passive"])
def test_every_decision_is_the_same_on_the_view_and_on_the_all_seeing_engine(
    game: str, lineup: list[str]
) -> None:
    config = make_config(game, 4, {"hands": 6} if game != "tuppen" and game != "belote" else {})
    record, steps = play_game_with_views(config, 11, lineup=lineup, check_hidden=True)
    assert record.outcome is not None and steps > 50


def test_a_bot_that_reads_another_seats_hand_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    import dealerless.client.bots.tuppen_strong as strong

    honest = strong.choose_action

    def peeking(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
        other = (seat + 1) % engine.players
        if required and any(s.card is not None for s in engine.hand(other)):
            rng.random()  # the referee lets it see more, and its random state drifts
        return honest(engine, seat, rng, required)

    monkeypatch.setattr(strong, "choose_action", peeking)
    with pytest.raises(HiddenInformationError, match="all-seeing engine"):
        play_game_with_views(
            make_config("tuppen", 4, {}), 3, lineup=["strong"] * 4, check_hidden=True
        )


def test_a_different_move_on_the_referee_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    import dealerless.client.bots.belote_strong as strong

    honest = strong.choose_action

    def peeking(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
        other = (seat + 1) % 4
        legal = engine.legal_actions(seat)
        plays = [a for a in legal if a.kind == ActionKind.PLAY]
        if len(plays) > 1 and all(s.card is not None for s in engine.hand(other)):
            return plays[-1]
        return honest(engine, seat, rng, required)

    monkeypatch.setattr(strong, "choose_action", peeking)
    with pytest.raises(HiddenInformationError):
        play_game_with_views(
            make_config("belote", 4, {}), 3, lineup=["strong"] * 4, check_hidden=True
        )
