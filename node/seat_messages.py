"""How a seat's node takes what its hub delivers: hub notices (admitted, peers up and down,
errors), and seat messages, where the signed ones are checked cheaply first (may this key send
this kind at all?) and only then by signature, and frames by authors that are not seats are
dropped before any curve or signature work. A mixin of :class:`~dealerless.node.seat.SeatNode`;
see spec/node.md §2 and §3."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dealerless.node.arrival import Arrival
from dealerless.node.identity import PeerId
from dealerless.node.links import Link, LinkError
from dealerless.node.options import NodeOptions
from dealerless.node.store import TableStore
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


class SeatMessages:
    # State and helpers of the seat node.
    store: TableStore
    key: bytes
    host_key: bytes
    is_host: bool
    hello_targets: set[bytes]
    hosting: Callable[[], bool]
    away_keys: Callable[[], frozenset[bytes]]  # of the seat-change mixin
    returner_back: Callable[[bytes, dict[str, Any]], None]
    config: TableConfig | None
    machine: TableMachine | None
    admitted: bool
    peers_up: set[bytes]
    lobby: list[tuple[bytes, str]]
    arrival: Arrival
    waiting: dict[bytes, tuple[str, int]]  # of the seat-change mixin: newcomers waiting
    prestart: list[bytes]
    dropped: int
    byes: dict[bytes, int]  # seat key -> the hand in which it said it quits
    last_hello: float
    opt: NodeOptions
    link: Link | None
    say: Callable[[str], None]

    def now(self) -> float:
        raise NotImplementedError

    def name_of(self, seat: int | None) -> str:
        raise NotImplementedError

    def seat_of_key(self, key: bytes) -> int | None:
        raise NotImplementedError

    def seat_keys(self) -> frozenset[bytes]:
        raise NotImplementedError

    def queue(self, payload: dict[str, Any], to: bytes | None = None) -> None:
        raise NotImplementedError

    def _after(self, events: list[TableEvent]) -> None:
        raise NotImplementedError

    def _announce(self, ask: bool = True) -> None:
        raise NotImplementedError

    def _admit(self) -> None:
        raise NotImplementedError

    def _send_lobby(self, to: bytes | None = None) -> None:
        raise NotImplementedError

    def _lobby_changed(self) -> None:
        raise NotImplementedError

    def proof_ok(self, sender: bytes, payload: dict[str, Any]) -> bool:
        raise NotImplementedError

    def refuse(self, sender: bytes, reason: str) -> None:
        raise NotImplementedError

    def _hello(self) -> None:
        raise NotImplementedError

    def _on_hello(self, sender: bytes, payload: dict[str, Any]) -> None:
        raise NotImplementedError

    def _on_lobby(self, payload: dict[str, Any], sender: bytes) -> None:
        raise NotImplementedError

    def _on_refused(self, payload: dict[str, Any]) -> None:
        raise NotImplementedError

    def _on_config(self, payload: dict[str, Any], sender: bytes) -> None:
        raise NotImplementedError

    def _on_closed(self, payload: dict[str, Any]) -> None:
        raise NotImplementedError

    def _on_have(self, sender: bytes, payload: dict[str, Any]) -> None:
        raise NotImplementedError

    def _on_recs(self, sender: bytes, frames: list[bytes], start: int) -> None:
        raise NotImplementedError

    def chain_records(self, sender: bytes, start: int, frames: list[bytes]) -> None:
        raise NotImplementedError

    def _on_hub(self, message: dict[str, Any]) -> None:
        kind = message["t"]
        if kind == "msg":
            sender = message.get("from")
            data = message.get("data")
            if not isinstance(sender, bytes) or not isinstance(data, bytes):
                return
            try:
                payload = decode(data)
            except WireError as exc:
                self.say(f"refused a message from {self._who(sender)}: {exc}")
                return
            self._on_peer(sender, payload, direct=bool(message.get("direct")))
        elif kind == "admitted":
            self.admitted = True
            members = message.get("members")
            if isinstance(members, list):
                self.peers_up = {k for k in members if isinstance(k, bytes) and k != self.key}
            if self.machine is not None:
                self._announce()
        elif kind == "peer":
            key, up = message.get("key"), bool(message.get("up"))
            if not isinstance(key, bytes):
                return
            if up and (len(self.peers_up) < 64 or key in self.seat_keys()):
                self.peers_up.add(key)  # bounded: a hub can name any number of keys
            else:
                self.peers_up.discard(key)
            machine = self.machine
            if not up and machine is not None and machine.over and machine.seat_change is None:
                # The game is over: leaving now is the normal end, not a lost connection.
                self.say(f"{self._who(key)} left after the end of the game")
            elif not up and machine is not None and not machine.over and key in self.seat_keys():
                # what happens next, said with it: the table does not wait for ever
                self.say(
                    f"{self._who(key)} disconnected; the table waits up to "
                    f"{machine.timeout:.0f} s at their step, then times them out"
                )
            else:
                self.say(f"{self._who(key)} {'connected' if up else 'disconnected'}")
            if not up and self.is_host and self.config is None:
                self.lobby = [(k, n) for k, n in self.lobby if k != key]
                self._admit()
                self._send_lobby()
                self._lobby_changed()
        elif kind == "error":
            raise LinkError(f"the hub refused: {message.get('reason')}")

    def _config_missed(self) -> None:
        """Joiner: the table runs (a seat announced records or sent a frame) and we have no
        configuration: the host's ``config`` was lost on the way. Ask again now (at most once
        per ``hello_every``) instead of at the admitted joiner's quiet pace, or the seats would
        time us out at the configuration step."""
        if self.is_host or self.config is not None or self.link is None or self.arrival:
            return
        if self.now() - self.last_hello >= self.opt.hello_every:
            self._hello()

    def _who(self, key: bytes) -> str:
        seat = self.seat_of_key(key)
        if seat is not None:
            return self.name_of(seat)
        for k, name in self.lobby:
            if k == key:
                return repr(name)
        try:
            return PeerId(key).fingerprint[:9]
        except ValueError:
            return "an invalid key"

    def _may_send(self, sender: bytes, kind: str, payload: dict[str, Any]) -> bool:
        """May ``sender`` (as the hub says) author a signed message of ``kind`` at all? Cheap
        checks only: the signature is verified after this, and only if it passes."""
        if kind == "hello":
            return self.hosting() and sender != self.key and self.proof_ok(sender, payload)
        # A newcomer also hears the seat that hosts the running segment (seat changes), if it
        # said hello to that key itself.
        answering = sender == self.host_key or sender in self.hello_targets
        if kind in ("lobby", "refused"):
            return not self.is_host and answering and self.config is None
        if kind == "config":
            return not self.is_host and answering
        if kind == "back":
            return self.hosting() and sender in self.away_keys()
        if kind == "bye":
            machine = self.machine
            return sender != self.key and machine is not None and sender in self.seat_keys()
        if kind == "closed":
            return not self.is_host and sender == self.host_key and self.config is None
        # have: the seats, the seats sitting out that follow the table, and the newcomers
        # waiting to sit down (they fetch the chain so far: catch_up.py serves them records)
        return sender != self.key and (
            sender in self.seat_keys() or sender in self.away_keys() or sender in self.waiting
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
            if kind == "hello" and self.hosting() and sender != self.key:
                self.refuse(sender, "no valid proof of the invite's token")
            elif kind == "have":
                self._config_missed()
            return
        if not verify_sealed(sender, self.store.table_id, body, signature):
            self.dropped += 1
            self.say(f"refused a {kind!r} message with a bad signature ({self._who(sender)})")
            return
        if kind == "hello":
            self._on_hello(sender, payload)
        elif kind == "lobby":
            self._on_lobby(payload, sender)
        elif kind == "refused":
            self._on_refused(payload)
        elif kind == "config":
            self._on_config(payload, sender)
        elif kind == "back":
            self.returner_back(sender, payload)
        elif kind == "closed":
            self._on_closed(payload)
        elif kind == "bye":
            self._on_bye(sender, payload)
        else:
            self._on_have(sender, payload)

    def _on_bye(self, sender: bytes, payload: dict[str, Any]) -> None:
        """A seat's signed word that its player quits (its node stops soon after): say so now.
        What follows is the table's usual course: at that seat's next step the others time it
        out (in a hand-by-hand game it then sits out, its chips kept; spec/node.md §7a)."""
        machine = self.machine
        hand = payload.get("hand")
        if machine is None or machine.over or self.byes.get(sender) == hand:
            return
        # Once per seat and hand (a copy through another relay says nothing); bounded: only
        # seats of the running table get here.
        self.byes[sender] = hand if isinstance(hand, int) else -1
        who = self.name_of(self.seat_of_key(sender))
        self.say(f"{who} quit the table; if they do not come back they are timed out")

    def _seat_frames(self, frames: object) -> list[bytes]:
        """The frames authored by seats; others are dropped before any curve or signature work
        (before the configuration exists, the seats are not known and nothing is dropped)."""
        if not isinstance(frames, list):
            return []
        seats = self.seat_keys()
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
            if self.machine is not None:
                fresh = frame not in self.machine.seen
                self._after(self.machine.receive(frame, self.now()))
                if direct and fresh:
                    # Honest peers broadcast every frame; one sent to us alone may have been
                    # sent to only some peers (or another version to the others): pass it on.
                    self.queue({"t": "f", "f": frame})
            else:
                if len(self.prestart) < PRESTART_BUFFER:
                    self.prestart.append(frame)
                self._config_missed()
        elif kind == "recs":
            start = payload.get("start")
            if self.machine is None and self.arrival.expects(sender):
                chain = payload.get("frames")
                if isinstance(start, int) and isinstance(chain, list):
                    self.chain_records(sender, start, [f for f in chain if isinstance(f, bytes)])
                return
            if sender not in self.seat_keys() or not isinstance(start, int):
                self.dropped += 1
                return
            self._on_recs(sender, self._seat_frames(payload.get("frames")), start)
