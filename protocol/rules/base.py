"""The one API every rules engine implements.

Shape (after python-chess, pokerkit and OpenSpiel):

* An engine is one whole game (many hands) seen by one viewer. Cards the viewer cannot see are
  ``None`` in its hand slots; a peer only ever learns its own cards and the cards revealed.
* Dealing and drawing are explicit chance steps: :meth:`Engine.chance_request` says which deck
  positions go where, and the caller fulfils them with :meth:`Engine.apply_chance` (the table
  protocol fulfils them with the mental-poker deck; the engine-only simulator with a shuffled
  list). Deck positions are the indices into the shuffled deck (0..31), dealt from the top.
* :meth:`Engine.to_act` names every seat that may act now (more than one where the rules allow
  answers or out-of-turn knocks); :meth:`Engine.legal_actions` lists a seat's moves;
  :meth:`Engine.verify` raises :class:`IllegalAction` with the reason and the position;
  :meth:`Engine.apply` changes the state and returns the :class:`Event` records of what happened.
* For every card play, :meth:`Engine.forbidden_cards` gives the cards whose possession would
  have made the play illegal; where the engine cannot see the hand, the protocol demands a
  zero-knowledge proof that the player holds none of them.

Engines are pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, TypeAlias

from dealerless.protocol.cards import Card, Suit

OptionValue: TypeAlias = int | bool | str


class RulesError(Exception):
    """Base class of every error the rules engines raise."""


class IllegalAction(RulesError):
    """An action (or chance outcome) the rules do not allow at this point.

    ``seat`` names who tried it; ``where`` describes the position (hand, trick, phase) so the
    message alone explains the refusal.
    """

    def __init__(self, reason: str, *, seat: int | None = None, where: str = "") -> None:
        self.reason = reason
        self.seat = seat
        self.where = where
        text = reason if seat is None else f"seat {seat}: {reason}"
        super().__init__(f"{text} ({where})" if where else text)


class ConfigError(RulesError, ValueError):
    """A game configuration (game name, player count or option) that is not valid."""


class ActionKind(StrEnum):
    PLAY = "play"  # play a card (card, and position when the viewer cannot see the hand)
    KNOCK = "knock"  # Tuppen: raise the stake; Limit games: bet (amount in No/Pot Limit)
    CALL = "call"  # go along with a knock; also "play along" in a poverty hand
    FOLD = "fold"  # refuse a knock / poverty hand and drop out of the hand
    RAISE = "raise"  # Limit games: call plus more (amount = the increase, No/Pot Limit)
    BET = "bet"  # Pottuppen: play for part or all of the pot (amount)
    PASS = "pass"  # Pottuppen: sit the hand out; Belote: pass in the bidding
    BID = "bid"  # Belote: take a suit as trump (suit)
    LAUNDRY = "laundry"  # declare dirty laundry: set all four cards aside and draw four
    TUPP_ATTEMPT = "tupp_attempt"  # show three of a kind (cards), exchange the fourth (card)
    TUPP = "tupp"  # claim four of a kind: shows the hand, wins the hand at once
    CHECK = "check"  # look at a dirty-laundry declarer's discarded cards
    ACCEPT = "accept"  # let a dirty-laundry declaration stand without checking


@dataclass(frozen=True, slots=True)
class Action:
    """One move by one seat. A small frozen record; the wire form is :meth:`to_wire`."""

    kind: ActionKind
    seat: int
    card: Card | None = None
    amount: int | None = None
    suit: Suit | None = None
    cards: tuple[Card, ...] = ()
    position: int | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "seat": self.seat}
        if self.card is not None:
            out["card"] = self.card.index
        if self.amount is not None:
            out["amount"] = self.amount
        if self.suit is not None:
            out["suit"] = int(self.suit)
        if self.cards:
            out["cards"] = [c.index for c in self.cards]
        if self.position is not None:
            out["position"] = self.position
        return out

    @staticmethod
    def from_wire(data: object) -> Action:
        """Strictly decode an action; raises ValueError saying what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"action must be a map, got {type(data).__name__}")
        allowed = {"kind", "seat", "card", "amount", "suit", "cards", "position"}
        unknown = set(data) - allowed
        if unknown:
            raise ValueError(f"action has unknown fields: {sorted(map(str, unknown))}")
        kind_raw = data.get("kind")
        if not isinstance(kind_raw, str):
            raise ValueError(f"action kind must be a string, got {kind_raw!r}")
        try:
            kind = ActionKind(kind_raw)
        except ValueError:
            raise ValueError(f"unknown action kind {kind_raw!r}") from None
        seat = _small_int(data.get("seat"), "seat", 0, 7)
        card = None
        if "card" in data:
            card = Card.from_index(_small_int(data["card"], "card", 0, 31))
        amount = _small_int(data["amount"], "amount", 0, 10**9) if "amount" in data else None
        suit = Suit(_small_int(data["suit"], "suit", 0, 3)) if "suit" in data else None
        cards: tuple[Card, ...] = ()
        if "cards" in data:
            raw = data["cards"]
            if not isinstance(raw, list | tuple) or not 0 < len(raw) <= 8:
                raise ValueError("action cards must be a list of 1..8 card indices")
            cards = tuple(Card.from_index(_small_int(c, "card", 0, 31)) for c in raw)
        position = _small_int(data["position"], "position", 0, 31) if "position" in data else None
        return Action(kind, seat, card, amount, suit, cards, position)

    def __str__(self) -> str:
        parts = [f"seat {self.seat} {self.kind.value}"]
        if self.card is not None:
            parts.append(str(self.card))
        if self.cards:
            parts.append("[" + " ".join(map(str, self.cards)) + "]")
        if self.suit is not None:
            parts.append(self.suit.name.lower())
        if self.amount is not None:
            parts.append(str(self.amount))
        return " ".join(parts)


def _small_int(value: object, name: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {value}")
    return value


# --- chance steps -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deal:
    """Give deck positions to seats privately, in this order (dealing order)."""

    assignments: tuple[tuple[int, int], ...]  # (seat, position)

    @property
    def positions(self) -> tuple[int, ...]:
        return tuple(p for _, p in self.assignments)


@dataclass(frozen=True, slots=True)
class TurnUp:
    """Show one stock position to everyone (Belote's turned-up card)."""

    position: int

    @property
    def positions(self) -> tuple[int, ...]:
        return (self.position,)


@dataclass(frozen=True, slots=True)
class Reveal:
    """The owner must show these hidden positions to everyone (a check, a Tupp claim)."""

    seat: int
    positions: tuple[int, ...]
    reason: str


ChanceRequest: TypeAlias = Deal | TurnUp | Reveal


@dataclass(frozen=True, slots=True)
class HandSlot:
    """A card in a hand: its deck position, and the card if this viewer knows it."""

    position: int
    card: Card | None


# --- what happened ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """A record of something that happened, for logs and clients (``data`` is msgpack-able)."""

    kind: str
    seat: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HandResult:
    hand_number: int
    winners: tuple[int, ...]  # seats (a whole team in Belote)
    deltas: tuple[int, ...]  # change of every seat's score (see GameSpec.score_kind)
    reason: str  # "last trick", "all others folded", "tupp", "voided: ...", ...
    details: Mapping[str, Any] = field(default_factory=dict)
    code: str = ""  # a reasons.HandEnd value: what a client translates
    note: str = ""  # voided hands: the violation or silence, as the table machine put it


@dataclass(frozen=True)
class Outcome:
    winners: tuple[int, ...]
    standings: tuple[int, ...]  # final score of every seat
    reason: str
    code: str = ""  # a reasons.GameEnd value


@dataclass(frozen=True, slots=True)
class HistoryStep:
    """One applied step of a game as one viewer saw it: a hand start, a chance fulfilment (cards
    None where this viewer could not see them), an action, an abort, or an agreed game end."""

    kind: str  # "start", "chance", "action", "abort", "finish"
    action: Action | None = None
    cards: tuple[Card | None, ...] = ()
    culprit: int | None = None
    reason: str = ""


def apply_history_step(engine: Engine, step: HistoryStep) -> None:
    """Replay one recorded step on an engine (the engine must record what it applies)."""
    if step.kind == "start":
        engine.start_hand()
    elif step.kind == "chance":
        engine.apply_chance(step.cards)
    elif step.kind == "action":
        assert step.action is not None
        engine.apply(step.action)
    elif step.kind == "abort":
        engine.abort_hand(step.culprit, step.reason)
    else:
        raise ValueError(f"unknown history step {step.kind!r}")


# --- configuration ----------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionSpec:
    name: str
    default: OptionValue
    description: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def validate(self, value: object) -> OptionValue:
        d = self.default
        if isinstance(d, bool):
            if not isinstance(value, bool):
                raise ConfigError(f"option {self.name} takes true or false, got {value!r}")
            return value
        if isinstance(d, int):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"option {self.name} takes a whole number, got {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise ConfigError(f"option {self.name} must be at least {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise ConfigError(f"option {self.name} must be at most {self.maximum}")
            return value
        if not isinstance(value, str) or (self.choices and value not in self.choices):
            raise ConfigError(f"option {self.name} takes one of {', '.join(self.choices)}")
        return value

    def parse(self, text: str) -> OptionValue:
        """Parse a command-line value (``--rule name=value``)."""
        d = self.default
        if isinstance(d, bool):
            low = text.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ConfigError(f"option {self.name} takes true or false, got {text!r}")
        if isinstance(d, int):
            try:
                value = int(text.strip())
            except ValueError:
                raise ConfigError(
                    f"option {self.name} takes a whole number, got {text!r}"
                ) from None
            return self.validate(value)
        return self.validate(text.strip())


@dataclass(frozen=True)
class GameConfig:
    """Game name, seat count and the complete option set (defaults filled in)."""

    game: str
    players: int
    options: Mapping[str, OptionValue]

    def option(self, name: str) -> OptionValue:
        return self.options[name]

    def int_option(self, name: str) -> int:
        value = self.options[name]
        assert isinstance(value, int) and not isinstance(value, bool)
        return value

    def bool_option(self, name: str) -> bool:
        value = self.options[name]
        assert isinstance(value, bool)
        return value

    def str_option(self, name: str) -> str:
        value = self.options[name]
        assert isinstance(value, str)
        return value

    def to_wire(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "options": dict(sorted(self.options.items())),
        }


# --- the engine -------------------------------------------------------------------------------


class Engine(ABC):
    """One game of one kind, as one viewer sees it. See the module docstring."""

    game: ClassVar[str]

    def __init__(self, config: GameConfig, *, first_dealer: int = 0) -> None:
        if not 0 <= first_dealer < config.players:
            raise ConfigError(f"first dealer {first_dealer} is not a seat of {config.players}")
        self.config = config
        self.players = config.players
        self.dealer = first_dealer
        self.hand_number = 0  # becomes 1 at the first start_hand()
        self.hand_result: HandResult | None = None
        self.outcome: Outcome | None = None
        self.results: list[HandResult] = []

    # -- the hand count, the dealer, the last result and the outcome --
    # Assigned only by these methods (the games call them): the four belong to this class.
    def _hand_begins(self, dealer: int) -> None:
        """A hand starts: the next number, ``dealer`` deals it, no result yet."""
        self.dealer = dealer
        self.hand_number += 1
        self.hand_result = None

    def _hands_played_before(self, hands: int) -> None:
        """A game carried on from another segment: ``hands`` were played before it."""
        self.hand_number = hands

    def _deals_next(self, dealer: int) -> None:
        self.dealer = dealer

    def _hand_settled(self, result: HandResult) -> None:
        self.hand_result = result
        self.results.append(result)

    def _game_settled(self, outcome: Outcome) -> None:
        self.outcome = outcome

    # -- hands --
    @abstractmethod
    def start_hand(self) -> list[Event]:
        """Begin the next hand (antes, stakes, who deals). Only when no hand is running."""

    @property
    @abstractmethod
    def hand_running(self) -> bool:
        """True from start_hand() until the hand has a result."""

    def in_game(self) -> Sequence[int]:
        """Seats still in the game. Asked between hands (before start_hand): these seats take
        part in the next hand's deck protocol, even if the ante then takes their last chip."""
        return tuple(range(self.players))

    # -- chance --
    @abstractmethod
    def chance_request(self) -> ChanceRequest | None:
        """The chance step the caller must fulfil before anyone may act, if any."""

    @abstractmethod
    def apply_chance(self, cards: Sequence[Card | None]) -> list[Event]:
        """Fulfil the pending chance step: one entry per position, None where unseen."""

    # -- actions --
    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """Seats the game is waiting for: it cannot go on until one of them acts (empty while
        a chance step is pending or no hand runs). Usually one seat."""

    def may_act(self) -> tuple[int, ...]:
        """Seats that may act now: :meth:`to_act` plus seats with an optional out-of-turn move
        (a knock at any time, a Tupp claim). Sorted by seat."""
        return self.to_act()

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """All legal actions of a seat. For a hidden hand, card plays list only known cards."""

    @abstractmethod
    def verify(self, action: Action) -> None:
        """Raise IllegalAction saying why, if the action is not allowed now."""

    @abstractmethod
    def apply(self, action: Action) -> list[Event]:
        """Verify and perform the action; atomic (state unchanged if IllegalAction is raised)."""

    def can(self, action: Action) -> bool:
        try:
            self.verify(action)
        except IllegalAction:
            return False
        return True

    @abstractmethod
    def forbidden_cards(self, action: Action) -> frozenset[Card]:
        """For a PLAY: the cards whose possession would make this play illegal (else empty)."""

    # -- faults --
    @abstractmethod
    def timeout_action(self, seat: int) -> Action | None:
        """The action taken for a seat that stays silent past its deadline, or None when the
        rules allow no such action (then the hand is aborted with that seat as culprit)."""

    @abstractmethod
    def abort_hand(self, culprit: int | None, reason: str) -> HandResult:
        """End the running hand early (a cheat, a silent player) by the documented settlement,
        which never rewards the culprit and costs honest seats nothing."""

    # -- seats that change between hands (spec/rules.md, "Seat changes") --
    # Hand-by-hand games let seats come and go between hands; the others keep their seats.
    seat_changes: ClassVar[bool] = False

    def seat_ledger(self, seat: int) -> dict[str, int]:
        """What travels with a seat across a seat change (its chips, what it bought in)."""
        raise ConfigError(f"{self.game} keeps its seats for the whole game")

    def table_ledger(self) -> dict[str, int]:
        """What stays with the table across a seat change (a pot)."""
        return {}

    def newcomer_ledger(self, buy_in: int) -> dict[str, int]:
        """The ledger of a seat that sits down with ``buy_in`` chips; ConfigError if the rules
        do not allow that buy-in."""
        raise ConfigError(f"{self.game} keeps its seats for the whole game")

    def load_ledger(
        self,
        seats: Sequence[Mapping[str, int]],
        table: Mapping[str, int],
        hands_before: int,
    ) -> None:
        """Start from the ledgers a seat change carried over, ``hands_before`` hands in."""
        raise ConfigError(f"{self.game} keeps its seats for the whole game")

    def ledger_score(self, ledger: Mapping[str, int]) -> int:
        """The score (as :meth:`scores` counts it) of a seat with this ledger: also of a seat
        that stood up or sits out, for results and ratings."""
        raise ConfigError(f"{self.game} keeps its seats for the whole game")

    # -- what a viewer sees --
    @abstractmethod
    def hand(self, seat: int) -> tuple[HandSlot, ...]:
        """A seat's cards still held, as this viewer knows them."""

    @abstractmethod
    def scores(self) -> tuple[int, ...]:
        """Every seat's current score: penalty points, chips, balance or team points."""

    @abstractmethod
    def public_state(self) -> dict[str, Any]:
        """Everything every peer knows, as msgpack-able data; identical on every honest peer."""

    def public_digest(self) -> bytes:
        """SHA-256 of the canonical msgpack encoding of :meth:`public_state`."""
        # Imported here: the command line reads the rules' names and options (``--help``)
        # without loading the codec; once loaded, this is a dictionary lookup.
        import hashlib

        import msgpack

        packed = msgpack.packb(_canonical(self.public_state()), use_bin_type=True)
        return hashlib.sha256(packed).digest()


def _canonical(value: Any) -> Any:
    """Sort map keys recursively so equal states encode to equal bytes."""
    if isinstance(value, Mapping):
        return {k: _canonical(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted(_canonical(v) for v in value)
    return value
