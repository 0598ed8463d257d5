"""The strong Belote bot's card play: sampled deals weighed by the bidding, played out.

It reads only its own cards and the public state. The unseen cards are dealt consistently with
everything public (:func:`belote_sim.play_problem`: the turned-up card sits with the taker until
played; every play's obligation shows cards that seat cannot hold). Of :data:`CANDIDATES`
such deals, :data:`DEALS` are drawn by how well each explains the bids
(:mod:`belote_inference`: the taker's trumps, the passers' weakness). Every legal card is then
valued on those deals: by exact search (:mod:`belote_endgame`) once at most
:data:`EXACT_TRICKS` tricks are left, before that by a playout with the full-information policy
of :mod:`belote_playout`. The best mean result for the seat's team wins.
"""

from __future__ import annotations

import random
from typing import Any

from dealerless.client.bots.belote_endgame import card_values
from dealerless.client.bots.belote_fast import (
    TRICKS,
    FastRules,
    Play,
    Position,
    belote_team,
    make_rules,
)
from dealerless.client.bots.belote_inference import bid_weight, play_weight
from dealerless.client.bots.belote_playout import play_to_end
from dealerless.client.bots.belote_sampled_play import rules_of
from dealerless.client.bots.belote_sim import play_problem
from dealerless.client.bots.sampling import deal
from dealerless.protocol.cards import Card, Suit
from dealerless.protocol.rules.base import Action, Engine

PLAYOUT_BUDGET = 400  # playouts per decision, shared among the legal cards
MIN_DEALS = 16
MAX_DEALS = 80
CANDIDATE_FACTOR = 3  # deals dealt per deal kept, to choose them by the bidding
EXACT_TRICKS = 3
EXACT_DEALS = 24
PLAY_MISMATCH = 1.0
EXACT_TAIL = 2  # a playout's last tricks are searched exactly (measured: +6 points a hand)


def choose_card(engine: Engine, seat: int, rng: random.Random) -> Action:
    """The card-play decision of ``seat`` (it must be its turn to play)."""
    state: dict[str, Any] = engine.public_state()
    mine = [s.card for s in engine.hand(seat) if s.card is not None]
    legal = [a for a in engine.legal_actions(seat) if a.card is not None]
    if len(legal) == 1:
        return legal[0]
    values = card_means(state, seat, mine, [a.card for a in legal if a.card], rng)
    rules = make_rules(int(state["trump"]), int(state["taker"]))  # card points and order

    def key(index: int) -> tuple[float, int, int]:
        card = legal[index].card
        assert card is not None
        # ties: keep the cheaper card
        return (values[index], -rules.points[card.index], -rules.power[card.index])

    return legal[max(range(len(legal)), key=key)]


def card_means(
    state: dict[str, Any], seat: int, mine: list[Card], cards: list[Card], rng: random.Random
) -> list[float]:
    """The mean result for ``seat``'s team of playing each of ``cards`` now."""
    trump = Suit(state["trump"])
    taker = int(state["taker"])
    table = rules_of(state, trump, taker)
    rules = make_rules(
        int(trump),
        taker,
        overtrump_partner=table.overtrump_partner,
        capot=table.capot,
        counts_belote=table.counts_belote,
    )
    tricks = [
        ([(s, Card.from_index(c)) for s, c in t["plays"]], int(t["winner"]))
        for t in state["tricks"]
    ]
    current = [(s, Card.from_index(c)) for s, c in state["current"]]
    turned = Card.from_index(state["turned"][1])
    counts = [len(h) for h in state["hands"]]
    problem = play_problem(seat, mine, counts, tricks, current, table, turned)
    left = TRICKS - len(tricks)
    exact = left <= EXACT_TRICKS
    wanted = EXACT_DEALS if exact else max(MIN_DEALS, min(MAX_DEALS, PLAYOUT_BUDGET // len(cards)))
    played: dict[int, list[int]] = {s: [] for s in range(4)}
    for plays, _ in tricks:
        for s, c in plays:
            played[s].append(c.index)
    for s, c in current:
        played[s].append(c.index)
    bids = [(int(s), None if b is None else int(b)) for s, b in state["bids"]]
    history = [(s, c.index) for plays, _ in tricks for s, c in plays] + [
        (s, c.index) for s, c in current
    ]
    first_leader = history[0][0] if history else seat
    candidates: list[list[list[int]]] = []
    weights: list[float] = []
    for _ in range(wanted * CANDIDATE_FACTOR):
        dealt = deal(problem, rng)
        hands = [
            [c.index for c in dealt[s]] if s != seat else [c.index for c in mine] for s in range(4)
        ]
        holdings = [hands[s] + played[s] for s in range(4)]
        candidates.append(hands)
        weight = bid_weight(holdings, bids, turned.index, taker, seat, rng)
        if PLAY_MISMATCH < 1.0:
            weight *= play_weight(holdings, history, first_leader, seat, rules, PLAY_MISMATCH)
        weights.append(weight)
    chosen = _resample(candidates, weights, wanted, rng)
    totals = [0.0] * len(cards)
    indices = [c.index for c in cards]
    for hands in chosen:
        pos = _position(hands, tricks, current, seat, rules, played)
        if exact:
            for i, value in enumerate(card_values(pos, rules, seat % 2, indices)):
                totals[i] += value
            continue
        for i, card in enumerate(indices):
            trial = pos.copy()
            trial.play(card, rules)
            totals[i] += play_to_end(trial, rules, seat % 2, EXACT_TAIL)
    return [t / len(chosen) for t in totals]


def _resample(
    candidates: list[list[list[int]]], weights: list[float], wanted: int, rng: random.Random
) -> list[list[list[int]]]:
    """``wanted`` deals drawn in proportion to their weights (systematic resampling: every
    deal with a weight of at least one share is kept)."""
    total = sum(weights)
    if total <= 0:
        return candidates[:wanted]
    step = total / wanted
    point = rng.random() * step
    out: list[list[list[int]]] = []
    running = 0.0
    for hands, weight in zip(candidates, weights, strict=True):
        running += weight
        while point < running and len(out) < wanted:
            out.append(hands)
            point += step
    while len(out) < wanted:
        out.append(candidates[-1])
    return out


def _position(
    hands: list[list[int]],
    tricks: list[tuple[list[tuple[int, Card]], int]],
    current: list[tuple[int, Card]],
    seat: int,
    rules: FastRules,
    played: dict[int, list[int]],
) -> Position:
    team_points = [0, 0]
    seat_tricks = [0, 0, 0, 0]
    last = -1
    for plays, winner in tricks:
        team_points[winner % 2] += sum(rules.points[c.index] for _, c in plays)
        seat_tricks[winner] += 1
        last = winner
    on_table: list[Play] = [(s, c.index) for s, c in current]
    holdings = [hands[s] + played[s] for s in range(4)]
    return Position(
        [list(h) for h in hands],
        on_table,
        seat,
        team_points,
        seat_tricks,
        belote_team(holdings, rules),
        last,
    )
