"""Side messages of the table: out-of-turn requests, timeout votes and abort votes.

A certificate is the set of votes of every seat in the hand but the accused one, all for the same
head. It becomes one chain element: its vote frames are appended to the transcript in seat order
and the new head is SHA-256 over a label and their hashes, so every peer (and an auditor) derives
the same head from the same votes, whoever collected them first.

Two rules keep the votes honest (spec/protocol.md §5, §6):

* **An abort needs evidence that this peer verified itself.** A vote carries signed frames of the
  accused; every peer runs them through its own checks. The certificate is carried out only
  where those checks proved the violation (``proven``), so no number of votes convicts a seat
  whose frames are valid: the accused itself, an auditor and every honest peer refuse it.
* **Silence is not cheating.** A timeout vote counts only against a seat that had to write at
  that head (one, or each seat of a parallel round whose frame is missing); the accused takes
  a certificate against itself only once its own deadline passed and only if it did not write
  there in time; what silence costs is the bounded settlement of
  the rules, never a cheat's.
"""

from __future__ import annotations

import hashlib
from typing import Protocol

from dealerless.protocol.messages import MessageError, SignedMessage, decode_message
from dealerless.protocol.table.events import (
    ChatReceived,
    TableEvent,
    TimeoutVoted,
    Violation,
)
from dealerless.protocol.table.hand_state import HandState
from dealerless.protocol.table.kinds import SIDE_KINDS, TABLE_REGISTRY
from dealerless.protocol.table.mode import Mode
from dealerless.protocol.table.steps import Phase

MAX_UNKNOWN_HEAD_VOTES = 64  # votes kept for heads this peer has not reached (yet)
MAX_PROVEN = 256  # violations this peer verified, kept for certificates that may follow
MAX_EVIDENCE = 2  # frames an abort vote carries
MAX_EVIDENCE_BYTES = 65536
# Step timeouts a seat waits before it votes where its vote alone is the certificate (a hand of
# two seats): the other seat's element gets that much longer to arrive.
LONE_VOTER_WAIT = 2
TIMEOUT_LABEL = b"dealerless/certificate/timeout"
ABORT_LABEL = b"dealerless/certificate/abort"

VoteTable = dict[tuple[int, bytes], dict[int, SignedMessage]]


def certificate_digest(label: bytes, frames: list[bytes]) -> bytes:
    h = hashlib.sha256(label)
    for frame in frames:
        h.update(hashlib.sha256(frame).digest())
    return h.digest()


class VotingTable(Protocol):
    """What the vote book reads and calls on the table machine (it never imports it)."""

    seat: int | None
    players: int

    @property
    def this_hand(self) -> HandState: ...
    @property
    def participants(self) -> tuple[int, ...]: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def head(self) -> bytes: ...
    @property
    def history(self) -> set[bytes]: ...

    timeout: float
    now: float

    @property
    def step_since(self) -> float: ...

    mode: Mode
    events: list[TableEvent]
    _outbox: list[bytes]
    seen: set[bytes]

    @property
    def left_table(self) -> bool: ...

    @property
    def over(self) -> bool: ...

    def arbiter(self) -> int | None: ...

    def writers(self) -> list[int]: ...

    def writers_at(self, head: bytes) -> frozenset[int]: ...

    def moved_in_time(self, head: bytes, seat: int) -> bool: ...

    def own_deadline_passed(self, head: bytes | None = None, *, steps: float = 1) -> bool: ...

    def can_rollback_to(self, anchor: bytes, *, across_hand: bool = False) -> bool: ...

    def rollback_to(self, anchor: bytes) -> None: ...

    def apply_certificate(
        self, frames: list[bytes], digest: bytes, effect: str, culprit: int, reason: str
    ) -> None: ...

    def _drive(self) -> None: ...

    def _receive(self, frame: bytes, *, again: bool = False) -> None: ...

    def _release_future(self) -> None: ...

    def _sign(
        self, kind: str, body: dict[str, object], *, at: bytes | None = None
    ) -> SignedMessage: ...

    def _report(self, event: Violation) -> None: ...

    def _violation(
        self,
        culprit: int | None,
        reason: str,
        evidence: tuple[bytes, ...],
        vote: bool = True,
        anchor: bytes | None = None,
    ) -> None: ...


class VoteBook:
    def __init__(self, machine: VotingTable) -> None:
        self.m = machine
        # (accused seat, head) -> voter seat -> vote
        self.timeout: VoteTable = {}
        self.abort: VoteTable = {}
        self.applied: set[tuple[int, bytes]] = set()  # abort certificates already carried out
        self.timed_out: set[tuple[int, bytes]] = set()  # timeout certificates carried out
        self.cast: set[tuple[int, bytes]] = set()  # (accused, head) where this machine voted
        # (culprit, anchor) -> reason: violations this peer's own checks proved
        self.proven: dict[tuple[int, bytes], str] = {}

    def new_hand(self) -> None:
        """Forget votes and proofs for heads the chain has left behind: none of them can form a
        certificate any more (a certificate applies within the running hand)."""
        m = self.m
        head = m.head
        for key in [k for k in self.abort if k[1] in m.history and k[1] != head]:
            del self.abort[key]
        # A timeout certificate of the hand before may still complete: it wins over our
        # element there (the others timed it out while it was in flight), by a roll-back.
        for key in [
            k
            for k in self.timeout
            if k[1] in m.history and not m.can_rollback_to(k[1], across_hand=True)
        ]:
            del self.timeout[key]
        self.proven = {k: v for k, v in self.proven.items() if k[1] == head}

    # ---------------------------------------------------------------- incoming
    def side_message(self, message: SignedMessage) -> None:
        m = self.m
        seat = message.seat
        assert seat is not None
        if message.kind == "request":
            if seat != m.seat:
                m.this_hand.requests.append(message)
                m._drive()
        elif message.kind == "chat":
            if seat != m.seat:
                m.events.append(ChatReceived(seat, str(message.body["text"])))
            return
        elif message.kind == "timeout-vote":
            silent = message.body["silent"]
            if silent == seat or silent >= m.players or message.body["head"] != message.prev:
                m._report(Violation(seat, "malformed timeout vote", (message.frame,)))
                return
            if self._room_for(message.prev, self.timeout):
                self.timeout.setdefault((silent, message.prev), {}).setdefault(seat, message)
        elif message.kind == "abort-vote":
            self._abort_vote(message, seat)
        self.check_certificates()

    def _abort_vote(self, message: SignedMessage, seat: int) -> None:
        m = self.m
        culprit = message.body["culprit"]
        if culprit == seat or culprit >= m.players or message.body["anchor"] != message.prev:
            m._report(Violation(seat, "malformed abort vote", (message.frame,)))
            return
        evidence = list(message.body.get("evidence", []))
        if not evidence:
            # A vote with nothing to check convicts nobody; it is the voter's signed false claim.
            m._report(Violation(seat, "abort vote without evidence", (message.frame,)))
            return
        key = (culprit, message.prev)
        if key not in self.applied and self._room_for(message.prev, self.abort):
            self.abort.setdefault(key, {}).setdefault(seat, message)
        for frame in evidence[:MAX_EVIDENCE]:
            self._examine_evidence(frame, culprit)

    def undo_carried_out(self, message: SignedMessage) -> None:
        """A roll-back cut the certificate this vote was part of: it may be carried out again
        when the chain comes back to its head (a prepared setup's heads come again, P-53)."""
        if message.kind == "timeout-vote":
            self.timed_out.discard((message.body["silent"], message.prev))
        elif message.kind == "abort-vote":
            self.applied.discard((message.body["culprit"], message.prev))

    def _room_for(self, head: bytes, book: VoteTable) -> bool:
        """Votes for heads we know are always kept; for unknown heads only a bounded number."""
        if head in self.m.history:
            return True
        unknown = sum(1 for _, h in book if h not in self.m.history)
        return unknown < MAX_UNKNOWN_HEAD_VOTES

    def _examine_evidence(self, frame: bytes, culprit: int) -> None:
        """Run a chain frame of the accused through our own checks: what they refuse (or an
        equivocation they find) is proven for us; a valid frame is simply taken, as any copy
        of it would be."""
        try:
            message = decode_message(frame, registry=TABLE_REGISTRY)
        except MessageError as exc:
            if exc.signed_by is not None:
                self.m._receive(frame)  # a signed frame that breaks its schema is evidence too
            return
        if message.kind in SIDE_KINDS:
            return  # only chain frames are evidence; side messages prove nothing
        self.m._receive(frame)

    def equivocation(self, culprit: int, first: bytes, second: bytes) -> None:
        """Two different chain frames signed by one seat at one head: proof by themselves."""
        anchor = decode_message(first, registry=TABLE_REGISTRY).prev
        reason = "equivocation: two different signed messages for one step"
        self.m._violation(culprit, reason, (first, second), anchor=anchor)

    def note_proven(self, culprit: int, anchor: bytes, reason: str) -> None:
        """Our own checks proved a violation of ``culprit`` at ``anchor``."""
        if (culprit, anchor) not in self.proven and len(self.proven) >= MAX_PROVEN:
            self.proven.pop(next(iter(self.proven)))
        self.proven.setdefault((culprit, anchor), reason)

    # ---------------------------------------------------------------- our votes
    def _participant(self) -> bool:
        return self.m.seat is not None and self.m.seat in self.m.participants

    def vote_abort(
        self,
        culprit: int,
        reason: str,
        evidence: tuple[bytes, ...],
        anchor: bytes | None = None,
    ) -> None:
        """Our checks refused a signed frame of ``culprit`` (``evidence``): note it as proven and,
        as a seat in the hand, sign an abort vote carrying that evidence."""
        m = self.m
        anchor = m.head if anchor is None else anchor
        self.note_proven(culprit, anchor, reason)
        if not self._participant() or culprit == m.seat or m.over or m.mode.replaying:
            return
        if not m.can_rollback_to(anchor):
            return
        assert m.seat is not None
        key = (culprit, anchor)
        if m.seat in self.abort.get(key, {}) or key in self.applied:
            return
        kept = [e for e in evidence if len(e) <= MAX_EVIDENCE_BYTES][:MAX_EVIDENCE]
        if not kept:
            return  # nothing another peer could check: a vote would convict on our word
        body = {"culprit": culprit, "anchor": anchor, "reason": reason.encode()[:200]}
        body["evidence"] = kept
        vote = m._sign("abort-vote", body, at=anchor)
        m._outbox.append(vote.frame)
        m.seen.add(vote.frame)
        self.abort.setdefault(key, {})[m.seat] = vote
        self.check_certificates()

    def check_timeouts(self) -> None:
        """Vote a seat silent: only a seat that must write at our head and whose element there
        has not reached us (in a parallel round, each seat whose frame is missing), only once
        the deadline passed on our own clock, and only if none of our checks caught it there
        already."""
        m = self.m
        self.check_certificates()
        if not self._participant() or m.over or m.mode.replaying or m.mode.held:
            return
        waited = m.now - m.step_since
        if waited < m.timeout:
            return
        assert m.seat is not None
        head = m.head
        for silent in m.writers():
            if m.head != head or m.over:
                return  # a certificate moved the table on
            key = (silent, head)
            if silent == m.seat or m.seat in self.timeout.get(key, {}) or key in self.proven:
                continue
            if self._voters(silent) == {m.seat} and waited < LONE_VOTER_WAIT * m.timeout:
                # Our vote alone would be the certificate, and the accused refuses it if it
                # wrote in time (one opponent's word): give its element longer to arrive, so
                # that a late link does not part two honest transcripts (protocol.md P-26).
                continue
            self.cast_timeout(silent)
            self.check_certificates()

    def cast_timeout(self, silent: int) -> None:
        """Sign our vote that ``silent`` did not write at our head, keep it and send it (the
        caller checked that the vote is due)."""
        m = self.m
        assert m.seat is not None
        vote = m._sign("timeout-vote", {"silent": silent, "head": m.head})
        m._outbox.append(vote.frame)
        m.seen.add(vote.frame)
        self.timeout.setdefault((silent, m.head), {})[m.seat] = vote
        self.cast.add((silent, m.head))
        m.events.append(TimeoutVoted(silent))

    def pending_own_votes(self) -> list[SignedMessage]:
        """Our votes that wait for the rest of their certificate (a node resends them)."""
        me = self.m.seat
        return [
            votes[me]
            for book in (self.timeout, self.abort)
            for votes in book.values()
            if me in votes
        ]

    # ---------------------------------------------------------------- certificates
    def check_certificates(self) -> None:
        m = self.m
        while not m.over or self._end_may_move():
            if not self._complete_one():
                return
            # Elements built on the certificate may have arrived before its last vote.
            m._release_future()

    def replay_certificate(self, frames: list[bytes]) -> bool:
        """A roll-back replays an element of our own records: if it is a certificate (its
        records are votes), carry it out again as it stands and return True. Its votes were
        checked when it was taken; the votes still waiting in the book are not replayed. Its
        head is derived from the votes again (in a prepared setup the join took its place in
        the hand's heads, P-54)."""
        try:
            votes = [decode_message(f, registry=TABLE_REGISTRY) for f in frames]
        except MessageError:
            return False
        if not votes or any(v.kind not in ("timeout-vote", "abort-vote") for v in votes):
            return False
        first, m = votes[0], self.m
        if first.kind == "timeout-vote":
            silent = int(first.body["silent"])
            key = (silent, first.prev)
            self.timed_out.add(key)
            self.timeout.pop(key, None)
            effect, reason = "timeout", f"seat {silent} was silent past the deadline"
            label = TIMEOUT_LABEL
        else:
            silent = int(first.body["culprit"])
            key = (silent, first.prev)
            self.applied.add(key)
            self.abort.pop(key, None)
            effect = "abort"
            reason = bytes(first.body["reason"]).decode(errors="replace")
            label = ABORT_LABEL
        m.apply_certificate(frames, certificate_digest(label, frames), effect, silent, reason)
        return True

    def is_pending(self, frame: bytes) -> bool:
        """A vote that is waiting for the rest of its certificate."""
        return any(
            frame == vote.frame
            for book in (self.timeout, self.abort)
            for votes in book.values()
            for vote in votes.values()
        )

    def certificate_waits(self) -> bool:
        """A complete timeout certificate at a head of this hand waits only for our own
        deadline there (a node that would leave a finished table stays until it passed)."""
        m = self.m
        return m.seat is not None and any(
            self._complete_here(key, votes) and not m.own_deadline_passed(key[1])
            for key, votes in self.timeout.items()
        )

    def votes_wait_in_last_hand(self) -> bool:
        """Votes against a seat at a head of this hand (the last one: the segment is over)
        wait for the rest of their certificate, or a complete certificate for our deadline:
        the end may still move (P-31). Not counted: a certificate that still lacks the vote of
        a seat timed out in this hand (it went silent: the table does not wait for it)."""
        m = self.m
        silent_here = {seat for seat, at in self.timed_out if m.can_rollback_to(at)}
        return any(
            self._open(key, across_hand=False)
            and not (self._voters(key[0]) - set(votes)) & silent_here
            for key, votes in self.timeout.items()
        )

    def own_vote_waits(self) -> bool:
        """Our own timeout vote at a head of this hand waits for the rest of its certificate:
        we may still roll back to it, so our word that we hold the hand's end is no proof
        that the certificate cannot complete (P-51)."""
        seat = self.m.seat
        return any(
            seat in votes and self._open(key, across_hand=False)
            for key, votes in self.timeout.items()
        )

    def _end_may_move(self) -> bool:
        """The game is over here, but a certificate at a head of its last hand (the last result
        of a seat that reached the others after their deadline) may still complete: it wins
        over the late element as it would in the hand, so every seat ends on one transcript
        (protocol.md §5). The same at a seat change, until the next segment begins here: this
        book is the ended segment's, and a switch to the next one replaces it."""
        return not self.m.left_table

    def _complete_one(self) -> bool:
        m = self.m
        if m.mode.rolling_back:
            return False  # a replay of the hand up to a fork point applies no certificate
        for key, votes in self.abort.items():
            culprit, anchor = key
            if key not in self.proven or not m.can_rollback_to(anchor):
                continue
            if not self._complete(votes, culprit):
                continue
            del self.abort[key]
            self.applied.add(key)
            m.rollback_to(anchor)
            frames = [votes[s].frame for s in sorted(votes)]
            # The reason goes into the signed result: take it from the certificate itself, so
            # every peer and the auditor settle with the same text.
            reason = bytes(votes[min(votes)].body["reason"]).decode(errors="replace")
            m.apply_certificate(
                frames, certificate_digest(ABORT_LABEL, frames), "abort", culprit, reason
            )
            return True
        for key, votes in list(self.timeout.items()):
            if self._timeout_applies(key, votes):
                silent, anchor = key
                del self.timeout[key]
                m.rollback_to(anchor)
                self._carry_out_timeout(silent, anchor, votes)
                return True
        return False

    def _timeout_applies(self, key: tuple[int, bytes], votes: dict[int, SignedMessage]) -> bool:
        """A complete certificate against the seat that had to write at a head of this hand.

        Every seat waits for its own deadline at that head. A third seat then takes it unless
        the element that followed reached it in time (it would not have voted). The accused
        takes it when two or more others signed it (their view decides, even if its element
        was lost on its way: silence costs only the bounded settlement, and the table stays on
        one chain); at a 2-seat hand, where the certificate is one opponent's word, it refuses
        it when it wrote there in time. A voter that took the element after its deadline takes
        the certificate instead (it wins over the late element, by rollback). An auditor
        follows the transcript."""
        m = self.m
        silent, anchor = key
        if not self._complete_here(key, votes):
            return False
        if m.seat is not None:
            if not m.own_deadline_passed(anchor):
                return False  # not yet silent on our clock; checked again on every tick
            if silent == m.seat and len(m.participants) > 2:
                # Every other seat (two or more) signed that we were silent here: what reached
                # them decides, even if our element was lost on its way (a dropping hub). We
                # take it, at the bounded cost of silence, and stay on the table's one chain.
                return True
            if key in self.cast:
                # We voted (this machine signed it): our deadline there passed without the
                # element. A roll-back into the hand before may have brought us back to this
                # head (a prepared setup's heads come again, P-53) and the element with it,
                # timed anew; our word stands. A vote with our key we did not cast is no word
                # of ours.
                return True
            if m.moved_in_time(anchor, silent):
                return False  # the element there refutes it: the seat was not silent for us
        return True

    def _complete_here(self, key: tuple[int, bytes], votes: dict[int, SignedMessage]) -> bool:
        """A complete, not yet applied certificate against a seat that had to write at a head
        of this hand (whether we take it depends on our clock and what reached us)."""
        silent, anchor = key
        if not self._open(key, across_hand=True):
            return False
        if any(taken < silent for taken, at in self.timed_out if at == anchor):
            # Two seats of a parallel round timed out at one head, each by the other's vote
            # (each missed the other's frame): the certificate against the lower seat wins,
            # wherever one took the other first, so that every seat ends on one (P-49).
            return False
        return self._complete(votes, silent)

    def _open(self, key: tuple[int, bytes], *, across_hand: bool) -> bool:
        """Votes against a seat that had to write at a head we can still roll back to (of this
        hand, or ``across_hand`` of the hands a roll-back reaches), not carried out there."""
        silent, anchor = key
        m = self.m
        return (
            key not in self.timed_out
            and m.can_rollback_to(anchor, across_hand=across_hand)
            and silent in m.writers_at(anchor)
        )

    def _carry_out_timeout(
        self, silent: int, anchor: bytes, votes: dict[int, SignedMessage]
    ) -> None:
        """Append a complete timeout certificate at the head (``anchor``) and apply it."""
        self.timed_out.add((silent, anchor))
        frames = [votes[s].frame for s in sorted(votes)]
        self.m.apply_certificate(
            frames,
            certificate_digest(TIMEOUT_LABEL, frames),
            "timeout",
            silent,
            f"seat {silent} was silent past the deadline",
        )

    def _voters(self, accused: int) -> set[int]:
        """The seats whose votes make a certificate against ``accused`` here."""
        if self.m.phase is Phase.CONFIG:
            return {s for s in range(self.m.players) if s != accused}
        return {s for s in self.m.participants if s != accused}

    def _complete(self, votes: dict[int, SignedMessage], accused: int) -> bool:
        required = self._voters(accused)
        return bool(required) and required <= set(votes)
