"""Catch-up of a seat's node: seats tell each other how many transcript records they hold
(``have``, signed) and send the ones the other lacks (``recs``, in chunks); the votes a
certificate still waits for are sent again; a node resumed without having heard from any peer
holds its writes until a seat answers its own fresh nonce with a count no larger than ours.

Only seated keys are served, each within a byte budget, so a small ``have`` cannot make us
send a transcript again and again (no amplification); an idle table announces at most once
per ``quiet_every`` seconds per seat. A part of :class:`~dealerless.node.seat.SeatNode`; see
spec/node.md §3 and §6."""

from __future__ import annotations

import collections
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from dealerless.node.notices import Notice, notice
from dealerless.node.options import NodeOptions
from dealerless.node.store import TableStore
from dealerless.protocol.table import TableConfig, TableMachine
from dealerless.protocol.table.events import LocalProtocolError, TableEvent
from dealerless.protocol.table.machine import RECORD_TAG_BYTES
from dealerless.protocol.wire.identity import IdentityKey

RECS_CHUNK = 512 * 1024
SERVE_RATE = 512 << 10  # bytes of records per second per peer ...
SERVE_BURST = 4 << 20  # ... with this much burst (a whole long game fits in one answer)
SAME_ASK_EVERY = 2.0  # the same count from the same peer is served again after this long
ANSWER_EVERY = 1.0  # an ``ask`` from one peer is answered at most this often ...
NONCE_ANSWER_EVERY = 0.25  # ... and one carrying a fresh nonce (a node waiting for proof)
NONCE_BYTES = 12
ARRIVALS_KEPT = 64  # growth moments remembered for the serve grace (older ones are past it)


@dataclass
class Resync:
    """Before resuming: what the peers offered beyond our stored records."""

    deadline: float
    stored: int
    best: list[bytes] = field(default_factory=list)
    answered: set[bytes] = field(default_factory=set)


@dataclass
class PeerBudget:
    """What we last did for one seat: its records budget, its last served count."""

    level: float
    stamp: float
    served: tuple[int, float] = (-1, -1e9)
    answered: float = -1e9
    upto: int = 0  # the chain count up to which we last sent it records
    nonce: bytes = b""  # its last ask's: records for a seat that waits for them echo it

    def take(self, amount: int, now: float) -> bool:
        self.level = min(SERVE_BURST, self.level + (now - self.stamp) * SERVE_RATE)
        self.stamp = now
        if self.level < 0:
            return False
        self.level -= amount  # may go below zero once: a transcript larger than the burst
        return True


class CatchUpNode(Protocol):
    """What catch-up uses of its node: the machine, the clock, the way out to the hub, and the
    node's handling of the events a machine call produced (``after``)."""

    say: Callable[[Notice], None]

    @property
    def machine(self) -> TableMachine | None: ...

    def now(self) -> float: ...

    def queue(
        self, payload: dict[str, Any], to: bytes | None = None, *, ahead: bool = False
    ) -> None: ...

    def queue_signed(self, payload: dict[str, Any], to: bytes | None = None) -> None: ...

    def queue_records(self, payload: dict[str, Any], to: bytes, size: int) -> bool: ...

    def after(self, events: list[TableEvent]) -> None: ...


class CatchUp:
    """The catch-up part of a seat's node: it owns the peers' counts, their budgets, our nonce,
    the moments our chain grew, and the resync before a resume. ``waits_for_seat(key)``: is
    that key a newcomer waiting for its seat (the seat-change part's)? ``coming_back()``: do
    we sit out and asked to be seated again?"""

    def __init__(
        self,
        node: CatchUpNode,
        opt: NodeOptions,
        *,
        waits_for_seat: Callable[[bytes], bool],
        coming_back: Callable[[], bool],
    ) -> None:
        self.node, self.opt = node, opt
        self.waits_for_seat, self.coming_back = waits_for_seat, coming_back
        self.peer_counts: dict[bytes, int] = {}  # each peer's last signed record count
        self.peer_lasts: dict[bytes, bytes] = {}  # and the tag of its last record, if it sent one
        self.peers_voted: set[bytes] = set()  # seats whose last count said their vote waits
        self.budgets: dict[bytes, PeerBudget] = {}
        self.resync: Resync | None = None
        self.nonce = secrets.token_bytes(NONCE_BYTES)
        # (chain count, when), ARRIVALS_KEPT at most
        self.arrivals: collections.deque[tuple[int, float]] = collections.deque(
            maxlen=ARRIVALS_KEPT
        )
        # The pace of our announcements while the machine runs (the ticker's).
        self.quiet = opt.stall  # the announce interval while nothing changes
        self.ask_now = False
        self.last_count = -1
        self.last_progress = 0.0
        self.grew_at = 0.0  # when our transcript last grew
        self.heard_up_to = (0, 0)  # the machine's furthest step heard of a seat's frame ...
        self.heard_at = 0.0  # ... and when it last moved

    # ---------------------------------------------------------------- the resync
    def start_resync(self, wait: float, stored: int) -> None:
        """Before resuming: wait up to ``wait`` for the peers' records beyond ``stored``."""
        self.resync = Resync(wait, stored)

    def resume(
        self,
        config: TableConfig,
        key: IdentityKey,
        store: TableStore,
        records: list[bytes],
        extension: list[bytes],
        now: float,
    ) -> TableMachine:
        """Our machine rebuilt from our stored ``records`` and the ``extension`` the peers
        offered (ours alone if theirs do not replay); the records taken are stored."""
        shares = store.load_secrets()
        # No peer answered (yet): we may be far behind, so write nothing until one does.
        hold = self.resync is not None and not self.resync.answered
        resumed: TableMachine | None = None
        if extension:
            try:
                resumed = TableMachine.resume(
                    config, key, records + extension, secrets=shares, now=now, hold=hold
                )
            except LocalProtocolError as exc:
                self.node.say(notice("peer_records_bad", error=str(exc)))
        if resumed is None:
            resumed = TableMachine.resume(config, key, records, secrets=shares, now=now, hold=hold)
            extension = []
        store.append(extension)
        self.node.say(
            notice(
                "resumed",
                stored=len(records),
                peers=len(extension),
                hand=resumed.hand,
                phase=str(resumed.phase),
                hold=int(bool(hold)),
            )
        )
        return resumed

    def resync_by(self, deadline: float) -> None:
        """A link is up: resume at ``deadline`` at the latest."""
        if self.resync is not None:
            self.resync.deadline = min(self.resync.deadline, deadline)

    def end_resync(self) -> None:
        self.resync = None

    def behind(self, count: int) -> bool:
        """Does a peer say it holds more than ``count`` records?"""
        return any(c > count for c in self.peer_counts.values())

    # ---------------------------------------------------------------- the pace
    def began(self, machine: TableMachine, now: float) -> None:
        """Our machine exists from ``now`` on."""
        self.last_count, self.last_progress = len(machine.records), now
        self.grew_at = now

    def ask_soon(self) -> None:
        """Ask the peers at the next tick (a damaged or misrouted message was refused)."""
        self.ask_now = True

    def pace(self, machine: TableMachine, now: float, linked: bool) -> None:
        """Every tick while the machine runs: note its progress; when nothing changed,
        announce our count (``linked``: a link is up), then less and less often while nothing
        is missing (an idle table is quiet); at once again when a seat is ahead of us."""
        if len(machine.records) != self.last_count:
            self.last_count, self.last_progress = len(machine.records), now
            self.grew_at = now
            self.grew(machine.chain_count, now)
            self.quiet = self.opt.stall
        if machine.heard_up_to != self.heard_up_to:
            self.heard_up_to, self.heard_at = machine.heard_up_to, now
        if linked and (self.ask_now or now - self.last_progress >= self.quiet):
            behind = self.behind(machine.chain_count)
            self.ask_now = False
            self.last_progress = now
            self.announce(ask=behind or self.waiting_for_records())
            self.quiet = self.opt.stall if behind else min(self.quiet * 2, self.opt.quiet_every)

    def moved_at(self) -> float:
        """When the table last moved as we see it: our chain grew, or a seat's signed frame
        named a step further than any before."""
        return max(self.grew_at, self.heard_at)

    def linger_ask(self, machine: TableMachine, now: float) -> None:
        """Lingering at the end: ask the peers for their counts (at most every 0.3 s)."""
        if now - self.last_progress >= 0.3:
            self.last_progress = now
            self.have(machine.chain_count, True)

    # ---------------------------------------------------------------- counts and records
    def holds_ours(self, key: bytes, machine: TableMachine) -> bool:
        """The seat ``key`` last told us it holds exactly our records: our count, and our last
        record (or no tag at all)."""
        n = machine.chain_count
        ours = machine.record_tag(n)
        return self.peer_counts.get(key, -1) == n and self.peer_lasts.get(key, ours) == ours

    def have(
        self, n: int, ask: bool, to: bytes | None = None, echo: bytes = b"", *, end: bool = False
    ) -> None:
        """Tell our count (and last record). ``end``: our segment ended for a seat change, and
        the next host waits for this count (P-51): over Nostr it goes with the table's
        messages, not at catch-up's pace."""
        payload: dict[str, Any] = {"t": "have", "n": n, "ask": ask}
        if end:
            payload["end"] = True
        machine = self.node.machine
        tag = machine.record_tag(n) if machine is not None else None
        if tag is not None:
            payload["last"] = tag  # our last record: a peer whose own differs serves the fork
        if machine is not None and machine.own_vote_waits:
            payload["voted"] = True  # our word that we hold the end proves nothing (P-51)
        if ask and self.waiting_for_records():
            payload["nonce"] = self.nonce
        if echo:
            payload["echo"] = echo
        self.node.queue_signed(payload, to)

    def waiting_for_records(self) -> bool:
        """Can we not go on before the peers' records reach us? Back from a crash (resync, or
        held until a peer answers), or sitting out and coming back: the host seats a returner
        only once it caught up (node.md §7a), and catch-up at its own slow pace over Nostr
        falls ever further behind a table that plays fast. Our asks then carry a nonce, and the
        records that answer it travel at the table's pace."""
        machine = self.node.machine
        if self.resync is not None or (machine is not None and machine.held):
            return True
        return machine is not None and machine.sitting_out and self.coming_back()

    def new_nonce(self) -> None:
        self.nonce = secrets.token_bytes(NONCE_BYTES)

    def announce(self, ask: bool = True) -> None:
        """Tell every seat how many records we hold; resend our votes that wait for a
        certificate, our frame of the open parallel round and our frames of a prepared setup
        that is not complete (a hub may have dropped them; none is in a record a peer could
        fetch yet)."""
        machine = self.node.machine
        assert machine is not None
        self.have(machine.chain_count, ask)
        if machine.seat is None:
            return
        pending = machine.pending_round_frame()
        if pending is not None:
            self.node.queue({"t": "f", "f": pending})
        for frame in machine.pending_prepared_frames():  # the next deck's, while it is open
            self.node.queue({"t": "f", "f": frame}, ahead=machine.frame_ahead(frame))
        for book in (machine.votes.timeout, machine.votes.abort):
            for (_, head), votes in book.items():
                vote = votes.get(machine.seat)
                if head == machine.head and vote is not None:
                    self.node.queue({"t": "f", "f": vote.frame})

    def ask_records(self, to: bytes, n: int) -> None:
        """Newcomer: ask a seat for the table's chain from ``n``. Our nonce says we wait for
        these records (nothing of them is on its way to us), so the seat serves them at once
        rather than after its serve grace."""
        self.node.queue_signed({"t": "have", "n": n, "ask": True, "nonce": self.nonce}, to=to)

    def _budget(self, sender: bytes) -> PeerBudget:
        budget = self.budgets.get(sender)
        if budget is None:  # only seats get here, so this holds at most one per seat
            budget = self.budgets[sender] = PeerBudget(SERVE_BURST, self.node.now())
        return budget

    def on_have(self, sender: bytes, payload: dict[str, Any]) -> None:
        """A seat's signed count (its author was checked to be a seat before the signature)."""
        n = payload.get("n")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            return
        nonce = payload.get("nonce")
        nonce = nonce if isinstance(nonce, bytes) and len(nonce) == NONCE_BYTES else b""
        fresh = payload.get("echo") == self.nonce  # an answer to our own latest question
        now = self.node.now()
        budget = self._budget(sender)
        budget.nonce = nonce
        if self.waits_for_seat(sender):
            # A newcomer waiting for its seat fetches the chain so far (join_handshake.py):
            # served, never counted among the seats.
            machine = self.node.machine
            if machine is not None and machine.chain_count > n >= machine.chain_base:
                self._serve(sender, budget, n, now, waiting=True)
            return
        self.peer_counts[sender] = n
        last = payload.get("last")
        if isinstance(last, bytes) and len(last) == RECORD_TAG_BYTES:
            self.peer_lasts[sender] = last
        else:
            self.peer_lasts.pop(sender, None)
        if payload.get("voted") is True:
            self.peers_voted.add(sender)
        else:
            self.peers_voted.discard(sender)
        every = NONCE_ANSWER_EVERY if nonce else ANSWER_EVERY
        answer = bool(payload.get("ask")) and now - budget.answered >= every
        if self.node.machine is None:
            if self.resync is not None:
                stored = self.resync.stored
                if n <= stored and fresh:
                    self.resync.answered.add(sender)  # nothing more to get from this seat
                if answer:
                    budget.answered = now
                    self.have(stored, False, to=sender, echo=nonce)
            return
        # Counts are of the whole table's chain (a newcomer's records start later: chain_base).
        count = self.node.machine.chain_count
        if self.node.machine.held and n <= count and fresh:
            # A seat answered our fresh nonce and is not ahead of us (its records come before
            # its count on the link).
            self._release()
        if self._forked(n, payload.get("last")):
            # Its record there is not ours: our transcripts fork before its count. Serve from
            # where a roll-back can reach, so that it meets what decided there (a certificate
            # against its element) and adopts it (protocol.md §5); no serve grace (nothing of
            # this is on its way to it).
            machine = self.node.machine
            start = max(machine.chain_base, min(n - 1, machine.rollback_floor_count))
            self._serve(sender, budget, start, now, waiting=True)
        elif count > n >= self.node.machine.chain_base:
            self._serve(sender, budget, n, now, waiting=bool(nonce))
        # Answer an ask (at most once a second per seat) and tell a seat that is ahead where we
        # are, so it sends what we lack. An equal count during play needs no answer (over Nostr
        # each is one more event beside the frames); a seat that waits for proof (its nonce) or
        # has finished (it waits to hear that the others hold what it holds) gets one.
        needed = bool(nonce) or n != count or self.node.machine.over
        ahead = n > count and now - budget.answered >= ANSWER_EVERY
        if (answer and needed) or ahead:
            budget.answered = now
            if nonce:
                # A seat that waits for proof may be back from a crash: the frames of the next
                # hand's prepared deck (P-53) reached its old process only, and no record holds
                # them before that hand starts. Before our count, as records come before it: one
                # of its own it no longer holds tells it that its share of that hand is lost.
                for frame in self.node.machine.prepared_frames():
                    self.node.queue({"t": "f", "f": frame}, to=sender)
            self.have(count, False, to=sender, echo=nonce)

    def _forked(self, n: int, last: object) -> bool:
        """A seat's count ``n`` ends with a record whose tag is ``last`` and we hold another
        record there."""
        machine = self.node.machine
        if machine is None or not isinstance(last, bytes) or len(last) != RECORD_TAG_BYTES:
            return False
        ours = machine.record_tag(n)
        return ours is not None and ours != last

    def grew(self, count: int, now: float) -> None:
        """Our chain reached ``count`` records at ``now`` (the ticker's resolution is enough)."""
        self.arrivals.append((count, now))  # a deque of ARRIVALS_KEPT at most

    def _held_since(self, n: int) -> float:
        """When our chain first held more than ``n`` records (long ago if not remembered)."""
        for count, at in self.arrivals:
            if count > n:
                return at
        return -1e9

    def _serve(
        self, sender: bytes, budget: PeerBudget, n: int, now: float, waiting: bool = False
    ) -> None:
        assert self.node.machine is not None
        if budget.served[0] == n and now - budget.served[1] < SAME_ASK_EVERY:
            return  # sent just now; it is on its way
        if not waiting and now - self._held_since(n) < self.opt.serve_grace:
            # We have held them so briefly that they may still be on their way to that seat
            # (its count crossed them on the wire, or waited in a relay queue): sending them
            # now would send them twice. A real loss is served when it asks again. A seat that
            # waits for them (its nonce: back from a crash, or a newcomer fetching the chain
            # from the start) has nothing on its way: it is served at once.
            return
        records = self.node.machine.records[n - self.node.machine.chain_base :]
        if not budget.take(sum(len(f) for f in records), now):
            return  # over its budget: it asks again later
        budget.served = (n, now)
        self._send_records(sender, budget, n, records)

    def sent_upto(self, to: bytes, count: int) -> None:
        """What we sent ``to`` beyond ``count`` is void (our transcript was cut there): the
        next chain tail we send it starts there."""
        budget = self._budget(to)
        budget.upto = min(budget.upto, count)

    def send_chain_tail(self, to: bytes, end: int) -> None:
        """With the offer of a seat to a newcomer: the chain records up to ``end`` that it lacks
        as far as we know (those since we last sent it any, while it waited), so it needs no
        round trip before it can check them (join_handshake.py)."""
        machine = self.node.machine
        assert machine is not None
        budget = self._budget(to)
        start = max(budget.upto, machine.chain_base)
        records = machine.records[start - machine.chain_base : end - machine.chain_base]
        if records and budget.take(sum(len(f) for f in records), self.node.now()):
            self._send_records(to, budget, start, records)

    def _send_records(
        self, to: bytes, budget: PeerBudget, start: int, records: list[bytes]
    ) -> None:
        # Records for a seat that waits for them (its nonce: a newcomer fetching the chain, a
        # seat back from a crash) echo that nonce: over Nostr they go with the table's own
        # messages, not at catch-up's slow pace (node/nostr/link.py).
        extra: dict[str, Any] = {"echo": budget.nonce} if budget.nonce else {}
        chunk: list[bytes] = []
        size = 0
        for frame in records:
            if chunk and size + len(frame) > RECS_CHUNK:
                payload = {"t": "recs", "start": start, "frames": chunk, **extra}
                if not self.node.queue_records(payload, to, size):
                    return
                start, chunk, size = start + len(chunk), [], 0
            chunk.append(frame)
            size += len(frame)
        if self.node.queue_records(
            {"t": "recs", "start": start, "frames": chunk, **extra}, to, size
        ):
            budget.upto = start + len(chunk)

    def on_recs(
        self, sender: bytes, frames: list[bytes], start: int, *, whole: bool = True
    ) -> None:
        """Records from a seat from the chain's record ``start`` on (frames by non-seat
        authors were already dropped; ``whole``: none was)."""
        if self.node.machine is None:
            sync = self.resync
            if sync is not None and start == sync.stored:
                sync.answered.add(sender)
                if len(frames) > len(sync.best):
                    sync.best = frames
            return
        for frame in frames:
            self.node.after(self.node.machine.receive(frame, self.node.now()))
        if whole:
            self._serve_our_fork(sender, frames, start)

    def _serve_our_fork(self, sender: bytes, frames: list[bytes], start: int) -> None:
        """Records that fork from ours and that we did not take (we hold what decided there,
        say a certificate against the element they carry): the seat that sent them is ahead of
        us on its branch and cannot see the fork from our count alone. Send it ours from where
        a roll-back can reach, so that it meets what decided there and adopts it
        (protocol.md §5, node.md §6)."""
        machine = self.node.machine
        if machine is None:
            return
        base = machine.chain_base
        for offset, frame in enumerate(frames):
            index = start + offset - base
            if index < 0:
                continue
            if index >= len(machine.records):
                return  # it holds more than we do on our branch: nothing of ours to show
            if machine.records[index] != frame:
                begin = max(base, min(start + offset, machine.rollback_floor_count))
                self._serve(sender, self._budget(sender), begin, self.node.now(), waiting=True)
                return

    def _release(self) -> None:
        machine = self.node.machine
        assert machine is not None
        self.node.say(notice("released"))
        self.node.after(machine.release(self.node.now()))
