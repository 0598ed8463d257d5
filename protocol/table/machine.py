"""The table state machine every peer runs (sans-IO: bytes and a clock in, bytes and events out).

One writer at every head (spec/protocol.md): the machine always knows the single seat that may
extend the chain and the kinds it may send. Automatic steps (config signature, key commit and
reveal, shuffle, decryption shares, reveals, result signatures) are written by the machine
itself when it is this peer's turn; rules actions come from the driver through :meth:`act`.

Driver loop::

    machine = TableMachine(config, identity_key, now=clock())
    send(machine.take_outgoing())
    on frame:   events = machine.receive(frame, now);  send(machine.take_outgoing())
    on a move:  machine.act(action, now)               (LocalProtocolError if not allowed)
    on a timer: machine.tick(now)
    persist machine.take_records() before acting on the events.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealerless.protocol.cards import Card
from dealerless.protocol.crypto import CryptoError, HandDeckContext, PlayerSecret
from dealerless.protocol.messages import (
    IdentityKey,
    MessageError,
    SignedMessage,
    decode_message,
    pack,
    sign_message,
    unpack,
)
from dealerless.protocol.rules.base import (
    Action,
    ActionKind,
    Deal,
    Engine,
    HandResult,
    IllegalAction,
    Reveal,
    TurnUp,
)
from dealerless.protocol.rules.registry import new_engine
from dealerless.protocol.table.config import TableConfig
from dealerless.protocol.table.events import (
    Accepted,
    ActionApplied,
    CardsDealt,
    CardsShown,
    GameOver,
    HandEnded,
    HandSigned,
    HandStarted,
    LocalProtocolError,
    RemoteProtocolError,
    Stale,
    TableEvent,
    TranscriptCut,
    Violation,
)
from dealerless.protocol.table.hand_deck import (
    DEAL,
    OPEN,
    HandDeck,
    decode_secret,
    encode_secret,
    play_step,
)
from dealerless.protocol.table.kinds import SIDE_KINDS, TABLE_REGISTRY
from dealerless.protocol.table.steps import STEP_BY_PHASE, Phase
from dealerless.protocol.table.votes import VoteBook

MAX_FUTURE = 512  # buffered frames (in all) whose predecessor has not arrived yet
MAX_VIOLATIONS = 256  # violations kept with their evidence (a flood must not grow memory)
MAX_ANONYMOUS_EVIDENCE = 1024  # bytes kept of a frame nobody can be blamed for


def result_digest(result: HandResult) -> bytes:
    data = {
        "hand": result.hand_number,
        "winners": list(result.winners),
        "deltas": list(result.deltas),
        "reason": result.reason,
    }
    return hashlib.sha256(pack(data)).digest()


def first_dealer(config: TableConfig) -> int:
    """Derived from the signed configuration, so no single party picks it."""
    return int.from_bytes(hashlib.sha256(b"dealerless/first-dealer" + config.digest()).digest()) % (
        config.players
    )


@dataclass
class _Round:
    """A round in seat order: who still has to write, and what each owes (shares)."""

    seats: list[int]
    positions: dict[int, list[int]] = field(default_factory=dict)
    step: str = DEAL
    request: Deal | TurnUp | None = None


class TableMachine:
    def __init__(
        self,
        config: TableConfig,
        key: IdentityKey | None,
        *,
        now: float = 0.0,
        secrets: Mapping[int, bytes] | None = None,
        replay: bool = False,
    ) -> None:
        self.config = config
        self._stored_secrets = dict(secrets or {})
        self._new_secrets: list[tuple[int, bytes]] = []
        self._replaying = replay
        self._rolling_back = False
        self.key = key
        self.seat: int | None = None
        if key is not None:
            self.seat = config.seat_of(key.peer_id.raw)
            if self.seat is None:
                raise LocalProtocolError("this identity key has no seat at the table")
        self.players = config.players
        self.timeout = config.step_timeout_ms / 1000.0
        self.head = config.digest()
        self.seq = 0
        self.hand = 0
        self.phase = Phase.CONFIG
        self.participants: tuple[int, ...] = tuple(range(self.players))
        self.round: _Round | None = _Round(list(self.participants))
        self.reveal_due: Reveal | None = None
        self.engine: Engine = new_engine(config.game, first_dealer(config))
        self.deck: HandDeck | None = None
        self.secret: PlayerSecret | None = None
        self.records: list[bytes] = []  # the transcript: every chain frame and certificate vote
        self._new_records: list[bytes] = []
        self._outbox: list[bytes] = []
        self.events: list[TableEvent] = []
        self.history: set[bytes] = {self.head}  # every head this table has had
        # Heads of the current hand with the number of hand frames up to each (for rollback).
        self.hand_heads: list[tuple[bytes, int]] = []
        self._hand_start: tuple[Engine, bytes, int, int] | None = None
        self._hand_frames: list[bytes] = []
        self.signed_at: dict[tuple[int, int, int], bytes] = {}  # (seat, hand, seq) -> frame
        self.seen: set[bytes] = set()
        self.future: dict[bytes, list[bytes]] = {}
        self.requests: list[SignedMessage] = []
        self.results: dict[int, bytes] = {}
        self.violations: list[Violation] = []
        self.votes = VoteBook(self)
        self.step_since = now
        self.now = now
        self._drive()

    @classmethod
    def resume(
        cls,
        config: TableConfig,
        key: IdentityKey | None,
        records: Sequence[bytes],
        *,
        secrets: Mapping[int, bytes] | None = None,
        now: float = 0.0,
    ) -> TableMachine:
        """Rebuild a machine from its transcript (and its stored key shares), verifying every
        record again; then carry on (write our next automatic element if it is due).

        An auditor passes ``key=None``. Raises LocalProtocolError if a record does not fit:
        a transcript that does not replay is corrupt and nothing is written.
        """
        machine = cls(config, key, now=now, secrets=secrets, replay=True)
        for number, frame in enumerate(records):
            before = len(machine.records)
            machine._receive(frame)
            machine.votes.check_certificates()
            replayed = len(machine.records) > before or frame in machine.records
            if not replayed and not machine._is_pending_vote(frame):
                raise LocalProtocolError(f"transcript record {number} does not replay")
        machine._replaying = False
        machine._outbox.clear()
        machine._new_records.clear()
        machine.events.clear()
        machine._drive()
        return machine

    def _is_pending_vote(self, frame: bytes) -> bool:
        """A vote that is waiting for the rest of its certificate."""
        return any(
            frame == vote.frame
            for book in (self.votes.timeout, self.votes.abort)
            for votes in book.values()
            for vote in votes.values()
        )

    def take_secrets(self) -> list[tuple[int, bytes]]:
        """Key shares created since the last call: store them (0600) before sending anything."""
        out, self._new_secrets = self._new_secrets, []
        return out

    # ---------------------------------------------------------------- driver API
    def take_outgoing(self) -> list[bytes]:
        out, self._outbox = self._outbox, []
        return out

    def take_records(self) -> list[bytes]:
        out, self._new_records = self._new_records, []
        return out

    def take_events(self) -> list[TableEvent]:
        out, self.events = self.events, []
        return out

    def state_hash(self) -> bytes:
        return hashlib.sha256(self.head + self.engine.public_digest()).digest()

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def arbiter(self) -> int | None:
        """The one seat that may extend the chain now."""
        if self.phase is Phase.OVER:
            return None
        if self.round is not None:
            return self.round.seats[0] if self.round.seats else None
        if self.phase is Phase.REVEAL:
            assert self.reveal_due is not None
            return self.reveal_due.seat
        waiting = self.engine.to_act()
        return waiting[0] if waiting else None

    def my_turn_to_act(self) -> bool:
        """True when the driver must choose a rules action for this seat."""
        return self.phase is Phase.PLAY and self.seat is not None and self.arbiter() == self.seat

    def may_act(self) -> bool:
        return (
            self.phase is Phase.PLAY
            and self.seat is not None
            and self.seat in self.engine.may_act()
        )

    def receive(self, frame: bytes, now: float) -> list[TableEvent]:
        self.now = now
        self._receive(frame)
        self.votes.check_timeouts()
        return self.take_events()

    def tick(self, now: float) -> list[TableEvent]:
        self.now = now
        self.votes.check_timeouts()
        return self.take_events()

    def act(self, action: Action, now: float) -> list[TableEvent]:
        """Send a rules action of this seat. Raises LocalProtocolError (nothing sent) if the
        rules or the protocol do not allow it now."""
        self.now = now
        if self.seat is None or action.seat != self.seat:
            raise LocalProtocolError("a peer can only act for its own seat")
        if self.phase is not Phase.PLAY:
            raise LocalProtocolError(f"no moves now: the table is in the {self.phase} phase")
        try:
            self.engine.verify(action)
        except IllegalAction as exc:
            raise LocalProtocolError(str(exc)) from None
        if self.arbiter() == self.seat:
            body = self._action_body(action)
            self._write("action", body)
        elif self.seat in self.engine.may_act():
            message = self._sign("request", {"action": action.to_wire()})
            self._outbox.append(message.frame)
        else:
            raise LocalProtocolError("it is not your turn")
        return self.take_events()

    def chat(self, text: str, now: float) -> None:
        """Send a signed line of table chat to every peer (a side message, not recorded)."""
        self.now = now
        if self.seat is None:
            raise LocalProtocolError("an observer cannot chat")
        line = " ".join(text.split())[:500]
        if not line:
            raise LocalProtocolError("an empty chat line")
        try:
            message = self._sign("chat", {"text": line})
        except MessageError as exc:
            raise LocalProtocolError(f"chat line refused: {exc}") from None
        self.seen.add(message.frame)
        self._outbox.append(message.frame)

    # ---------------------------------------------------------------- signing and writing
    def _sign(self, kind: str, body: dict[str, Any], *, at: bytes | None = None) -> SignedMessage:
        """Sign a message at the current head, or at ``at``, an earlier head of this hand."""
        assert self.key is not None
        prev = self.head if at is None else at
        return sign_message(
            self.key,
            table_id=self.config.table_id,
            hand=self.hand,
            seq=self.seq_after(prev),
            prev=prev,
            seat=self.seat,
            kind=kind,
            body=body,
            registry=TABLE_REGISTRY,
        )

    def _write(self, kind: str, body: dict[str, Any]) -> None:
        """Sign a chain element of ours, accept it locally and queue it for every peer."""
        message = self._sign(kind, body)
        self.seen.add(message.frame)
        # Queue it first: accepting it may trigger our next automatic element, which must follow.
        self._outbox.append(message.frame)
        self._accept(message, own=True)

    def _drive(self) -> None:
        """Write every automatic step that is ours, and admit pending requests."""
        while self.seat is not None and not self.over and not self._replaying:
            if self.arbiter() != self.seat:
                return
            if self.phase is Phase.PLAY:
                request = self._admissible_request()
                if request is None:
                    return
                self._write("admit", {"request": request.frame})
                continue
            self._write(*self._automatic_body())

    def _automatic_body(self) -> tuple[str, dict[str, Any]]:
        assert self.seat is not None
        if self.phase is Phase.CONFIG:
            return "config-sign", {"config_hash": self.config.digest()}
        deck = self.deck
        assert deck is not None
        if self.phase is Phase.KEY_COMMIT:
            return "key-commit", {"commit": deck.make_commit()}
        if self.phase is Phase.KEY_REVEAL:
            return "key-reveal", {"reveal": deck.make_reveal()}
        if self.phase is Phase.SHUFFLE:
            return "shuffle", {"shuffle": deck.make_shuffle()}
        if self.phase is Phase.SHARES:
            assert self.round is not None
            positions = self.round.positions[self.seat]
            return "shares", {"shares": deck.make_shares(positions, self.round.step)}
        if self.phase is Phase.REVEAL:
            assert self.reveal_due is not None
            return "reveal", {"shares": deck.make_shares(self.reveal_due.positions, OPEN)}
        assert self.phase is Phase.RESULT
        assert self.engine.hand_result is not None
        return "result", {
            "result": result_digest(self.engine.hand_result),
            "state": self.engine.public_digest(),
        }

    def _action_body(self, action: Action) -> dict[str, Any]:
        """Our own action, with the card opening and legality proofs a play needs."""
        if action.kind is not ActionKind.PLAY:
            return {"action": action.to_wire()}
        deck = self.deck
        assert deck is not None and action.card is not None and self.seat is not None
        slot = next(s for s in self.engine.hand(self.seat) if s.card == action.card)
        action = Action(ActionKind.PLAY, self.seat, card=action.card, position=slot.position)
        body: dict[str, Any] = {"action": action.to_wire()}
        if slot.position not in deck.public:
            body["open"] = deck.make_shares([slot.position], OPEN)[0]
        hidden, forbidden = self._proof_obligation(action)
        if hidden and forbidden:
            body["nonmember"] = deck.make_nonmembership(hidden, forbidden, play_step(self.seq))
        return body

    def _proof_obligation(self, action: Action) -> tuple[list[int], list[int]]:
        """(the player's other positions not known in public, the forbidden card indices)."""
        deck = self.deck
        assert deck is not None
        forbidden = sorted(c.index for c in self.engine.forbidden_cards(action))
        hidden = sorted(
            s.position
            for s in self.engine.hand(action.seat)
            if s.position != action.position and s.position not in deck.public
        )
        return hidden, forbidden

    # ---------------------------------------------------------------- receiving
    def _receive(self, frame: bytes, *, again: bool = False) -> None:
        if frame in self.seen and not again:
            return
        try:
            message = decode_message(frame, registry=TABLE_REGISTRY)
        except MessageError as exc:
            blamed = self._signed_author(frame, exc)
            self._violation(
                blamed, f"undecodable message: {exc}", (frame,), vote=blamed is not None
            )
            return
        culprit = self._author_seat(message)
        if culprit is None:
            return
        self.seen.add(frame)
        if message.kind in SIDE_KINDS:
            self.votes.side_message(message)
            return
        key = (culprit, message.hand, message.seq)
        earlier = self.signed_at.get(key)
        if earlier is not None and earlier != frame and not again:
            self.votes.equivocation(culprit, earlier, frame)
            return
        self.signed_at[key] = frame
        if message.prev == self.head:
            if self.votes.voted_silent(culprit, self.head):
                # We already signed that this seat was silent here: its late element is refused.
                self.events.append(Stale(culprit, message.kind))
                return
            self._accept(message, own=False)
            self._release_future()
        elif message.prev in self.history:
            self.events.append(Stale(culprit, message.kind))
        elif sum(len(v) for v in self.future.values()) < MAX_FUTURE:
            self.future.setdefault(message.prev, []).append(frame)
        else:
            self.seen.discard(frame)  # dropped for now; a later copy may still be buffered

    def _author_seat(self, message: SignedMessage) -> int | None:
        if message.table_id != self.config.table_id:
            self._violation(None, "message for another table", (message.frame,), vote=False)
            return None
        seat = self.config.seat_of(message.author.raw)
        if seat is None:
            self._violation(None, "message signed by a key with no seat", (message.frame,), False)
            return None
        if message.seat != seat:
            self._violation(seat, f"message claims seat {message.seat}", (message.frame,))
            return None
        return seat

    def _release_future(self) -> None:
        while self.head in self.future:
            for frame in self.future.pop(self.head):
                self._receive(frame, again=True)

    def _signed_author(self, frame: bytes, exc: MessageError) -> int | None:
        """The seat that signed a frame which decodes no further, if it claims this table."""
        if exc.signed_by is None:
            return None
        seat = self.config.seat_of(exc.signed_by)
        if seat is None:
            return None
        try:
            header = unpack(frame[:-64])
        except MessageError:
            return None
        if not isinstance(header, list) or len(header) < 2 or header[1] != self.config.table_id:
            return None
        return seat

    def _violation(
        self, culprit: int | None, reason: str, evidence: tuple[bytes, ...], vote: bool = True
    ) -> None:
        kept = evidence
        if culprit is None:
            kept = tuple(e[:MAX_ANONYMOUS_EVIDENCE] for e in evidence)
        event = Violation(culprit, reason, kept, {"hand": self.hand, "seq": self.seq})
        self.violations.append(event)
        if len(self.violations) > MAX_VIOLATIONS:
            del self.violations[: len(self.violations) - MAX_VIOLATIONS]
        self.events.append(event)
        if vote and culprit is not None:
            self.votes.vote_abort(culprit, reason, evidence)

    # ---------------------------------------------------------------- accepting chain elements
    def _accept(self, message: SignedMessage, *, own: bool) -> None:
        seat = message.seat
        assert seat is not None
        try:
            if message.hand != self.hand or message.seq != self.seq:
                raise RemoteProtocolError(
                    f"hand {message.hand} seq {message.seq}, expected {self.hand}/{self.seq}", seat
                )
            step = STEP_BY_PHASE.get(self.phase)
            if step is None or message.kind not in step.kinds:
                raise RemoteProtocolError(
                    f"{message.kind!r} is not allowed in the {self.phase} phase", seat
                )
            if self.arbiter() != seat:
                raise RemoteProtocolError(
                    f"out of turn: seat {self.arbiter()} writes next, not seat {seat}", seat
                )
            self._apply(message, seat, own)
        except RemoteProtocolError as exc:
            self._refuse(message, seat, exc.reason, own)
            return
        except (CryptoError, IllegalAction, ValueError) as exc:
            self._refuse(message, seat, f"{message.kind}: {exc}", own)
            return
        self._append([message.frame], message.digest)
        self.events.append(Accepted(message.kind, seat, message.seq, self.state_hash()))
        self._advance()
        self._drive()

    def _refuse(self, message: SignedMessage, seat: int, reason: str, own: bool) -> None:
        if own:
            # Our own element failed our own checks: never let it leave.
            if message.frame in self._outbox:
                self._outbox.remove(message.frame)
            raise LocalProtocolError(f"refused before sending: {reason}")
        self._violation(seat, reason, (message.frame,))

    def _append(self, frames: Sequence[bytes], digest: bytes) -> None:
        """Add one chain element (a message, or a certificate's votes) and move the head."""
        self.records.extend(frames)
        self._new_records.extend(frames)
        self._hand_frames.extend(frames)
        self.head = digest
        self.history.add(digest)
        self.hand_heads.append((digest, len(self._hand_frames)))
        self.seq += 1
        self.step_since = self.now
        self.requests = [r for r in self.requests if r.prev == self.head]

    def _apply(self, message: SignedMessage, seat: int, own: bool) -> None:
        kind, body = message.kind, message.body
        if kind == "config-sign":
            if body["config_hash"] != self.config.digest():
                raise RemoteProtocolError("signed a different table configuration", seat)
        elif kind in ("key-commit", "key-reveal", "shuffle", "shares"):
            self._apply_deck_step(kind, body, seat, own)
        elif kind == "reveal":
            self._apply_reveal(body, seat)
        elif kind == "action":
            self._apply_action(Action.from_wire(body["action"]), body, seat, own)
        elif kind == "admit":
            self._apply_admit(body["request"], message)
        elif kind == "result":
            self._apply_result(body, seat)
        if self.round is not None and self.round.seats and self.round.seats[0] == seat:
            self.round.seats.pop(0)

    def _apply_deck_step(self, kind: str, body: Any, seat: int, own: bool) -> None:
        deck = self.deck
        assert deck is not None
        if kind == "key-commit":
            deck.accept_commit(seat, body["commit"])
        elif kind == "key-reveal":
            deck.accept_reveal(seat, body["reveal"])
        elif kind == "shuffle":
            deck.accept_shuffle(seat, body["shuffle"], trusted=own)
        else:
            assert self.round is not None
            positions = self.round.positions[seat]
            deck.accept_shares(seat, list(body["shares"]), positions, self.round.step)

    def _apply_reveal(self, body: Any, seat: int) -> None:
        deck, due = self.deck, self.reveal_due
        assert deck is not None and due is not None
        deck.accept_shares(seat, list(body["shares"]), due.positions, OPEN)
        cards = [deck.open_public(p) for p in due.positions]
        self.engine.apply_chance([Card.from_index(c) for c in cards])
        self.events.append(CardsShown(seat, tuple(zip(due.positions, cards, strict=True))))
        self.reveal_due = None

    def _apply_action(self, action: Action, body: Any, seat: int, own: bool) -> None:
        if action.seat != seat:
            raise RemoteProtocolError(f"action names seat {action.seat}", seat)
        deck = self.deck
        assert deck is not None
        opened: int | None = None
        new_share = None
        if action.kind is ActionKind.PLAY:
            if action.position is None or action.card is None:
                raise RemoteProtocolError("a card play must name its card and deck position", seat)
            if all(s.position != action.position for s in self.engine.hand(seat)):
                raise RemoteProtocolError(
                    f"deck position {action.position} is not in your hand", seat
                )
            if action.position in deck.public:
                if deck.public[action.position] != action.card.index:
                    raise RemoteProtocolError("that position holds another (public) card", seat)
            elif "open" not in body:
                raise RemoteProtocolError("a card play must open the card", seat)
            elif not own:
                share = deck.verify_share_payload(seat, body["open"], action.position, OPEN)
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
                    for s in self.engine.hand(seat)
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
                        play_step(self.seq),
                    )
        elif "open" in body or "nonmember" in body:
            raise RemoteProtocolError("only a card play carries an opening or proofs", seat)
        rules_events = self.engine.apply(action)
        if action.kind is ActionKind.PLAY and action.position is not None:
            assert action.card is not None
            if new_share is not None:
                deck.shares.setdefault(action.position, {})[seat] = new_share
            deck.public[action.position] = action.card.index
        self.events.append(ActionApplied(action, tuple(rules_events)))

    def _admissible_request(self) -> SignedMessage | None:
        for request in self.requests:
            if request.prev == self.head and self._request_action(request) is not None:
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
            or action.seat not in self.engine.may_act()
            or not self.engine.can(action)
        ):
            return None
        return action

    def _apply_admit(self, embedded: bytes, admit: SignedMessage) -> None:
        request = decode_message(embedded, registry=TABLE_REGISTRY)
        seat = admit.seat
        if request.table_id != self.config.table_id or request.prev != admit.prev:
            raise RemoteProtocolError("admitted a request made at another head", seat)
        if self.config.seat_of(request.author.raw) != request.seat:
            raise RemoteProtocolError("admitted a request with a forged seat", seat)
        action = self._request_action(request)
        if action is None:
            raise RemoteProtocolError("admitted a request the rules do not allow now", seat)
        rules_events = self.engine.apply(action)
        self.events.append(ActionApplied(action, tuple(rules_events)))

    def _apply_result(self, body: Any, seat: int) -> None:
        result = self.engine.hand_result
        assert result is not None
        if body["result"] != result_digest(result) or body["state"] != self.engine.public_digest():
            raise RemoteProtocolError("signed a different hand result", seat)
        self.results[seat] = body["result"]

    # ---------------------------------------------------------------- moving on
    def _advance(self) -> None:
        """After an accepted element: start the next round, chance step or hand."""
        if self.round is not None and self.round.seats:
            return
        finished = self.round
        self.round = None
        if self.phase is Phase.CONFIG:
            self._start_hand()
        elif self.phase is Phase.KEY_COMMIT:
            self._set_round(Phase.KEY_REVEAL, list(self.participants))
        elif self.phase is Phase.KEY_REVEAL:
            self._set_round(Phase.SHUFFLE, list(self.participants))
        elif self.phase is Phase.SHARES:
            assert finished is not None
            self._finish_shares(finished)
            self._next_in_hand()
        elif self.phase is Phase.RESULT:
            self.events.append(HandSigned(self.hand))
            if self.engine.outcome is not None:
                self.phase = Phase.OVER
                self.events.append(GameOver(self.engine.outcome))
            else:
                self._start_hand()
        else:
            self._next_in_hand()

    def _set_round(self, phase: Phase, seats: list[int]) -> None:
        self.phase = phase
        self.round = _Round(seats)

    def _start_hand(self) -> None:
        self.hand += 1
        self.results = {}
        # Seats in the game when the hand starts (before antes: an all-in ante still plays).
        self.participants = tuple(self.engine.in_game())
        self.engine.start_hand()
        self.events.append(HandStarted(self.hand, self.engine.dealer))
        hctx = HandDeckContext(self.config.table_id, self.hand)
        playing = self.seat is not None and self.seat in self.participants
        self.secret = (
            self._hand_secret(hctx, self.seat) if playing and self.seat is not None else None
        )
        self.deck = HandDeck(hctx, self.participants, self.secret)
        self._hand_start = (copy.deepcopy(self.engine), self.head, self.seq, len(self.records))
        self._hand_frames = []
        self.hand_heads = []
        self._set_round(Phase.KEY_COMMIT, list(self.participants))

    def _hand_secret(self, hctx: HandDeckContext, seat: int) -> PlayerSecret:
        stored = self._stored_secrets.get(self.hand)
        if stored is not None:
            return decode_secret(hctx, seat, stored)
        secret = PlayerSecret.generate(hctx, seat)
        self._new_secrets.append((self.hand, encode_secret(secret)))
        return secret

    def _next_in_hand(self) -> None:
        engine = self.engine
        if not engine.hand_running:
            result = engine.hand_result
            assert result is not None
            self.events.append(HandEnded(result))
            self._set_round(Phase.RESULT, list(self.participants))
            return
        request = engine.chance_request()
        if request is None:
            self.phase = Phase.PLAY
        elif isinstance(request, Reveal):
            self.phase = Phase.REVEAL
            self.reveal_due = request
        else:
            self._start_shares(request)

    def _start_shares(self, request: Deal | TurnUp) -> None:
        if isinstance(request, Deal):
            dues = {
                s: [p for owner, p in request.assignments if owner != s] for s in self.participants
            }
            step = DEAL
        else:
            dues = {s: [request.position] for s in self.participants}
            step = OPEN
        seats = [s for s in self.participants if dues[s]]
        self.phase = Phase.SHARES
        self.round = _Round(seats, dues, step, request)
        if not seats:  # a deal to a single-seat table: nothing to share
            self._finish_shares(self.round)
            self.round = None
            self._next_in_hand()

    def _finish_shares(self, finished: _Round) -> None:
        deck = self.deck
        assert deck is not None and finished.request is not None
        request = finished.request
        if isinstance(request, Deal):
            cards = deck.deal_to(request.assignments)
            self.engine.apply_chance([None if c is None else Card.from_index(c) for c in cards])
            mine = tuple(
                (p, c)
                for (_, p), c in zip(request.assignments, cards, strict=True)
                if c is not None
            )
            if mine:
                self.events.append(CardsDealt(mine))
        else:
            card = deck.open_public(request.position)
            self.engine.apply_chance([Card.from_index(card)])
            self.events.append(CardsShown(None, ((request.position, card),)))

    # ---------------------------------------------------------------- certificates
    def apply_certificate(
        self, frames: list[bytes], digest: bytes, effect: str, culprit: int, reason: str
    ) -> None:
        """Append a complete certificate (votes in seat order) and carry out its effect."""
        self._append(frames, digest)
        self.events.append(Accepted(f"{effect}-certificate", None, self.seq - 1, self.state_hash()))
        if self.phase is Phase.CONFIG:
            self.phase = Phase.OVER
            self.events.append(Violation(culprit, f"the table did not start: {reason}"))
        elif self.phase is Phase.RESULT:
            # The result is already fixed by the rules; only the culprit's signature is missing.
            assert self.round is not None
            self.round.seats = [s for s in self.round.seats if s != culprit]
            self._advance()
        elif effect == "timeout" and self.phase is Phase.PLAY:
            action = self.engine.timeout_action(culprit)
            if action is not None:
                rules_events = self.engine.apply(action)
                self.events.append(ActionApplied(action, tuple(rules_events), by_timeout=True))
                self._advance()
            else:
                self._abort_hand(culprit, reason)
        else:
            self._abort_hand(culprit, reason)
        self._drive()

    # ---------------------------------------------------------------- rollback
    def seq_after(self, head: bytes) -> int:
        """The sequence number of the element that follows ``head`` (current or of this hand)."""
        if head == self.head:
            return self.seq
        assert self._hand_start is not None
        if head == self._hand_start[1]:
            return self._hand_start[2]
        index = next(i for i, (h, _) in enumerate(self.hand_heads) if h == head)
        return self._hand_start[2] + index + 1

    def can_rollback_to(self, anchor: bytes) -> bool:
        """True when ``anchor`` is an earlier head of the running hand."""
        if anchor == self.head:
            return True
        if self._hand_start is None:
            return False
        return anchor == self._hand_start[1] or any(h == anchor for h, _ in self.hand_heads)

    def rollback_to(self, anchor: bytes) -> None:
        """Undo the hand's chain back to ``anchor`` (a fork point proven by equivocation).

        The hand is replayed from its start up to the anchor with the records we hold; the
        transcript is cut there (a :class:`TranscriptCut` event tells the node to truncate).
        Elements signed on the void branch are forgotten, so their authors may sign that step
        again without being taken for equivocators.
        """
        if anchor == self.head:
            return
        assert self._hand_start is not None and self.can_rollback_to(anchor)
        engine, head, seq, record_count = self._hand_start
        if anchor == head:
            keep, anchor_seq = 0, seq
        else:
            index = next(i for i, (h, _) in enumerate(self.hand_heads) if h == anchor)
            keep, anchor_seq = self.hand_heads[index][1], seq + index + 1
        frames = self._hand_frames[:keep]
        self.engine = copy.deepcopy(engine)
        self.head, self.seq = head, seq
        del self.records[record_count:]
        self._new_records = []
        self._hand_frames, self.hand_heads = [], []
        self.results, self.requests = {}, []
        self.reveal_due = None
        hctx = HandDeckContext(self.config.table_id, self.hand)
        self.deck = HandDeck(hctx, self.participants, self.secret)
        self._set_round(Phase.KEY_COMMIT, list(self.participants))
        for key in [k for k in self.signed_at if k[1] == self.hand and k[2] > anchor_seq]:
            del self.signed_at[key]
        replaying, self._replaying = self._replaying, True
        self._rolling_back = True
        try:
            for frame in frames:
                self._receive(frame, again=True)
                self.votes.check_certificates()
        finally:
            self._replaying = replaying
            self._rolling_back = False
        # What we hold now is a prefix of what the node stored: it cuts its file there.
        self._new_records = []
        self.events.append(TranscriptCut(len(self.records)))

    def _abort_hand(self, culprit: int, reason: str) -> None:
        self.round = None
        self.reveal_due = None
        result = self.engine.abort_hand(culprit, reason)
        self.events.append(HandEnded(result, aborted=True))
        signers = [s for s in self.participants if s != culprit]
        self._set_round(Phase.RESULT, signers)
        if not signers:
            self._advance()
