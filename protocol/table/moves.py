"""Rules actions on the chain: the body of our own action (a card play opens its card and
proves, with non-membership proofs, that the hand holds no card the rules would oblige it to
play), the checks of a peer's action against the deck, and out-of-turn requests that the
arbiter admits. A part of :class:`~dealerless.protocol.table.machine.TableMachine`, one per
segment: it reads the segment's hand cycle and the chain and reports what it applied."""

from __future__ import annotations

from typing import Any

from dealerless.protocol.cards import Card
from dealerless.protocol.messages import SignedMessage, decode_message
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.table.chain import Chain
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.events import ActionApplied, RemoteProtocolError, TableEvent
from dealerless.protocol.table.hand_cycle import HandCycle
from dealerless.protocol.table.hand_deck import OPEN, play_step
from dealerless.protocol.table.kinds import TABLE_REGISTRY


class Moves:
    def __init__(
        self,
        config: TableConfig,
        seat: int | None,
        *,
        cycle: HandCycle,
        chain: Chain,
        events: list[TableEvent],
    ) -> None:
        self.config, self.seat = config, seat
        self.cycle, self.chain, self.events = cycle, chain, events

    def action_body(self, action: Action) -> dict[str, Any]:
        """Our own action, with the card opening and legality proofs a play needs."""
        if action.kind is not ActionKind.PLAY:
            return {"action": action.to_wire()}
        deck = self.cycle.hand.deck
        assert deck is not None and action.card is not None and self.seat is not None
        slot = next(s for s in self.cycle.engine.hand(self.seat) if s.card == action.card)
        action = Action(ActionKind.PLAY, self.seat, card=action.card, position=slot.position)
        body: dict[str, Any] = {"action": action.to_wire()}
        if slot.position not in deck.public:
            body["open"] = deck.make_share(slot.position, OPEN)
        hidden, forbidden = self._proof_obligation(action)
        if hidden and forbidden:
            body["nonmember"] = deck.make_nonmembership(
                hidden, forbidden, play_step(self.chain.seq)
            )
        return body

    def _proof_obligation(self, action: Action) -> tuple[list[int], list[int]]:
        """(the player's other positions not known in public, the forbidden card indices)."""
        deck = self.cycle.hand.deck
        assert deck is not None
        forbidden = sorted(c.index for c in self.cycle.engine.forbidden_cards(action))
        hidden = sorted(
            s.position
            for s in self.cycle.engine.hand(action.seat)
            if s.position != action.position and s.position not in deck.public
        )
        return hidden, forbidden

    def apply_action(self, action: Action, body: Any, seat: int, own: bool) -> None:
        if action.seat != seat:
            raise RemoteProtocolError(f"action names seat {action.seat}", seat)
        deck = self.cycle.hand.deck
        assert deck is not None
        opened: int | None = None
        new_share = None
        if action.kind is ActionKind.PLAY:
            if action.position is None or action.card is None:
                raise RemoteProtocolError("a card play must name its card and deck position", seat)
            if all(s.position != action.position for s in self.cycle.engine.hand(seat)):
                raise RemoteProtocolError(
                    f"deck position {action.position} is not in your hand", seat
                )
            if action.position in deck.public:
                if deck.public[action.position] != action.card.index:
                    raise RemoteProtocolError("that position holds another (public) card", seat)
            elif "open" not in body:
                raise RemoteProtocolError("a card play must open the card", seat)
            elif not own:
                share = deck.verify_share_payload(seat, body["open"], action.position, OPEN, "open")
                opened = deck.card_with(action.position, {seat: share})
                if opened != action.card.index:
                    raise RemoteProtocolError(
                        f"the opened card is {Card.from_index(opened)}, not {action.card}", seat
                    )
                new_share = share
            hidden, forbidden = self._proof_obligation(action)
            if forbidden:
                public_here = [
                    deck.public[s.position]
                    for s in self.cycle.engine.hand(seat)
                    if s.position in deck.public and s.position != action.position
                ]
                if set(public_here) & set(forbidden):
                    raise RemoteProtocolError("holds a card (shown in public) it must play", seat)
                if hidden and not own:
                    deck.accept_nonmembership(
                        seat,
                        list(body.get("nonmember", [])),
                        hidden,
                        forbidden,
                        play_step(self.chain.seq),
                    )
        elif "open" in body or "nonmember" in body:
            raise RemoteProtocolError("only a card play carries an opening or proofs", seat)
        rules_events = self.cycle.engine.apply(action)
        if action.kind is ActionKind.PLAY and action.position is not None:
            assert action.card is not None
            if new_share is not None:
                deck.shares.setdefault(action.position, {})[seat] = new_share
            deck.public[action.position] = action.card.index
        self.events.append(ActionApplied(action, tuple(rules_events)))

    def admissible_request(self) -> SignedMessage | None:
        for request in self.cycle.hand.requests:
            if request.prev == self.chain.head and self._request_action(request) is not None:
                return request
        return None

    def _request_action(self, request: SignedMessage) -> Action | None:
        try:
            action = Action.from_wire(request.body["action"])
        except ValueError:
            return None
        if (
            action.seat != request.seat
            or action.kind is ActionKind.PLAY
            or action.seat not in self.cycle.engine.may_act()
            or not self.cycle.engine.can(action)
        ):
            return None
        return action

    def apply_admit(self, embedded: bytes, admit: SignedMessage) -> None:
        request = decode_message(embedded, registry=TABLE_REGISTRY)
        seat = admit.seat
        if request.table_id != self.config.table_id or request.prev != admit.prev:
            raise RemoteProtocolError("admitted a request made at another head", seat)
        if self.config.seat_of(request.author.raw) != request.seat:
            raise RemoteProtocolError("admitted a request with a forged seat", seat)
        action = self._request_action(request)
        if action is None:
            raise RemoteProtocolError("admitted a request the rules do not allow now", seat)
        rules_events = self.cycle.engine.apply(action)
        self.events.append(ActionApplied(action, tuple(rules_events)))
