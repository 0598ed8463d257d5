"""How a seat's node takes what its hub delivers: hub notices (admitted, peers up and down,
errors), and seat messages, where the signed ones are checked cheaply first (may this key send
this kind at all?) and only then by signature, and frames by authors that are not seats are
dropped before any curve or signature work. A part of :class:`~dealerless.node.seat.SeatNode`;
see spec/node.md §2 and §3."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from dealerless.node.catch_up import CatchUp
from dealerless.node.join_handshake import JoinHandshake
from dealerless.node.links import Link, LinkError
from dealerless.node.notices import Notice, Who, notice
from dealerless.node.seat_changes import SeatChanges, away_keys
from dealerless.node.seat_direct import DirectLinks
from dealerless.node.wire import (
    SIGNED_KINDS,
    WireError,
    decode,
    frame_author,
    unseal,
    verify_sealed,
)
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import TableEvent

PRESTART_BUFFER = 512


class MessagesNode(Protocol):
    """What the message dispatch uses of its node."""

    say: Callable[[Notice], None]

    @property
    def host_key(self) -> bytes: ...

    @property
    def config(self) -> TableConfig | None: ...

    @property
    def machine(self) -> TableMachine | None: ...

    @property
    def link(self) -> Link | None: ...

    def now(self) -> float: ...

    def queue(self, payload: dict[str, Any]) -> None: ...

    def after(self, events: list[TableEvent]) -> None: ...

    def admit(self) -> None: ...

    def who(self, key: bytes) -> Who: ...

    def name_of(self, seat: int | None) -> Who: ...

    def seat_of_key(self, key: bytes) -> int | None: ...

    def seat_keys(self) -> frozenset[bytes]: ...

    def queue_signed(self, payload: dict[str, Any], to: bytes | None = None) -> None: ...


class SeatMessages:
    """The dispatch of what the hub delivers to a seat's node: it owns the hub's view (are we
    admitted, which peers are up), the frames heard before our machine exists, the count of
    messages dropped before any signature work, and the seats that said they quit."""

    def __init__(
        self,
        node: MessagesNode,
        handshake: JoinHandshake,
        catch_up: CatchUp,
        changes: SeatChanges,
        direct: DirectLinks,
        *,
        key: bytes,
        table_id: bytes,
        is_host: bool,
    ) -> None:
        self.node, self.handshake, self.catch_up, self.changes = node, handshake, catch_up, changes
        self.direct = direct
        self.key, self.table_id, self.is_host = key, table_id, is_host
        self.admitted = False
        self.peers_up: set[bytes] = set()
        self.prestart: list[bytes] = []
        self.dropped = 0  # messages dropped before any signature work (not from a seat)
        self.byes: dict[bytes, int] = {}  # seats that told us their player quits (hand)
        self.bye_said = False  # we told the table that our player quits

    def connected(self, joined: dict[str, Any]) -> None:
        """A link is up; ``joined`` is what the hub said when we joined."""
        self.admitted = bool(joined.get("admitted", True))
        self.peers_up = {k for k in joined.get("members", []) if k != self.key}

    def take_prestart(self) -> list[bytes]:
        """The frames heard before our machine existed (once)."""
        frames, self.prestart = self.prestart, []
        return frames

    def on_hub(self, message: dict[str, Any]) -> None:
        kind = message["t"]
        if kind == "msg":
            sender = message.get("from")
            data = message.get("data")
            if not isinstance(sender, bytes) or not isinstance(data, bytes):
                return
            try:
                payload = decode(data)
            except WireError as exc:
                self.node.say(notice("refused_from", who=self.node.who(sender), reason=str(exc)))
                return
            self._on_peer(sender, payload, direct=bool(message.get("direct")))
        elif kind == "admitted":
            self.admitted = True
            members = message.get("members")
            if isinstance(members, list):
                self.peers_up = {k for k in members if isinstance(k, bytes) and k != self.key}
            if self.node.machine is not None:
                self.catch_up.announce()
        elif kind == "peer":
            key, up = message.get("key"), bool(message.get("up"))
            if not isinstance(key, bytes):
                return
            if up and (len(self.peers_up) < 64 or key in self.node.seat_keys()):
                self.peers_up.add(key)  # bounded: a hub can name any number of keys
            else:
                self.peers_up.discard(key)
            machine = self.node.machine
            if not up and machine is not None and machine.over and machine.seat_change is None:
                # The game is over: leaving now is the normal end, not a lost connection.
                self.node.say(notice("peer_left_end", who=self.node.who(key)))
            elif (
                not up and machine is not None and not machine.over and key in self.node.seat_keys()
            ):
                # what happens next, said with it: the table does not wait for ever
                self.node.say(
                    notice("peer_down_wait", who=self.node.who(key), seconds=machine.timeout)
                )
            else:
                self.node.say(notice("peer_up" if up else "peer_down", who=self.node.who(key)))
            if not up and self.is_host and self.node.config is None:
                self.handshake.left(key)
        elif kind == "error":
            raise LinkError(f"the hub refused: {message.get('reason')}")

    def _config_missed(self) -> None:
        if self.node.link is not None:
            self.handshake.config_missed(self.peers_up)

    def _may_send(self, sender: bytes, kind: str, payload: dict[str, Any]) -> bool:
        """May ``sender`` (as the hub says) author a signed message of ``kind`` at all? Cheap
        checks only: the signature is verified after this, and only if it passes."""
        if kind == "hello":
            return (
                (self.changes.hosting() or self.changes.hears_newcomers())
                and sender != self.key
                and self.handshake.proof_ok(sender, payload)
            )
        # A newcomer also hears the seat that hosts the running segment (seat changes), if it
        # said hello to that key itself.
        answering = sender == self.node.host_key or sender in self.handshake.hello_targets
        if kind in ("lobby", "refused"):
            return not self.is_host and answering and self.node.config is None
        if kind == "config":
            return not self.is_host and answering
        if kind == "back":
            return self.changes.hosting() and sender in away_keys(self.node.machine)
        if kind == "bye":
            machine = self.node.machine
            return sender != self.key and machine is not None and sender in self.node.seat_keys()
        if kind == "closed":
            return not self.is_host and sender == self.node.host_key and self.node.config is None
        if kind in ("cand", "punch"):
            return sender != self.key and sender in self.node.seat_keys()
        # have: the seats, the seats sitting out that follow the table, and the newcomers
        # waiting to sit down (they fetch the chain so far: catch_up.py serves them records)
        return sender != self.key and (
            sender in self.node.seat_keys()
            or sender in away_keys(self.node.machine)
            or sender in self.changes.waiting
        )

    def _on_signed(self, sender: bytes, message: dict[str, Any]) -> None:
        try:
            payload, body, signature = unseal(message)
        except WireError:
            self.dropped += 1
            return
        kind = payload["t"]
        if not self._may_send(sender, kind, payload):
            self.dropped += 1
            if kind == "hello" and self.changes.hosting() and sender != self.key:
                self.handshake.refuse(sender, "no valid proof of the invite's token")
            elif kind == "have":
                self._config_missed()
            return
        if not verify_sealed(sender, self.table_id, body, signature):
            self.dropped += 1
            self.node.say(notice("bad_signature", kind=kind, who=self.node.who(sender)))
            return
        if kind == "hello" and self.node.config is not None:
            self.changes.hello_at_table(sender, payload)
        elif kind == "hello":
            self.handshake.on_hello(sender, payload)
        elif kind == "lobby":
            self.handshake.on_lobby(payload, sender)
        elif kind == "refused":
            self.handshake.on_refused(payload)
        elif kind == "config":
            self.handshake.on_config(payload, sender)
        elif kind == "back":
            self.changes.returner_back(sender, payload)
        elif kind == "closed":
            self.handshake.on_closed(payload)
        elif kind == "bye":
            self._on_bye(sender, payload)
        elif kind == "cand":
            self.direct.on_candidates(sender, payload)
        elif kind == "punch":
            self.direct.on_punch(sender, payload)
        else:
            self.catch_up.on_have(sender, payload)

    def say_bye(self, machine: TableMachine, leaving: bool) -> None:
        """The player quits (the driver's ``leaving``) while the game runs: tell the table once,
        signed, so every seat can say so at once instead of waiting out a step timeout."""
        if self.bye_said or not leaving:
            return
        self.bye_said = True
        if machine.seat is not None and not machine.over and not machine.left_table:
            self.node.queue_signed({"t": "bye", "hand": machine.hand})

    def _on_bye(self, sender: bytes, payload: dict[str, Any]) -> None:
        """A seat's signed word that its player quits (its node stops soon after): say so now.
        What follows is the table's usual course: at that seat's next step the others time it
        out (in a hand-by-hand game it then sits out, its chips kept; spec/node.md §7a)."""
        machine = self.node.machine
        hand = payload.get("hand")
        if machine is None or machine.over or self.byes.get(sender) == hand:
            return
        # Once per seat and hand (a copy through another relay says nothing); bounded: only
        # seats of the running table get here.
        self.byes[sender] = hand if isinstance(hand, int) else -1
        who = self.node.name_of(self.node.seat_of_key(sender))
        self.node.say(notice("peer_quit", who=who))

    def _seat_frames(self, frames: object) -> list[bytes]:
        """The frames authored by seats; others are dropped before any curve or signature work
        (before the configuration exists, the seats are not known and nothing is dropped)."""
        if not isinstance(frames, list):
            return []
        seats = self.node.seat_keys()
        kept = [
            f for f in frames if isinstance(f, bytes) and (not seats or frame_author(f) in seats)
        ]
        self.dropped += len(frames) - len(kept)
        return kept

    def _on_peer(self, sender: bytes, payload: dict[str, Any], direct: bool = False) -> None:
        kind = payload["t"]
        if kind == "sig":
            self._on_signed(sender, payload)
        elif kind in SIGNED_KINDS:
            self.dropped += 1  # unsigned: whoever sent it, it changes nothing
        elif kind == "f":
            frames = self._seat_frames([payload.get("f")])
            if not frames:
                return
            frame = frames[0]
            machine = self.node.machine
            if machine is not None:
                fresh = frame not in machine.seen
                self.node.after(machine.receive(frame, self.node.now()))
                if direct and fresh:
                    # Honest peers broadcast every frame; one sent to us alone may have been
                    # sent to only some peers (or another version to the others): pass it on.
                    self.node.queue({"t": "f", "f": frame})
            else:
                if len(self.prestart) < PRESTART_BUFFER:
                    self.prestart.append(frame)
                self._config_missed()
        elif kind == "recs":
            start = payload.get("start")
            if self.node.machine is None and self.handshake.arrival.expects(sender):
                chain = payload.get("frames")
                if isinstance(start, int) and isinstance(chain, list):
                    self.handshake.chain_records(
                        sender, start, [f for f in chain if isinstance(f, bytes)]
                    )
                return
            if sender not in self.node.seat_keys() or not isinstance(start, int):
                self.dropped += 1
                return
            sent = payload.get("frames")
            frames = self._seat_frames(sent)
            # Only a whole run of records can be laid beside ours, record by record.
            whole = isinstance(sent, list) and len(frames) == len(sent)
            self.catch_up.on_recs(sender, frames, start, whole=whole)
