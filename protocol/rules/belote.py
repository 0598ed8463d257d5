"""Classic 4-player Belote in two partnerships, to 501 points (seed 002).

Seats 0..3 are numbered in the direction of play; partners sit opposite (teams {0, 2} and
{1, 3}). A hand runs:

1. ``deal``: one Deal chance step, 3 cards to each seat starting after the dealer, then 2 each
   (deck positions 0..19 from the top).
2. ``turnup``: a TurnUp chance step shows position 20 to everyone.
3. ``bidding``: round 1, each seat from the dealer's next may BID the turned-up suit or PASS;
   round 2, BID any other suit or PASS. The first BID ends the bidding; eight passes end the hand
   as a redeal (zero deltas, reason "all passed: redeal").
4. ``deal2``: the taker takes the turned-up card (public) and gets 2 more, every other seat 3,
   dealt from the dealer's next seat round the table (positions 21..31).
5. ``play``: eight tricks (obligations in :mod:`belote_tricks`), led first by the dealer (seed)
   or the seat after the dealer (option ``first_lead``).
6. Scoring by :mod:`belote_scoring`; the game ends when a team has reached ``target`` points and
   is ahead (equal scores at or over the target play on).

The next hand is always dealt by the next seat in play order, also after a redeal. Decisions
and the rule-by-rule mapping are in spec/rules/belote.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dealerless.protocol.cards import Card, Rank, Suit
from dealerless.protocol.rules.base import (
    Action,
    ActionKind,
    ChanceRequest,
    ConfigError,
    Deal,
    Engine,
    Event,
    GameConfig,
    HandResult,
    HandSlot,
    HistoryStep,
    IllegalAction,
    OptionSpec,
    Outcome,
    TurnUp,
    apply_history_step,
)
from dealerless.protocol.rules.belote_scoring import (
    ALL_CARD_POINTS,
    BELOTE_BONUS,
    belote_holder,
    score_hand,
    team_of,
    team_seats,
)
from dealerless.protocol.rules.belote_tricks import (
    TRICKS_PER_HAND,
    Obligation,
    legal_cards,
    obligation,
    winning_play,
)
from dealerless.protocol.rules.hands import Hands
from dealerless.protocol.rules.reasons import GameEnd, HandEnd
from dealerless.protocol.rules.registry import GameSpec

SEATS = 4
FIRST_CARDS = 5  # 3 + 2 before the turn-up
TURNUP_POSITION = 20
REDEAL_REASON = "all passed: redeal"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "target",
        501,
        "points a team needs to win the game (seed: 501)",
        minimum=1,
        maximum=100_000,
    ),
    OptionSpec(
        "first_lead",
        "dealer",
        "who leads the first trick: the dealer (seed 002) or the seat after the dealer",
        choices=("dealer", "next"),
    ),
    OptionSpec(
        "overtrump_partner_on_trump_lead",
        False,
        "when trumps are led, over-trump even when the partner is winning (off: the seed's "
        "partner exemption covers every over-trump)",
    ),
    OptionSpec(
        "capot",
        "replace",
        "a capot's 252/350 replaces the 162 card points (replace) or comes on top (add)",
        choices=("replace", "add"),
    ),
    OptionSpec(
        "contract_counts_belote",
        True,
        "belote counts when comparing the teams' points for the failed-contract rule",
    ),
)


@dataclass(frozen=True)
class Trick:
    plays: tuple[tuple[int, Card], ...]
    winner: int


# The fields each kind of move may carry (besides kind and seat); a pass's suit and card are
# refused by the bidding's own check, with its own words.
BELOTE_FIELDS: dict[ActionKind, tuple[str, ...]] = {
    ActionKind.PASS: ("suit", "card"),
    ActionKind.BID: ("suit",),
    ActionKind.PLAY: ("card", "position"),
}


def _extra_fields(action: Action, allowed: tuple[str, ...]) -> str:
    """The first field ``action`` carries that its kind does not ("" if none)."""
    for name in ("card", "amount", "suit", "cards", "position"):
        value = getattr(action, name)
        if name not in allowed and value not in (None, ()):
            return name
    return ""


class BeloteEngine(Engine):
    game = "belote"

    def __init__(self, config: GameConfig, *, first_dealer: int = 0) -> None:
        if config.players != SEATS:
            raise ConfigError(f"belote is for exactly {SEATS} players, not {config.players}")
        super().__init__(config, first_dealer=first_dealer)
        self.target = config.int_option("target")
        self.first_lead = config.str_option("first_lead")
        self.overtrump_partner = config.bool_option("overtrump_partner_on_trump_lead")
        self.capot_mode = config.str_option("capot")
        self.contract_counts_belote = config.bool_option("contract_counts_belote")
        self.team_scores = [0, 0]
        self.history: list[HistoryStep] = []
        self._reset_hand()
        self.phase = "idle"

    def _reset_hand(self) -> None:
        self.phase = "deal"
        self.hands = Hands(SEATS)
        self.turned: HandSlot | None = None
        self.bids: list[tuple[int, Suit | None]] = []  # (seat, suit) in order; None = pass
        self.taker: int | None = None
        self.trump: Suit | None = None
        self.leader = 0
        self.current: list[tuple[int, Card]] = []
        self.tricks: list[Trick] = []
        self._pending: ChanceRequest | None = None

    # -- helpers --
    def _where(self) -> str:
        parts = [f"hand {self.hand_number}"]
        if self.phase == "play":
            parts.append(f"trick {len(self.tricks) + 1}")
        parts.append(f"phase {self.phase}")
        return ", ".join(parts)

    def _fail(self, reason: str, seat: int | None = None) -> IllegalAction:
        return IllegalAction(reason, seat=seat, where=self._where())

    def _after(self, seat: int, steps: int = 1) -> int:
        return (seat + steps) % SEATS

    @property
    def bid_round(self) -> int:
        return 1 if len(self.bids) < SEATS else 2

    def _bidder(self) -> int:
        return self._after(self.dealer, 1 + len(self.bids) % SEATS)

    def next_to_play(self) -> int | None:
        if self.phase != "play":
            return None
        if not self.current:
            return self.leader
        return self._after(self.current[-1][0])

    # -- hands --
    @property
    def hand_running(self) -> bool:
        return self.phase not in ("idle", "done")

    def start_hand(self) -> list[Event]:
        if self.hand_running:
            raise self._fail("a hand is already running")
        if self.outcome is not None:
            raise self._fail("the game is over")
        self._hand_begins(self._after(self.dealer) if self.hand_number > 0 else self.dealer)
        self._reset_hand()
        order = [self._after(self.dealer, i) for i in range(1, SEATS + 1)]
        positions = iter(self.hands.take_positions(SEATS * FIRST_CARDS))
        assignments = [(s, next(positions)) for s in order for _ in range(3)]
        assignments += [(s, next(positions)) for s in order for _ in range(2)]
        self._pending = Deal(tuple(assignments))
        self.history.append(HistoryStep("start"))
        return [Event("hand_started", self.dealer, {"hand": self.hand_number})]

    # -- chance --
    def chance_request(self) -> ChanceRequest | None:
        return self._pending if self.hand_running else None

    def apply_chance(self, cards: Sequence[Card | None]) -> list[Event]:
        request = self.chance_request()
        if request is None:
            raise self._fail("no chance step is pending")
        if len(cards) != len(request.positions):
            raise self._fail(f"{len(request.positions)} cards needed, {len(cards)} given")
        known = [c for c in cards if c is not None]
        for known_card in known:
            if not isinstance(known_card, Card):
                raise self._fail(f"not a card: {known_card!r}")
            if known_card in self.hands.seen or known.count(known_card) > 1:
                raise self._fail(f"card {known_card} appears twice")
        if isinstance(request, TurnUp):
            up = cards[0]
            if up is None:
                raise self._fail("the turned-up card is shown to everyone, it cannot be None")
            return self._commit(HistoryStep("chance", cards=tuple(cards)), self._turn_up(up))
        assert isinstance(request, Deal)
        for (seat, position), dealt in zip(request.assignments, cards, strict=True):
            self.hands.receive(seat, (position,), (dealt,))
        if self.phase == "deal":
            self.phase = "turnup"
            self._pending = TurnUp(self.hands.take_positions(1)[0])
            events = [Event("dealt", None, {"cards": FIRST_CARDS})]
        else:
            self._start_play()
            events = [Event("dealt", None, {"rest": True}), Event("play_started", self.leader)]
        return self._commit(HistoryStep("chance", cards=tuple(cards)), events)

    def _commit(self, entry: HistoryStep, events: list[Event]) -> list[Event]:
        self.history.append(entry)
        return events

    def _turn_up(self, card: Card) -> list[Event]:
        assert isinstance(self._pending, TurnUp)
        self.hands.note_seen(card, "turned up")
        self.turned = HandSlot(self._pending.position, card)
        self.phase = "bidding"
        self._pending = None
        return [Event("turned_up", self.dealer, {"card": card.index})]

    def _start_play(self) -> None:
        self.phase = "play"
        self._pending = None
        self.leader = self.dealer if self.first_lead == "dealer" else self._after(self.dealer)

    # -- actions --
    def to_act(self) -> tuple[int, ...]:
        if self.phase == "bidding":
            return (self._bidder(),)
        seat = self.next_to_play()
        return () if seat is None else (seat,)

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        if self.phase == "bidding":
            assert self.turned is not None
            up = self.turned.card
            assert up is not None
            suits = [up.suit] if self.bid_round == 1 else [s for s in Suit if s != up.suit]
            bids = [Action(ActionKind.BID, seat, suit=s) for s in suits]
            return [*bids, Action(ActionKind.PASS, seat)]
        assert self.trump is not None
        held = set(self.hands.known(seat))
        playable = sorted(
            (slot.card, slot.position)
            for slot in self.hands.slots[seat]
            if slot.card is not None and not self._obligation(seat, slot.card).forbidden & held
        )
        return [Action(ActionKind.PLAY, seat, card=c, position=p) for c, p in playable]

    def legal_cards(self, seat: int) -> list[Card]:
        """The cards a fully known hand may play now (for bots and tests)."""
        if self.trump is None or self.next_to_play() != seat:
            return []
        return legal_cards(
            self.current,
            seat,
            self.hands.known(seat),
            self.trump,
            overtrump_partner_on_trump_lead=self.overtrump_partner,
        )

    def _obligation(self, seat: int, card: Card) -> Obligation:
        assert self.trump is not None
        return obligation(
            self.current,
            seat,
            card,
            self.trump,
            overtrump_partner_on_trump_lead=self.overtrump_partner,
        )

    def verify(self, action: Action) -> None:
        seat = action.seat
        if not 0 <= seat < SEATS:
            raise self._fail(f"no seat {seat} at a belote table")
        if self._pending is not None or not self.hand_running:
            raise self._fail(f"{action.kind.value} not possible now", seat)
        extra = _extra_fields(action, BELOTE_FIELDS.get(action.kind, ()))
        if extra:
            # what the wire form and the schema refuse (spec/rules/wire.md): an independent
            # peer refuses it too, so ours must not accept it and go another way
            raise self._fail(f"a belote {action.kind.value} carries no {extra}", seat)
        if action.kind in (ActionKind.BID, ActionKind.PASS):
            self._verify_bid(action)
        elif action.kind == ActionKind.PLAY:
            self._verify_play(action)
        else:
            raise self._fail(f"belote has no {action.kind.value} action", seat)

    def _verify_bid(self, action: Action) -> None:
        seat = action.seat
        if self.phase != "bidding":
            raise self._fail(f"{action.kind.value} only during the bidding", seat)
        expected = self._bidder()
        if seat != expected:
            raise self._fail(f"not your turn to bid, seat {expected} is to bid", seat)
        if action.kind == ActionKind.PASS:
            if action.suit is not None or action.card is not None:
                raise self._fail("a pass names no suit or card", seat)
            return
        assert self.turned is not None and self.turned.card is not None
        up = self.turned.card.suit
        if action.suit is None:
            raise self._fail("a bid must name the trump suit", seat)
        if self.bid_round == 1 and action.suit != up:
            raise self._fail(
                f"in the first round only the turned-up suit {up.name.lower()} may be taken", seat
            )
        if self.bid_round == 2 and action.suit == up:
            raise self._fail(
                f"in the second round the turned-up suit {up.name.lower()} may not be named", seat
            )

    def _verify_play(self, action: Action) -> None:
        seat = action.seat
        if self.phase != "play":
            raise self._fail("cards are played only after the bidding and the deal", seat)
        expected = self.next_to_play()
        if seat != expected:
            raise self._fail(f"not your turn to play, seat {expected} is to play", seat)
        card = action.card
        if card is None:
            raise self._fail("a play must name a card", seat)
        try:
            self.hands.find(seat, card, action.position)
        except IllegalAction as exc:
            raise self._fail(exc.reason, seat) from None
        duty = self._obligation(seat, card)
        held = duty.forbidden & set(self.hands.known(seat))
        if held:
            names = " ".join(str(c) for c in sorted(held))
            raise self._fail(f"{duty.rule}: holds {names}, cannot play {card}", seat)

    def apply(self, action: Action) -> list[Event]:
        self.verify(action)
        entry = HistoryStep("action", action=action)
        if action.kind == ActionKind.PLAY:
            return self._commit(entry, self._play(action))
        return self._commit(entry, self._bid(action))

    def _bid(self, action: Action) -> list[Event]:
        seat = action.seat
        if action.kind == ActionKind.PASS:
            self.bids.append((seat, None))
            events = [Event("pass", seat, {"round": 1 if len(self.bids) <= SEATS else 2})]
            if len(self.bids) == 2 * SEATS:
                events.append(Event("redeal", self.dealer))
                self._finish(
                    HandResult(
                        self.hand_number, (), (0,) * SEATS, REDEAL_REASON, {}, HandEnd.REDEAL
                    ),
                    events,
                )
            return events
        assert action.suit is not None and self.turned is not None
        bid_round = self.bid_round
        self.bids.append((seat, action.suit))
        self.taker = seat
        self.trump = action.suit
        self.hands.slots[seat].append(self.turned)
        self.hands.used_positions.add(self.turned.position)
        self.phase = "deal2"
        assignments = []
        for i in range(1, SEATS + 1):
            receiver = self._after(self.dealer, i)
            count = 2 if receiver == seat else 3
            assignments += [(receiver, p) for p in self.hands.take_positions(count)]
        self._pending = Deal(tuple(assignments))
        return [Event("bid", seat, {"suit": int(action.suit), "round": bid_round})]

    def _play(self, action: Action) -> list[Event]:
        seat = action.seat
        card = action.card
        assert card is not None and self.trump is not None
        self.hands.remove(seat, card, action.position)
        self.current.append((seat, card))
        events = [Event("card_played", seat, {"card": card.index})]
        honours = (Rank.KING, Rank.QUEEN)
        mine = [(s, c) for s, c in self._all_plays() if s == seat]
        if (
            card.suit == self.trump
            and card.rank in honours
            and belote_holder(mine, self.trump) is not None
        ):
            events.append(Event("belote", seat, {"team": team_of(seat)}))
        if len(self.current) < SEATS:
            return events
        winner = winning_play(self.current, self.trump)[0]
        self.tricks.append(Trick(tuple(self.current), winner))
        self.current = []
        self.leader = winner
        events.append(Event("trick_won", winner, {"trick": len(self.tricks)}))
        if len(self.tricks) == TRICKS_PER_HAND:
            self._score(events)
        return events

    def _all_plays(self) -> list[tuple[int, Card]]:
        return [p for t in self.tricks for p in t.plays] + self.current

    def _score(self, events: list[Event]) -> None:
        assert self.trump is not None and self.taker is not None
        score = score_hand(
            [(t.plays, t.winner) for t in self.tricks],
            self.trump,
            self.taker,
            capot=self.capot_mode,
            contract_counts_belote=self.contract_counts_belote,
        )
        deltas = tuple(score.points[team_of(s)] for s in range(SEATS))
        won = 0 if score.points[0] > score.points[1] else 1
        winners = team_seats(won) if score.points[0] != score.points[1] else ()
        made = HandEnd.CONTRACT_MADE if score.contract_made else HandEnd.CONTRACT_FAILED
        result = HandResult(self.hand_number, winners, deltas, score.reason, score.details(), made)
        self._finish(result, events)

    def _finish(self, result: HandResult, events: list[Event]) -> None:
        self.team_scores[0] += result.deltas[0]
        self.team_scores[1] += result.deltas[1]
        self._hand_settled(result)
        self.phase = "done"
        self._pending = None
        events.append(Event("hand_over", None, {"deltas": list(result.deltas)}))
        a, b = self.team_scores
        if max(a, b) >= self.target and a != b:
            team = 0 if a > b else 1
            self._game_settled(
                Outcome(
                    team_seats(team),
                    self.scores(),
                    f"team {team} reached {self.target} points",
                    GameEnd.TARGET_REACHED,
                )
            )
            events.append(Event("game_over", None, {"winners": list(team_seats(team))}))

    def forbidden_cards(self, action: Action) -> frozenset[Card]:
        if action.kind != ActionKind.PLAY or action.card is None or self.phase != "play":
            return frozenset()
        if self.next_to_play() != action.seat:
            return frozenset()
        return self._obligation(action.seat, action.card).forbidden

    # -- faults --
    def timeout_action(self, seat: int) -> Action | None:
        if self.phase == "bidding" and seat in self.to_act():
            return Action(ActionKind.PASS, seat)
        return None

    def abort_hand(self, culprit: int | None, reason: str) -> HandResult:
        """Culprit's team scores 0; the other team 162 plus its belote (known from the cards
        played: the seat that played both king and queen of trumps). No culprit: nobody
        scores. The hand counts (the next hand is dealt by the next seat)."""
        if not self.hand_running:
            raise self._fail("no hand is running")
        if culprit is not None and not 0 <= culprit < SEATS:
            raise self._fail(f"no seat {culprit} at a belote table")
        points = [0, 0]
        belote_seat = None
        if self.trump is not None:
            belote_seat = belote_holder(self._all_plays(), self.trump)
        if culprit is not None:
            honest = 1 - team_of(culprit)
            points[honest] = ALL_CARD_POINTS
            if belote_seat is not None and team_of(belote_seat) == honest:
                points[honest] += BELOTE_BONUS
        deltas = tuple(points[team_of(s)] for s in range(SEATS))
        winners = () if culprit is None else team_seats(1 - team_of(culprit))
        details = {"culprit": culprit, "belote_seat": belote_seat, "points": points}
        result = HandResult(
            self.hand_number, winners, deltas, f"aborted: {reason}", details, HandEnd.VOIDED, reason
        )
        self.history.append(HistoryStep("abort", culprit=culprit, reason=reason))
        self._finish(result, [])
        return result

    # -- what a viewer sees --
    def hand(self, seat: int) -> tuple[HandSlot, ...]:
        return tuple(self.hands.slots[seat])

    def scores(self) -> tuple[int, ...]:
        return tuple(self.team_scores[team_of(s)] for s in range(SEATS))

    def public_state(self) -> dict[str, Any]:
        up = self.turned.card if self.turned is not None else None
        pending = self._pending
        return {
            "game": self.game,
            "options": dict(sorted(self.config.options.items())),
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "phase": self.phase,
            "team_scores": list(self.team_scores),
            "pending": None if pending is None else list(pending.positions),
            "hands": [sorted(s.position for s in slots) for slots in self.hands.slots],
            "turned": None
            if self.turned is None or up is None
            else [self.turned.position, up.index],
            "bids": [[s, None if b is None else int(b)] for s, b in self.bids],
            "taker": self.taker,
            "trump": None if self.trump is None else int(self.trump),
            "leader": self.leader,
            "current": [[s, c.index] for s, c in self.current],
            "tricks": [
                {"plays": [[s, c.index] for s, c in t.plays], "winner": t.winner}
                for t in self.tricks
            ],
            "results": [
                {
                    "hand": r.hand_number,
                    "deltas": list(r.deltas),
                    "reason": r.reason,
                    "details": dict(r.details),
                }
                for r in self.results
            ],
            "outcome": None
            if self.outcome is None
            else {"winners": list(self.outcome.winners), "reason": self.outcome.reason},
        }


def replay(config: GameConfig, first_dealer: int, history: Sequence[HistoryStep]) -> BeloteEngine:
    """Rebuild an engine from a history list (as one viewer saw it)."""
    engine = BeloteEngine(config, first_dealer=first_dealer)
    for entry in history:
        apply_history_step(engine, entry)
    return engine


def _factory(config: GameConfig, first_dealer: int) -> Engine:
    return BeloteEngine(config, first_dealer=first_dealer)


SPECS: dict[str, GameSpec] = {
    "belote": GameSpec(
        name="belote",
        title="Belote",
        min_players=SEATS,
        max_players=SEATS,
        score_kind="team points",
        options=OPTIONS,
        factory=_factory,
        seeds="002",
        summary="Classic 4-player Belote in two partnerships: turned-up card, two bidding "
        "rounds, trump J 9 A 10 K Q 8 7, belote, capot; first team to 501 wins.",
    ),
}
