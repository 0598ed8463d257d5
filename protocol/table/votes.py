"""Side messages of the table: out-of-turn requests, timeout votes and abort votes.

A certificate is the set of votes of every seat in the hand but the accused one, all for the same
head. It becomes one chain element: its vote frames are appended to the transcript in seat order
and the new head is SHA-256 over a label and their hashes, so every peer (and an auditor) derives
the same head from the same votes, whoever collected them first.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from dealerless.protocol.messages import MessageError, SignedMessage, decode_message
from dealerless.protocol.table.events import ChatReceived, TimeoutVoted, Violation
from dealerless.protocol.table.kinds import TABLE_REGISTRY
from dealerless.protocol.table.steps import Phase

if TYPE_CHECKING:
    from dealerless.protocol.table.machine import TableMachine

MAX_UNKNOWN_HEAD_VOTES = 64  # votes kept for heads this peer has not reached (yet)
TIMEOUT_LABEL = b"dealerless/certificate/timeout"
ABORT_LABEL = b"dealerless/certificate/abort"


def certificate_digest(label: bytes, frames: list[bytes]) -> bytes:
    h = hashlib.sha256(label)
    for frame in frames:
        h.update(hashlib.sha256(frame).digest())
    return h.digest()


class VoteBook:
    def __init__(self, machine: TableMachine) -> None:
        self.m = machine
        # (accused seat, head) -> voter seat -> vote
        self.timeout: dict[tuple[int, bytes], dict[int, SignedMessage]] = {}
        self.abort: dict[tuple[int, bytes], dict[int, SignedMessage]] = {}
        self.applied: set[tuple[int, bytes]] = set()  # abort certificates already carried out
        self.timed_out: set[tuple[int, bytes]] = set()  # timeout certificates carried out

    # ---------------------------------------------------------------- incoming
    def side_message(self, message: SignedMessage) -> None:
        m = self.m
        seat = message.seat
        assert seat is not None
        if message.kind == "request":
            if seat != m.seat:
                m.requests.append(message)
                m._drive()
        elif message.kind == "chat":
            if seat != m.seat:
                m.events.append(ChatReceived(seat, str(message.body["text"])))
            return
        elif message.kind == "timeout-vote":
            silent = message.body["silent"]
            if silent == seat or message.body["head"] != message.prev:
                m._violation(seat, "malformed timeout vote", (message.frame,), vote=False)
                return
            if self._room_for(message.prev, self.timeout):
                self.timeout.setdefault((silent, message.prev), {}).setdefault(seat, message)
        elif message.kind == "abort-vote":
            culprit = message.body["culprit"]
            if culprit == seat or message.body["anchor"] != message.prev:
                m._violation(seat, "malformed abort vote", (message.frame,), vote=False)
                return
            key = (culprit, message.prev)
            if key not in self.applied and self._room_for(message.prev, self.abort):
                self.abort.setdefault(key, {}).setdefault(seat, message)
            evidence = message.body.get("evidence", [])
            for frame in evidence:
                self._examine_evidence(frame)
            if not evidence and self._agrees_silent(culprit, message.prev):
                reason = bytes(message.body["reason"]).decode(errors="replace")
                self.vote_abort(culprit, reason, (), anchor=message.prev)
        self.check_certificates()

    def _room_for(
        self, head: bytes, book: dict[tuple[int, bytes], dict[int, SignedMessage]]
    ) -> bool:
        """Votes for heads we know are always kept; for unknown heads only a bounded number."""
        if head in self.m.history:
            return True
        unknown = sum(1 for _, h in book if h not in self.m.history)
        return unknown < MAX_UNKNOWN_HEAD_VOTES

    def voted_silent(self, seat: int, head: bytes) -> bool:
        """Whether this peer signed that ``seat`` was silent at ``head``."""
        me = self.m.seat
        return me is not None and me in self.timeout.get((seat, head), {})

    def _agrees_silent(self, culprit: int, anchor: bytes) -> bool:
        """Join an abort for silence: we voted so ourselves, or every seat but the culprit and
        us did (we alone took its late element, so the timeout certificate can never form)."""
        m = self.m
        if m.seat is None or not m.can_rollback_to(anchor):
            return False
        votes = self.timeout.get((culprit, anchor), {})
        if m.seat in votes:
            return True
        others = {s for s in m.participants if s not in (culprit, m.seat)}
        return bool(others) and others <= set(votes)

    def _examine_evidence(self, frame: bytes) -> None:
        """Run evidence through our own checks: we vote only on what we verify ourselves."""
        try:
            decode_message(frame, registry=TABLE_REGISTRY)
        except MessageError:
            return
        self.m._receive(frame)

    def equivocation(self, culprit: int, first: bytes, second: bytes) -> None:
        m = self.m
        anchor = decode_message(first, registry=TABLE_REGISTRY).prev
        reason = "equivocation: two different signed messages for one step"
        m.violations.append(Violation(culprit, reason, (first, second)))
        m.events.append(m.violations[-1])
        self.vote_abort(culprit, reason, (first, second), anchor=anchor)

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
        m = self.m
        if not self._participant() or culprit == m.seat or m.over or m._replaying:
            return
        anchor = m.head if anchor is None else anchor
        if not m.can_rollback_to(anchor):
            return
        assert m.seat is not None
        key = (culprit, anchor)
        if m.seat in self.abort.get(key, {}) or key in self.applied:
            return
        body = {
            "culprit": culprit,
            "anchor": anchor,
            "reason": reason.encode()[:200],
            "evidence": [e for e in evidence if len(e) <= 65536][:2],
        }
        vote = m._sign("abort-vote", body, at=anchor)
        m._outbox.append(vote.frame)
        m.seen.add(vote.frame)
        self.abort.setdefault(key, {})[m.seat] = vote
        self.check_certificates()

    def check_timeouts(self) -> None:
        m = self.m
        self.check_certificates()
        if not self._participant() or m.over or m._replaying or m.held:
            return
        silent = m.arbiter()
        if silent is None or silent == m.seat or m.now - m.step_since < m.timeout:
            return
        assert m.seat is not None
        key = (silent, m.head)
        if m.seat in self.timeout.get(key, {}):
            if m.now - m.step_since >= 2 * m.timeout:
                # The certificate did not form (some peer took the late element): end the hand.
                self.vote_abort(silent, f"seat {silent} was silent past two deadlines", ())
            return
        vote = m._sign("timeout-vote", {"silent": silent, "head": m.head})
        m._outbox.append(vote.frame)
        m.seen.add(vote.frame)
        self.timeout.setdefault(key, {})[m.seat] = vote
        m.events.append(TimeoutVoted(silent))
        self.check_certificates()

    # ---------------------------------------------------------------- certificates
    def check_certificates(self) -> None:
        m = self.m
        while not m.over:
            if not self._complete_one():
                return
            # Elements built on the certificate may have arrived before its last vote.
            m._release_future()

    def _complete_one(self) -> bool:
        m = self.m
        for (culprit, anchor), votes in self.abort.items():
            if m._rolling_back:
                break  # a replay of the hand up to a fork point applies no abort
            if m.can_rollback_to(anchor) and self._complete(votes, culprit):
                del self.abort[(culprit, anchor)]
                self.applied.add((culprit, anchor))
                m.rollback_to(anchor)
                frames = [votes[s].frame for s in sorted(votes)]
                reason = bytes(votes[min(votes)].body["reason"]).decode(errors="replace")
                m.apply_certificate(
                    frames, certificate_digest(ABORT_LABEL, frames), "abort", culprit, reason
                )
                return True
        if self._our_void_branch():
            return True
        silent = m.arbiter()
        if silent is not None:
            votes = self.timeout.get((silent, m.head), {})
            if self._complete(votes, silent):
                self._carry_out_timeout(silent, m.head, votes)
                return True
        return False

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

    def _our_void_branch(self) -> bool:
        """Every other seat signed that we were silent at an earlier head of this hand, where
        we wrote later (back after a crash or a long absence, before we heard of their votes):
        they all refused what we wrote there, so our branch is void. Roll back to that head and
        take their certificate, as every other peer did."""
        m = self.m
        if m.seat is None or m._rolling_back:
            return False
        for (silent, anchor), votes in list(self.timeout.items()):
            if silent != m.seat or anchor == m.head or (silent, anchor) in self.timed_out:
                continue
            if not m.can_rollback_to(anchor) or not self._complete(votes, silent):
                continue
            # Out of the book first: the replay up to the anchor must not carry it out itself.
            del self.timeout[(silent, anchor)]
            m.rollback_to(anchor)
            self._carry_out_timeout(silent, anchor, votes)
            return True
        return False

    def _complete(self, votes: dict[int, SignedMessage], accused: int) -> bool:
        required = {s for s in self.m.participants if s != accused}
        if self.m.phase is Phase.CONFIG:
            required = {s for s in range(self.m.players) if s != accused}
        return bool(required) and required <= set(votes)
