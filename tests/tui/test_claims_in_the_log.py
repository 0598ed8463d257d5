"""A checked claim is told in the move log and the hand history when the cards are shown, not
only on the end-of-hand panel (issue 25, item 13): a dirty-laundry check (genuine or a bluff,
and who pays), a Tupp and a Tupp attempt."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from tui_helpers import play_by_bot, snapshot

from dealerless.client.tui import presenter as P
from dealerless.client.tui.i18n import LANGUAGES
from dealerless.client.tui.model import TableSnapshot
from dealerless.client.tui.session import LocalSession
from dealerless.protocol.cards import Card, Rank, Suit
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table.events import ActionApplied, CardsShown, HandStarted, TableEvent

EN = P.Look("en", False)
K = ActionKind


def move(kind: ActionKind, seat: int, **fields: object) -> ActionApplied:
    return ActionApplied(Action(kind, seat, **fields))  # type: ignore[arg-type]


def shown(seat: int, ranks: Sequence[Rank]) -> CardsShown:
    cards = [Card(suit, rank) for rank, suit in zip(ranks, Suit, strict=False)]
    return CardsShown(seat, tuple((10 + i, c.index) for i, c in enumerate(cards)))


def table(log: Sequence[TableEvent], game: str = "tuppen") -> TableSnapshot:
    return snapshot(game=game, log=(HandStarted(1, 3), *log), my_turn=False)


def after(lines: list[str], first: str) -> str:
    """The line after the first one that contains ``first``."""
    index = next(i for i, line in enumerate(lines) if first in line)
    return lines[index + 1]


PICTURES = (Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)
BLUFF = (Rank.JACK, Rank.EIGHT, Rank.NINE, Rank.ACE)


def test_a_laundry_check_is_told_when_the_cards_are_shown() -> None:
    true = table([move(K.LAUNDRY, 1), move(K.CHECK, 2), shown(1, PICTURES)])
    bluff = table([move(K.LAUNDRY, 1), move(K.CHECK, 2), shown(1, BLUFF)])
    true_line = "cy checked bob's dirty laundry, it was genuine: cy +1"
    bluff_line = "cy checked bob's dirty laundry, a bluff: bob +1"
    assert after(P.log_lines(true, EN), "bob shows") == true_line
    assert after(P.log_lines(bluff, EN), "bob shows") == bluff_line
    assert after(P.hand_history(true, EN), "cy: check the laundry").strip() == true_line
    assert after(P.hand_history(bluff, EN), "cy: check the laundry").strip() == bluff_line


def test_a_limit_laundry_check_costs_a_chip() -> None:
    snap = table([move(K.LAUNDRY, 1), move(K.CHECK, 2), shown(1, BLUFF)], "limit-tuppen")
    line = "cy checked bob's dirty laundry, a bluff: bob pays 1 chip into the pot"
    assert after(P.log_lines(snap, EN), "bob shows") == line


def test_a_tupp_and_a_tupp_attempt_are_told_when_shown() -> None:
    sevens = (Rank.SEVEN,) * 4
    tupp = table([move(K.TUPP, 1), shown(1, sevens)])
    line = "bob has a Tupp (four of a kind) and wins the hand: every other seat +3"
    assert after(P.log_lines(tupp, EN), "bob shows") == line
    assert after(P.hand_history(tupp, EN), "bob: Tupp").strip() == line
    three = tuple(Card(s, Rank.NINE) for s in list(Suit)[:3])
    attempt = table([move(K.TUPP_ATTEMPT, 2, cards=three, position=5), shown(2, (Rank.NINE,) * 3)])
    line = "cy's three of a kind are real: cy draws a new fourth card"
    assert after(P.log_lines(attempt, EN), "cy shows") == line
    for lang in LANGUAGES:  # every language says it, with every value filled in
        for snap in (tupp, attempt):
            words = P.log_lines(snap, P.Look(lang, True))
            assert len(words) == 4 and "{" not in words[-1], words


def test_a_real_games_laundry_checks_are_in_its_log() -> None:
    """Tuppen played by bots over the real protocol: every laundry check the result panels
    explain is in the move log as well. The deck is shuffled anew each game (fresh keys), so
    games are played until one has a check."""
    for _ in range(12):
        session = LocalSession(make_config("tuppen", 3, {"dirty_laundry": True}), seed=2)
        play_by_bot(session, until_hands=2)
        snap = replace(session.snapshot(), earlier=())  # the results of this part of the table
        said = [line for line in P.log_lines(snap, EN) if "dirty laundry," in line]
        if said:
            break
    else:
        pytest.skip("no laundry was checked in 12 games")
    panels = [line for r in snap.results for line in P.summary(snap, EN, r)]
    assert sorted(said) == sorted(line for line in panels if "dirty laundry," in line)
