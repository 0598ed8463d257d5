"""``dealerless simulate --lineup ... --rotate --json``: per-kind figures, checked inputs."""

from __future__ import annotations

import json
import math

import pytest

from dealerless.client.cli import main
from dealerless.client.lineup_stats import rotated, summarise


def test_rotation_moves_the_odd_seat_through_every_seat() -> None:
    lineup = ["strong", "basic", "basic", "basic"]
    assert [rotated(lineup, g, True).index("strong") for g in range(5)] == [0, 1, 2, 3, 0]
    assert rotated(lineup, 3, False) == lineup
    assert rotated(["a", "b", "a", "b"], 1, True) == ["b", "a", "b", "a"]


def test_figures_count_each_game_once_per_kind() -> None:
    games = [
        {"lineup": ["s", "b", "b", "b"], "standing": [10, 0, 2, 4], "winners": [0]},
        {"lineup": ["b", "s", "b", "b"], "standing": [3, -2, 3, 0], "winners": [0, 2]},
    ]
    f = summarise(games)
    assert f["s"]["wins"] == 1 and f["s"]["seat_games"] == 2 and f["s"]["win_rate"] == 0.5
    assert f["s"]["mean_standing"] == 4.0
    assert f["s"]["standard_error"] == round(math.sqrt(((10 - 4) ** 2 + (-2 - 4) ** 2) / 2), 3)
    assert f["b"]["wins"] == 2 and f["b"]["seat_games"] == 6
    assert f["b"]["mean_standing"] == 2.0  # games: mean(0, 2, 4) = 2 and mean(3, 3, 0) = 2


def test_the_command_reports_per_kind(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--game", "tuppen", "--engine-only", "--games", "4", "--json"]
    assert main([*argv, "--lineup", "strong,basic,basic,basic", "--rotate"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [g["lineup"].index("strong") for g in doc["games"]] == [0, 1, 2, 3]
    assert doc["kinds"]["strong"]["seat_games"] == 4
    assert doc["kinds"]["basic"]["seat_games"] == 12
    assert set(doc["kinds"]["strong"]) >= {"wins", "win_rate", "mean_standing", "standard_error"}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--lineup", "strong,expert,basic,basic"], "unknown kind 'expert'"),
        (["--lineup", "strong,basic"], "names 2 kinds for 4 seats"),
        (["--rotate"], "--rotate needs --lineup"),
    ],
)
def test_bad_lineups_exit_2_saying_what_is_wrong(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--game", "tuppen", "--engine-only", *extra]) == 2
    assert message in capsys.readouterr().err
