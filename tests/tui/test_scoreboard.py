"""The game-over panel's final scoreboard (issue 25, item 6): every seat ranked the way its game
counts (winners first; fewest penalty points in Tuppen, most chips in Limit Tuppen), its final
score, and a chart of its score after each hand that goes up and down with the real standings."""

from __future__ import annotations

import dataclasses

import pytest
from tui_helpers import play_by_bot

from dealerless.client.tui import presenter as P
from dealerless.client.tui.model import TableSnapshot
from dealerless.client.tui.scoreboard import BARS_ASCII, BARS_UNICODE, ranking, scoreboard_lines
from dealerless.client.tui.session import LocalSession
from dealerless.protocol.rules.registry import make_config


def finished(game: str, players: int, options: dict[str, object], seed: int) -> TableSnapshot:
    session = LocalSession(make_config(game, players, options), seed=seed, human_name="ann")
    play_by_bot(session, seed=seed)
    snap = session.snapshot()
    assert snap.over and snap.outcome is not None
    return snap


def test_limit_tuppen_ranks_by_chips_and_charts_every_hand() -> None:
    snap = finished("limit-tuppen", 3, {"hands": 6}, seed=5)
    assert snap.outcome is not None
    lines = P.summary(snap, P.Look("en", True), None)
    start = next(i for i, line in enumerate(lines) if line.startswith("Final standings"))
    rows = lines[start + 1 : start + 4]
    order = ranking(snap)
    scores = snap.outcome.standings
    assert [scores[s] for s in order[1:]] == sorted((scores[s] for s in order[1:]), reverse=True)
    assert set(order[: len(snap.outcome.winners)]) == set(snap.outcome.winners)
    for row, seat in zip(rows, order, strict=True):
        assert str(scores[seat]) in row
        chart = row.split()[-1]
        assert len(chart) == 6 and set(chart) <= set(BARS_UNICODE)
    assert rows[0].startswith("*1.")  # the winner, marked


def test_tuppen_ranks_the_fewest_penalty_points_first() -> None:
    snap = finished("tuppen", 3, {}, seed=3)
    assert snap.outcome is not None
    order = ranking(snap)
    losers = [s for s in order if s not in snap.outcome.winners]
    points = [snap.outcome.standings[s] for s in losers]
    assert points == sorted(points)


def test_the_chart_follows_the_scores_and_ascii_stays_ascii() -> None:
    snap = finished("limit-tuppen", 3, {"hands": 6}, seed=5)
    lines = scoreboard_lines(snap, P.Look("en", False))
    charts = [line.split()[-1] for line in lines[1:]]
    assert all(set(c) <= set(BARS_ASCII) for c in charts)
    assert len({c for c in charts}) > 1  # the seats' fortunes differ, and the chart shows it


def test_a_hostile_name_is_printed_escaped_and_cut() -> None:
    snap = finished("limit-tuppen", 3, {"hands": 2}, seed=5)
    names = ("ann", "\x1b[2Jevil" + "x" * 60, "bob")
    lines = scoreboard_lines(dataclasses.replace(snap, names=names), P.Look("en", True))
    assert all("\x1b" not in line and len(line) <= 80 for line in lines)


@pytest.mark.parametrize("lang", ["de", "nl", "fr"])
def test_the_scoreboard_speaks_the_players_language(lang: str) -> None:
    snap = finished("limit-tuppen", 3, {"hands": 2}, seed=5)
    title = scoreboard_lines(snap, P.Look(lang, True))[0]
    assert not title.startswith("Final standings")
