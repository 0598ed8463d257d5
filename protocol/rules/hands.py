"""Hands with hidden cards, shared by every engine.

Each seat holds slots (deck position + card if this viewer knows it). Cards leave a hand by being
played or set aside; a hidden card becomes known when it is played or revealed. The set of cards
seen so far guards uniqueness: no card may appear twice in one hand of the game.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from dealerless.protocol.cards import Card
from dealerless.protocol.rules.base import HandSlot, IllegalAction


@dataclass
class Hands:
    players: int
    slots: list[list[HandSlot]] = field(default_factory=list)
    seen: set[Card] = field(default_factory=set)  # every card this viewer has seen this hand
    used_positions: set[int] = field(default_factory=set)
    next_position: int = 0  # top of the stock

    def __post_init__(self) -> None:
        if not self.slots:
            self.slots = [[] for _ in range(self.players)]

    @property
    def stock_left(self) -> int:
        return 32 - self.next_position

    def take_positions(self, count: int) -> tuple[int, ...]:
        """The next ``count`` positions from the top of the stock."""
        if count > self.stock_left:
            raise IllegalAction(f"the stock has {self.stock_left} cards, {count} needed")
        start = self.next_position
        self.next_position += count
        return tuple(range(start, start + count))

    def note_seen(self, card: Card, where: str) -> None:
        if card in self.seen:
            raise IllegalAction(f"card {card} appears twice ({where})")
        self.seen.add(card)

    def receive(self, seat: int, positions: Sequence[int], cards: Sequence[Card | None]) -> None:
        """Add dealt cards to a seat's hand (None where this viewer cannot see them)."""
        if len(positions) != len(cards):
            raise IllegalAction(f"{len(positions)} positions but {len(cards)} cards")
        for position, card in zip(positions, cards, strict=True):
            if position in self.used_positions:
                raise IllegalAction(f"deck position {position} dealt twice")
            self.used_positions.add(position)
            if card is not None:
                self.note_seen(card, f"dealt to seat {seat}")
            self.slots[seat].append(HandSlot(position, card))

    def known(self, seat: int) -> list[Card]:
        return [s.card for s in self.slots[seat] if s.card is not None]

    def is_hidden(self, seat: int) -> bool:
        """True when this viewer does not know every card of the seat."""
        return any(s.card is None for s in self.slots[seat])

    def count(self, seat: int) -> int:
        return len(self.slots[seat])

    def find(self, seat: int, card: Card, position: int | None) -> int:
        """Index of the slot that holds ``card``; for a hidden hand the slot at ``position``.

        Raises IllegalAction when the seat cannot be holding that card.
        """
        hand = self.slots[seat]
        for i, slot in enumerate(hand):
            if slot.card == card:
                if position is not None and slot.position != position:
                    raise IllegalAction(
                        f"{card} is at deck position {slot.position}, not {position}", seat=seat
                    )
                return i
        if card in self.seen:
            raise IllegalAction(f"{card} is not in the hand (it was already seen)", seat=seat)
        if position is None:
            raise IllegalAction(f"{card} is not in the hand", seat=seat)
        for i, slot in enumerate(hand):
            if slot.position == position:
                if slot.card is not None:
                    raise IllegalAction(
                        f"deck position {position} holds another card, not {card}", seat=seat
                    )
                return i
        raise IllegalAction(f"deck position {position} is not in the hand", seat=seat)

    def remove(self, seat: int, card: Card, position: int | None) -> HandSlot:
        """Take a card out of the hand (verified by :meth:`find`); marks it seen."""
        index = self.find(seat, card, position)
        slot = self.slots[seat].pop(index)
        if slot.card is None:
            self.seen.add(card)
        return HandSlot(slot.position, card)

    def set_aside(self, seat: int) -> list[HandSlot]:
        """Remove the whole hand (dirty laundry) and return its slots."""
        out = self.slots[seat]
        self.slots[seat] = []
        return out

    def restore(self, seat: int, slots: Iterable[HandSlot]) -> None:
        self.slots[seat] = list(slots)

    def reveal(self, seat: int, slots: list[HandSlot], cards: Sequence[Card]) -> list[HandSlot]:
        """Fill in the cards of revealed slots; a known slot must match what is revealed."""
        if len(slots) != len(cards):
            raise IllegalAction(f"{len(slots)} cards to reveal, {len(cards)} given", seat=seat)
        out = []
        for slot, card in zip(slots, cards, strict=True):
            if slot.card is not None:
                if slot.card != card:
                    raise IllegalAction(
                        f"position {slot.position} holds {slot.card}, not {card}", seat=seat
                    )
            else:
                self.note_seen(card, f"revealed by seat {seat}")
            out.append(HandSlot(slot.position, card))
        return out
