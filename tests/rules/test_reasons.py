"""Every hand and game end carries a reason code (protocol/rules/reasons.py) beside its English
text, so a client can say it in its own language; a voided hand keeps the violation as its
note."""

from __future__ import annotations

from collections import Counter

import pytest

from dealerless.client.simulate import play_game
from dealerless.protocol.rules.reasons import GameEnd, HandEnd
from dealerless.protocol.rules.registry import game_names, make_config, new_engine

OPTIONS = {"belote": {"target": 301}, "pottuppen": {"hands": 6}}


@pytest.mark.parametrize("game", game_names())
def test_every_result_and_outcome_has_a_code(game: str) -> None:
    codes: Counter[str] = Counter()
    for seed in range(6):
        players = 4 if game == "belote" else 3
        options = OPTIONS.get(game, {"hands": 6} if "limit" in game else {})
        record = play_game(make_config(game, players, options), seed)
        for result in record.hands:
            assert result.code in set(HandEnd), (game, result)
            assert result.code != HandEnd.VOIDED and not result.note
            codes[result.code] += 1
        assert record.outcome is not None and record.outcome.code in set(GameEnd), record.outcome
    assert codes  # hands were played


@pytest.mark.parametrize("game", game_names())
def test_a_voided_hand_has_the_voided_code_and_the_violation_as_its_note(game: str) -> None:
    players = 4 if game == "belote" else 3
    engine = new_engine(make_config(game, players, OPTIONS.get(game, {})))
    engine.start_hand()
    result = engine.abort_hand(1, "seat 1 was silent")
    assert result.code == HandEnd.VOIDED and result.note == "seat 1 was silent"
    assert result.note in result.reason  # the English text still names it
