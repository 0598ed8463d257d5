"""What each chain element does: the bodies the machine writes for its automatic steps (config
signature, key commit and reveal, shuffle, decryption shares, a reveal, the result signature)
and how an accepted element of each kind changes the hand (the deck, the rules engine, the
result round). The chain itself (signing, order, violations) is :mod:`machine`'s; a part of
:class:`~dealerless.protocol.table.machine.TableMachine`, one per segment: it reads and changes
the running hand (the segment's hand cycle owns it) and reports what it applied."""

from __future__ import annotations

import hashlib
from typing import Any

from dealerless.protocol.cards import Card
from dealerless.protocol.messages import SignedMessage, pack
from dealerless.protocol.rules.base import Action, HandResult
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.check_later import CheckLater
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.events import CardsShown, RemoteProtocolError, TableEvent
from dealerless.protocol.table.hand_cycle import HandCycle
from dealerless.protocol.table.hand_deck import OPEN
from dealerless.protocol.table.mode import Mode
from dealerless.protocol.table.moves import Moves
from dealerless.protocol.table.steps import Phase


def result_digest(result: HandResult) -> bytes:
    data = {
        "hand": result.hand_number,
        "winners": list(result.winners),
        "deltas": list(result.deltas),
        "reason": result.reason,
    }
    return hashlib.sha256(pack(data)).digest()


class ElementBodies:
    def __init__(
        self,
        config: TableConfig,
        seat: int | None,
        *,
        cycle: HandCycle,
        chain: Chain,
        events: list[TableEvent],
        check_later: CheckLater,
    ) -> None:
        self.config, self.seat = config, seat
        self.cycle, self.events, self.check_later = cycle, events, check_later
        self.moves = Moves(config, seat, cycle=cycle, chain=chain, events=events)

    def automatic_body(self, change_wanted: str | None) -> tuple[str, dict[str, Any]]:
        """The body of our automatic element at this step (``change_wanted``: the seat change
        we ask for with our result)."""
        assert self.seat is not None
        if self.cycle.hand.phase is Phase.CONFIG:
            return "config-sign", {"config_hash": self.config.digest()}
        deck = self.cycle.hand.deck
        assert deck is not None
        if self.cycle.hand.phase is Phase.KEY_COMMIT:
            return "key-commit", {"commit": deck.make_commit()}
        if self.cycle.hand.phase is Phase.KEY_REVEAL:
            return "key-reveal", {"reveal": deck.make_reveal()}
        if self.cycle.hand.phase is Phase.SHUFFLE:
            return "shuffle", {"shuffle": deck.make_shuffle()}
        if self.cycle.hand.phase is Phase.SHARES:
            assert self.cycle.hand.round is not None
            positions = self.cycle.hand.round.positions[self.seat]
            return "shares", {"batch": deck.make_share_batch(positions, self.cycle.hand.round.step)}
        if self.cycle.hand.phase is Phase.REVEAL:
            assert self.cycle.hand.reveal_due is not None
            return "reveal", {
                "batch": deck.make_share_batch(self.cycle.hand.reveal_due.positions, OPEN)
            }
        assert self.cycle.hand.phase is Phase.RESULT
        assert self.cycle.engine.hand_result is not None
        body: dict[str, Any] = {
            "result": result_digest(self.cycle.engine.hand_result),
            "state": self.cycle.engine.public_digest(),
        }
        if change_wanted is not None:
            body["change"] = change_wanted
        return "result", body

    def apply(self, message: SignedMessage, seat: int, own: bool, mode: Mode) -> None:
        """An element of a sequential step: its body, then the next seat of the round."""
        self.apply_body(message, seat, own, mode)
        if (
            self.cycle.hand.round is not None
            and self.cycle.hand.round.seats
            and self.cycle.hand.round.seats[0] == seat
        ):
            self.cycle.hand.round.seats.pop(0)

    def apply_body(self, message: SignedMessage, seat: int, own: bool, mode: Mode) -> None:
        """Check and apply what a frame says, by its kind (a round frame or a single step);
        ``mode``: what the machine is doing (a replay checks a shuffle's proof at once)."""
        kind, body = message.kind, message.body
        if kind == "config-sign":
            if body["config_hash"] != self.config.digest():
                raise RemoteProtocolError("signed a different table configuration", seat)
        elif kind in ("key-commit", "key-reveal", "shuffle", "shares"):
            self._apply_deck_step(message, seat, own, mode)
        elif kind == "reveal":
            self._apply_reveal(body, seat)
        elif kind == "action":
            self.moves.apply_action(Action.from_wire(body["action"]), body, seat, own)
        elif kind == "admit":
            self.moves.apply_admit(body["request"], message)
        elif kind == "result":
            self._apply_result(body, seat)

    def _apply_deck_step(self, message: SignedMessage, seat: int, own: bool, mode: Mode) -> None:
        kind, body = message.kind, message.body
        deck = self.cycle.hand.deck
        assert deck is not None
        checked = message.digest in deck.checked_frames  # prepared before the hand (P-53)
        if kind == "key-commit":
            deck.accept_commit(seat, body["commit"])
        elif kind == "key-reveal":
            deck.accept_reveal(seat, body["reveal"], checked=checked)
        elif kind == "shuffle":
            later = not checked and self.check_later.may_check_later(
                seat, own=own, mode=mode, seat=self.seat, hand=self.cycle.hand
            )
            deck.accept_shuffle(seat, body["shuffle"], trusted=own, later=later, checked=checked)
        else:
            assert self.cycle.hand.round is not None
            positions = self.cycle.hand.round.positions[seat]
            deck.accept_share_batch(seat, body["batch"], positions, self.cycle.hand.round.step)

    def _apply_reveal(self, body: Any, seat: int) -> None:
        deck, due = self.cycle.hand.deck, self.cycle.hand.reveal_due
        assert deck is not None and due is not None
        deck.accept_share_batch(seat, body["batch"], due.positions, OPEN)
        cards = [deck.open_public(p) for p in due.positions]
        self.cycle.engine.apply_chance([Card.from_index(c) for c in cards])
        self.events.append(CardsShown(seat, tuple(zip(due.positions, cards, strict=True))))
        self.cycle.hand.reveal_due = None

    def _apply_result(self, body: Any, seat: int) -> None:
        result = self.cycle.engine.hand_result
        assert result is not None
        if (
            body["result"] != result_digest(result)
            or body["state"] != self.cycle.engine.public_digest()
        ):
            raise RemoteProtocolError("signed a different hand result", seat)
        change = body.get("change")
        if change is not None and not self.cycle.engine.seat_changes:
            raise RemoteProtocolError(
                f"asked for a seat change ({change}) in {self.config.game.game}, whose seats "
                "are fixed for the game",
                seat,
            )
        if change is not None:
            self.cycle.hand.changes[seat] = change
