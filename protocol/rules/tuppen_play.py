"""The card play of a Tuppen/Toepen hand: four tricks among the seats still in the hand.

Shared by classic Tuppen, the Limit family and Pottuppen. Play goes clockwise (seat + 1),
skipping seats that are not active (folded, out of the game, sitting the hand out). A seat that
folds after playing its card leaves the card on the table, where it still sets the led suit but
no longer counts for the winner (see :func:`tuppen_tricks.trick_winner`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dealerless.protocol.cards import Card, Suit
from dealerless.protocol.rules.base import IllegalAction
from dealerless.protocol.rules.tuppen_tricks import forbidden_for_play, legal_plays, trick_winner

TRICKS_PER_HAND = 4


@dataclass
class CompletedTrick:
    plays: tuple[tuple[int, Card], ...]
    winner: int


@dataclass
class TrickPlay:
    players: int
    active: set[int]
    leader: int
    plays: list[tuple[int, Card]] = field(default_factory=list)
    completed: list[CompletedTrick] = field(default_factory=list)

    @property
    def trick_number(self) -> int:
        """1..4 while play runs; 5 once four tricks are complete."""
        return len(self.completed) + 1

    @property
    def finished(self) -> bool:
        return len(self.completed) >= TRICKS_PER_HAND

    @property
    def led_suit(self) -> Suit | None:
        return self.plays[0][1].suit if self.plays else None

    def has_played(self, seat: int) -> bool:
        """Whether the seat has played a card in the current trick."""
        return any(s == seat for s, _ in self.plays)

    def next_to_play(self) -> int | None:
        """The active seat whose card the trick waits for, or None."""
        if self.finished or not self.active:
            return None
        start = self.plays[-1][0] + 1 if self.plays else self.leader
        for step in range(self.players):
            seat = (start + step) % self.players
            if seat in self.active and not self.has_played(seat):
                return seat
        return None

    def legal_cards(self, hand: list[Card]) -> list[Card]:
        return legal_plays(self.led_suit, hand)

    def forbidden(self, card: Card) -> frozenset[Card]:
        return forbidden_for_play(self.led_suit, card)

    def check_play(self, seat: int, card: Card, known_hand: list[Card] | None) -> None:
        """Raise IllegalAction unless ``seat`` may play ``card`` now.

        ``known_hand`` is the seat's whole hand when this viewer knows it; for a hidden hand the
        follow-suit rule is left to the zero-knowledge proof over :meth:`forbidden`.
        """
        expected = self.next_to_play()
        where = f"trick {self.trick_number}"
        if expected != seat:
            who = "nobody" if expected is None else f"seat {expected}"
            raise IllegalAction(f"not your turn to play, {who} is to play", seat=seat, where=where)
        if known_hand is not None:
            if card not in known_hand:
                raise IllegalAction(f"{card} is not in your hand", seat=seat, where=where)
            if card not in self.legal_cards(known_hand):
                led = self.led_suit
                assert led is not None
                raise IllegalAction(
                    f"must follow suit {led.name.lower()}, cannot play {card}",
                    seat=seat,
                    where=where,
                )

    def play(self, seat: int, card: Card) -> CompletedTrick | None:
        """Record a checked play; returns the trick when it is complete."""
        self.plays.append((seat, card))
        if self.next_to_play() is not None:
            return None
        return self.close_trick()

    def close_trick(self) -> CompletedTrick | None:
        """Close the current trick if every active seat has played (also after a fold)."""
        if not self.plays or self.next_to_play() is not None:
            return None
        winner = trick_winner(self.plays, self.active)
        if winner is None:
            return None
        done = CompletedTrick(tuple(self.plays), winner)
        self.completed.append(done)
        self.plays = []
        self.leader = winner
        return done

    def public_state(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "active": sorted(self.active),
            "current": [[s, c.index] for s, c in self.plays],
            "tricks": [
                {"plays": [[s, c.index] for s, c in t.plays], "winner": t.winner}
                for t in self.completed
            ],
        }
