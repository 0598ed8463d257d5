"""The strong Belote bot: bids from what its hand can win, plays from the cards still out.

It reads only its own cards and the public state (turned-up card, bids, trump, tricks).

* Bidding (:mod:`belote_bidding`): for every suit it may name, the points taking it should gain
  over passing, from the hand as the taker would hold it (the turned-up card included), its
  seat relative to the dealer and the round; it takes the best suit when that gain clears
  :data:`belote_bidding.TAKE_MARGIN`.
* Card play (:mod:`belote_strong_play`): deals of the unseen cards consistent with every play's
  obligation, drawn by how well they explain the bids, each legal card played out on them with a
  full-information policy and an exact end (exact search once three tricks are left). What
  the discards say enters through the obligations: a seat that did not follow or trump is dealt
  none of the cards its play showed it does not hold.
"""

from __future__ import annotations

import random
from typing import Any

from dealerless.client.bots.belote_bidding import choose_bid
from dealerless.client.bots.belote_fast import SEATS
from dealerless.client.bots.belote_strong_play import choose_card
from dealerless.protocol.rules.base import Action, ActionKind, Engine


def choose_action(engine: Engine, seat: int, rng: random.Random, required: bool) -> Action | None:
    legal = engine.legal_actions(seat)
    if not legal:
        return None
    state: dict[str, Any] = engine.public_state()
    if state["phase"] == "bidding":
        return _bid(state, seat, [s.card.index for s in engine.hand(seat) if s.card], legal)
    return choose_card(engine, seat, rng)


def _bid(state: dict[str, Any], seat: int, mine: list[int], legal: list[Action]) -> Action:
    turned = int(state["turned"][1])
    offers = {int(a.suit): a for a in legal if a.kind == ActionKind.BID and a.suit is not None}
    second_round = len(state["bids"]) >= SEATS
    suit = choose_bid([*mine, turned], list(offers), seat, int(state["dealer"]), second_round)
    if suit is not None:
        return offers[suit]
    return next(a for a in legal if a.kind == ActionKind.PASS)
