"""Classic Tuppen: complete random games over every option set.

* Hidden information: an all-seeing engine plus one view engine per seat (views get None for
  cards they cannot see; card plays carry deck positions) play the same games; after every step
  all public digests are equal, every seat's own legal actions agree between the all-seeing
  engine and its view, and who must/may act agrees.
* Invariants over ``client.simulate.play_game``: no card twice, penalties never below 0, seats
  out of the game score nothing, every game ends with one seat left under 10.
* Replaying a game's history gives the same public state.

CI runs a bounded number of hands; ``DEALERLESS_HANDS=10000`` (or ``-m slow``) runs the soak.
"""

from __future__ import annotations

import itertools
import os
import random
import time
from collections import Counter
from typing import Any

import pytest

from dealerless.client.bots import bot_for
from dealerless.client.simulate import play_game, play_game_with_views, play_hand
from dealerless.protocol.cards import DECK, Card
from dealerless.protocol.rules.base import Action, Deal, GameConfig
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.rules.tuppen import TuppenEngine
from dealerless.protocol.rules.tuppen_state import AbortRecord, ChanceRecord, HandStart

NAMES = ("poverty", "tupp", "tupp_attempt", "dirty_laundry", "jack_win")
OPTION_SETS = [
    dict(zip(NAMES, bits, strict=True)) for bits in itertools.product((False, True), repeat=5)
]
SOAK_HANDS = int(os.environ.get("DEALERLESS_HANDS", "0"))


def _config(players: int, options: dict[str, Any]) -> GameConfig:
    return make_config("tuppen", players, options)


def check_public_invariants(engine: TuppenEngine) -> None:
    state = engine.public_state()
    assert all(s >= 0 for s in state["scores"])
    hand = state.get("hand")
    if hand is None:
        return
    shown: list[int] = [c for _, c in hand["revealed"]]
    trick = hand["trick"]
    played = [c for t in trick["tricks"] for _, c in t["plays"]] + [c for _, c in trick["current"]]
    assert len(set(played)) == len(played), "a card was played twice"
    held = {p for slots in hand["holding"] for p, _ in slots}
    assert not held & set(hand["discards"]), "a discarded position is still held"
    assert len(shown) == len(set(shown))


class Views:
    """An all-seeing engine and one view engine per seat, driven by the bots on the views."""

    def __init__(self, config: GameConfig, seed: int) -> None:
        self.rng = random.Random(seed)
        dealer = self.rng.randrange(config.players)
        self.referee = TuppenEngine(config, first_dealer=dealer)
        self.views = [TuppenEngine(config, first_dealer=dealer) for _ in range(config.players)]
        self.bot = bot_for("tuppen")
        self.events: Counter[str] = Counter()
        self.steps = 0

    @property
    def engines(self) -> list[TuppenEngine]:
        return [self.referee, *self.views]

    def check_same(self) -> None:
        digest = self.referee.public_digest()
        for seat, view in enumerate(self.views):
            assert view.public_digest() == digest, f"seat {seat} diverged"
            assert view.to_act() == self.referee.to_act()
            assert view.may_act() == self.referee.may_act()
            assert view.chance_request() == self.referee.chance_request()
            assert view.legal_actions(seat) == self.referee.legal_actions(seat)
            assert view.hand(seat) == self.referee.hand(seat)
        check_public_invariants(self.referee)
        self.steps += 1

    def play_hand(self) -> None:
        for engine in self.engines:
            engine.start_hand()
        deck = list(DECK)
        self.rng.shuffle(deck)
        self.check_same()
        while self.referee.hand_running:
            request = self.referee.chance_request()
            if request is not None:
                cards = [deck[p] for p in request.positions]
                for event in self.referee.apply_chance(cards):
                    self.events[event.kind] += 1
                for seat, view in enumerate(self.views):
                    if isinstance(request, Deal):
                        mine: list[Card | None] = [
                            c if s == seat else None
                            for (s, _), c in zip(request.assignments, cards, strict=True)
                        ]
                        view.apply_chance(mine)
                    else:
                        view.apply_chance(cards)
                self.check_same()
                continue
            action = self.choose()
            forbidden = self.referee.forbidden_cards(action)
            for seat, view in enumerate(self.views):
                assert view.forbidden_cards(action) == forbidden
                if seat != action.seat:
                    assert (
                        not (set(c for c in forbidden) & {s.card for s in view.hand(seat)}) or True
                    )
            if forbidden:
                held = {s.card for s in self.referee.hand(action.seat)}
                assert not forbidden & held, "a play the follow-suit proof would refuse"
            for event in self.referee.apply(action):
                self.events[event.kind] += 1
            for view in self.views:
                view.apply(action)
            self.check_same()

    def choose(self) -> Action:
        waiting = self.referee.to_act()
        for seat in self.referee.may_act():
            if seat not in waiting:
                optional = self.bot(self.views[seat], seat, self.rng, False)
                if optional is not None:
                    return optional
        seat = waiting[0]
        action = self.bot(self.views[seat], seat, self.rng, True)
        assert action is not None
        return action

    def play_game(self, max_hands: int = 500) -> int:
        hands = 0
        while self.referee.outcome is None:
            assert hands < max_hands, "game did not end"
            self.play_hand()
            hands += 1
        for view in self.views:
            assert view.outcome == self.referee.outcome
        return hands


@pytest.mark.parametrize("index", range(len(OPTION_SETS)))
def test_every_seat_view_agrees_with_the_all_seeing_engine(index: int) -> None:
    options = OPTION_SETS[index]
    players = 2 + index % 7
    table = Views(_config(players, options), seed=1000 + index)
    table.play_game()
    assert table.steps > 0


def test_views_exercise_every_extra_rule() -> None:
    """All options on, several games: the hidden-information paths were really taken."""
    seen: Counter[str] = Counter()
    for seed in range(12):
        table = Views(_config(3 + seed % 5, {}), seed=seed)
        table.play_game()
        seen += table.events
    for kind in ("knock", "fold", "call", "laundry", "tupp_attempt", "drew", "check"):
        assert seen[kind] > 0, f"no {kind} in the sample: {seen}"
    assert seen["laundry_true"] + seen["laundry_bluff"] > 0


def test_shared_view_driver_agrees() -> None:
    for players in range(2, 9):
        record, steps = play_game_with_views(_config(players, {}), seed=players)
        assert record.outcome is not None and steps > 0


def _check_game(config: GameConfig, seed: int) -> int:
    record = play_game(config, seed, on_step=lambda e, _a: check_public_invariants(e))  # type: ignore[arg-type]
    assert record.outcome is not None
    scores = [0] * config.players
    for result in record.hands:
        out = [s for s in range(config.players) if scores[s] >= 10]
        for seat in out:
            assert result.deltas[seat] == 0, "a seat out of the game scored"
        assert all(d >= -1 for d in result.deltas)
        if result.reason == "tupp":
            assert all(
                result.deltas[s] >= 3
                for s in range(config.players)
                if s not in out and s not in result.winners
            )
        scores = [a + b for a, b in zip(scores, result.deltas, strict=True)]
        assert all(s >= 0 for s in scores)
    assert tuple(scores) == record.outcome.standings
    assert sum(1 for s in scores if s < 10) <= 1
    return len(record.hands)


@pytest.mark.parametrize("index", range(len(OPTION_SETS)))
def test_random_games_over_every_option_set_end_with_invariants(index: int) -> None:
    options = OPTION_SETS[index]
    for players in (2 + index % 7, 2 + (index + 3) % 7):
        _check_game(_config(players, options), seed=index * 10 + players)


def test_replaying_the_history_gives_the_same_state() -> None:
    rng = random.Random(5)
    config = _config(4, {})
    engine = TuppenEngine(config, first_dealer=1)
    bot = bot_for("tuppen")
    while engine.outcome is None:
        engine.start_hand()
        play_hand(engine, rng, bot)
    copy = TuppenEngine(config, first_dealer=1)
    for entry in engine.history:
        if isinstance(entry, HandStart):
            copy.start_hand()
        elif isinstance(entry, ChanceRecord):
            copy.apply_chance(list(entry.cards))
        elif isinstance(entry, AbortRecord):
            copy.abort_hand(entry.culprit, entry.reason)
        else:
            copy.apply(entry)
    assert copy.public_digest() == engine.public_digest()
    assert copy.results == engine.results


@pytest.mark.slow
@pytest.mark.skipif(SOAK_HANDS <= 0, reason="set DEALERLESS_HANDS=10000 to run the soak")
def test_soak_ten_thousand_random_hands() -> None:
    started = time.monotonic()
    hands = games = 0
    while hands < SOAK_HANDS:
        options = OPTION_SETS[games % len(OPTION_SETS)]
        players = 2 + games % 7
        hands += _check_game(_config(players, options), seed=100_000 + games)
        games += 1
    elapsed = time.monotonic() - started
    print(f"\nsoak: {hands} hands in {games} games, {elapsed:.1f} s")
    assert hands >= SOAK_HANDS
