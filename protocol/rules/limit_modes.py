"""Options of the Limit Tuppen family and the three ways a game runs between hands.

* ``play-money`` (seed 000/001: "Nach jeder Runde wird dein Chip-Vorrat wieder auf 10
  aufgefuellt"): every stack is refilled to ``starting_chips`` before each hand; the score is
  the cumulative net chips won; the game lasts ``hands`` hands.
* ``cash`` ("Wenn mit echtem Geld gespielt wird ... Zwischen den Runden kannst du Chips
  nachkaufen, bis zum maximalen Buy-in"): every seat buys in for ``max_buy_in`` at the start;
  stacks carry over; a seat that cannot pay the ante buys back up to ``max_buy_in``
  automatically; the score is stack minus everything bought in; the game lasts ``hands`` hands.
* ``tournament`` ("In einem Turnier scheidest du aus, wenn du alle Chips verloren hast. Die
  Antes werden dabei regelmaessig erhoeht"): every seat starts with ``starting_chips``; a seat
  with no chips is out; the ante rises by 1 every ``ante_increase_every`` hands; a seat that
  cannot pay the full ante pays what it has; the game ends when one seat has chips. The score
  is the stack.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealerless.protocol.rules.base import ConfigError, GameConfig, OptionSpec

MODES = ("play-money", "cash", "tournament")
LEDGER_FIELDS = frozenset({"stack", "bought_in", "net"})

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "knock_timing",
        "own-turn",
        "when a knock is allowed: own-turn (seed 000: only when it is your turn to play) or "
        "any-time (seed 001: any active seat that has not yet played to the current trick)",
        choices=("own-turn", "any-time"),
    ),
    OptionSpec(
        "mode",
        "play-money",
        "play-money (stacks refilled every hand), cash (stacks carry over, automatic rebuy "
        "up to max_buy_in) or tournament (out when broke, rising antes)",
        choices=MODES,
    ),
    OptionSpec("starting_chips", 10, "chips per seat (play-money, tournament)", (), 2, 10_000),
    OptionSpec("ante", 1, "ante per hand (the first ante in a tournament)", (), 1, 100),
    OptionSpec("hands", 20, "hands per game in play-money and cash mode", (), 1, 100_000),
    OptionSpec("max_buy_in", 10, "cash mode: buy-in and rebuy target", (), 1, 10_000),
    OptionSpec(
        "ante_increase_every", 5, "tournament: the ante rises by 1 every N hands", (), 1, 1000
    ),
    OptionSpec(
        "dirty_laundry",
        False,
        "optional rule: declare dirty laundry, draw four new cards; others may check (chips)",
    ),
)


def check_config(config: GameConfig) -> None:
    """Cross-option checks the single OptionSpecs cannot make."""
    mode = config.str_option("mode")
    ante = config.int_option("ante")
    if mode == "cash" and config.int_option("max_buy_in") < ante:
        raise ConfigError("max_buy_in must be at least the ante")
    if mode != "cash" and config.int_option("starting_chips") < ante:
        raise ConfigError("starting_chips must be at least the ante")


@dataclass
class Bankroll:
    """Stacks and scores across hands."""

    config: GameConfig
    stacks: list[int] = field(default_factory=list)
    bought_in: list[int] = field(default_factory=list)  # cash mode
    net: list[int] = field(default_factory=list)  # play-money mode

    def __post_init__(self) -> None:
        n = self.config.players
        self.mode = self.config.str_option("mode")
        first = self.config.int_option("max_buy_in" if self.mode == "cash" else "starting_chips")
        if not self.stacks:
            self.stacks = [first] * n
            self.bought_in = [first if self.mode == "cash" else 0] * n
            self.net = [0] * n

    def ante(self, hand_number: int) -> int:
        base = self.config.int_option("ante")
        if self.mode != "tournament":
            return base
        return base + (hand_number - 1) // self.config.int_option("ante_increase_every")

    def in_game(self, seat: int) -> bool:
        return self.mode != "tournament" or self.stacks[seat] > 0

    def before_hand(self, hand_number: int) -> list[tuple[int, int]]:
        """Refill or rebuy before a hand; returns (seat, chips added)."""
        added: list[tuple[int, int]] = []
        if self.mode == "play-money":
            target = self.config.int_option("starting_chips")
            for s, stack in enumerate(self.stacks):
                if stack != target:
                    added.append((s, target - stack))
                    self.stacks[s] = target
        elif self.mode == "cash":
            target = self.config.int_option("max_buy_in")
            ante = self.ante(hand_number)
            for s, stack in enumerate(self.stacks):
                if stack < ante:
                    added.append((s, target - stack))
                    self.bought_in[s] += target - stack
                    self.stacks[s] = target
        return added

    def settle(self, deltas: list[int]) -> None:
        """Record a finished hand's net chips (stacks were already paid)."""
        for s, d in enumerate(deltas):
            self.net[s] += d

    def scores(self) -> tuple[int, ...]:
        if self.mode == "play-money":
            return tuple(self.net)
        if self.mode == "cash":
            return tuple(st - b for st, b in zip(self.stacks, self.bought_in, strict=True))
        return tuple(self.stacks)

    def game_over(self, hand_number: int) -> bool:
        if self.mode == "tournament":
            return sum(1 for s in self.stacks if s > 0) <= 1
        return hand_number >= self.config.int_option("hands")

    # -- seat changes: a seat's chips and buy-ins travel with it --------------------------------
    def ledger(self, seat: int) -> dict[str, int]:
        return {
            "stack": self.stacks[seat],
            "bought_in": self.bought_in[seat],
            "net": self.net[seat],
        }

    def newcomer(self, buy_in: int) -> dict[str, int]:
        if self.mode == "tournament":
            raise ConfigError("a tournament takes no newcomers once it has started")
        if self.mode == "play-money":
            chips = self.config.int_option("starting_chips")
            if buy_in != chips:
                raise ConfigError(f"in play-money every seat sits down with {chips} chips")
            return {"stack": chips, "bought_in": 0, "net": 0}
        top, ante = self.config.int_option("max_buy_in"), self.config.int_option("ante")
        if not ante <= buy_in <= top:
            raise ConfigError(f"a buy-in must be {ante}..{top} chips (the ante to the maximum)")
        return {"stack": buy_in, "bought_in": buy_in, "net": 0}

    def load(self, seats: Sequence[Mapping[str, int]]) -> None:
        if len(seats) != self.config.players:
            raise ConfigError(f"{len(seats)} ledgers for {self.config.players} seats")
        for number, entry in enumerate(seats):
            if set(entry) != LEDGER_FIELDS:
                raise ConfigError(f"seat {number}: a ledger has exactly {sorted(LEDGER_FIELDS)}")
            if entry["stack"] < 0 or entry["bought_in"] < 0:
                raise ConfigError(f"seat {number}: a negative stack or buy-in")
        self.stacks = [e["stack"] for e in seats]
        self.bought_in = [e["bought_in"] for e in seats]
        self.net = [e["net"] for e in seats]

    def public_state(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "stacks": list(self.stacks),
            "bought_in": list(self.bought_in),
            "net": list(self.net),
        }
