"""The table's chain as one peer holds it: the records, the head and its sequence number, every
head the table has had, and the running hand's elements, and those of the few hands before it,
so that the table can be rolled back to any of their heads (spec/protocol.md §2, §5, §8).

It knows nothing of phases or rules: the table machine decides what is appended; the chain keeps
where each element and each hand begins, which records the node has not stored yet, who was to
write at each head and when this peer reached it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

# How many finished hands of the segment a roll-back can reach back into, beside the running one:
# a seat that went on several hands before a certificate against its element reached it (it was
# cut off, or the certificate's votes were lost and caught up late) still comes back onto the
# table's chain. Bounded: each kept hand holds its records, and a forked peer is served from
# the earliest of them.
ROLLBACK_HANDS = 4

# A prepared hand's chain goes on after its setup at SHA-256(JOIN_LABEL ‖ the hand's start ‖ the
# setup's last head): its deal is bound to both how the hand before ended and the deck (P-53).
JOIN_LABEL = b"dealerless/join"
# ... and its setup is signed on from SHA-256(PREPARE_LABEL ‖ the start of the hand before), a
# head of its own: no element of the hand before is signed there, so no vote, writer or
# equivocation at it can be taken for one of the other hand.
PREPARE_LABEL = b"dealerless/prepare"


def prepare_anchor(hand_start: bytes) -> bytes:
    """The head the setup of the hand after the one that started at ``hand_start`` is signed
    on from, when it is prepared while that hand is played (P-53)."""
    return hashlib.sha256(PREPARE_LABEL + hand_start).digest()


@dataclass(frozen=True)
class HandMark:
    """Where the running hand began: the head before its first element, that element's
    sequence number, and how many records came before it."""

    head: bytes
    seq: int
    records: int


@dataclass
class _HandLog:
    """A finished hand's elements, kept while it is one of the last :data:`ROLLBACK_HANDS`, so
    that a roll-back can reach back into it (a timeout certificate formed while our own element
    was in flight)."""

    mark: HandMark
    frames: list[bytes]
    heads: list[tuple[bytes, int]]
    writers: dict[bytes, frozenset[int]]
    since: dict[bytes, float]
    seqs: dict[bytes, int]  # head -> the sequence number of the element that follows it

    def copy(self) -> _HandLog:
        return _HandLog(
            self.mark,
            list(self.frames),
            list(self.heads),
            dict(self.writers),
            dict(self.since),
            dict(self.seqs),
        )


@dataclass(frozen=True)
class ChainState:
    """Everything a :class:`Chain` holds, copied: a seat change's switch can be undone (a
    certificate of the ended segment's last hand that reached us after it, P-52)."""

    records: tuple[bytes, ...]
    history: frozenset[bytes]
    head: bytes
    seq: int
    hand_mark: HandMark | None
    unsaved: tuple[bytes, ...]
    hand_frames: tuple[bytes, ...]
    hand_heads: tuple[tuple[bytes, int], ...]
    writers: tuple[tuple[bytes, frozenset[int]], ...]
    since: tuple[tuple[bytes, float], ...]
    seqs: tuple[tuple[bytes, int], ...]
    previous: tuple[_HandLog, ...]

    def rollback_floor(self) -> int:
        """As :meth:`Chain.rollback_floor`, for the chain as it stood."""
        return _floor(self.previous, self.hand_mark, len(self.records))


class Chain:
    def __init__(self) -> None:
        self.records: list[bytes] = []  # the transcript: every chain frame and certificate vote
        self.history: set[bytes] = set()  # every head this table has had
        self.head = b""
        self.seq = 0
        self.hand_mark: HandMark | None = None
        self._unsaved: list[bytes] = []  # records the node has not taken to store yet
        self._hand_frames: list[bytes] = []  # the running hand's records
        self._hand_heads: list[tuple[bytes, int]] = []  # its heads, with its records up to each
        self._writers: dict[bytes, frozenset[int]] = {}  # heads of the hand -> who writes next
        self._since: dict[bytes, float] = {}  # heads of the hand -> when we reached them
        self._seqs: dict[bytes, int] = {}  # heads of the hand -> the next element's sequence
        self._previous: list[_HandLog] = []  # the hands before the running one, oldest first

    def state(self) -> ChainState:
        """A copy of everything this chain holds (its records and heads, hand by hand)."""
        return ChainState(
            tuple(self.records),
            frozenset(self.history),
            self.head,
            self.seq,
            self.hand_mark,
            tuple(self._unsaved),
            tuple(self._hand_frames),
            tuple(self._hand_heads),
            tuple(self._writers.items()),
            tuple(self._since.items()),
            tuple(self._seqs.items()),
            tuple(log.copy() for log in self._previous),
        )

    def restore(self, state: ChainState) -> None:
        """Hold exactly what ``state`` held (a copy of it: ``state`` stays as it is)."""
        self.records[:] = state.records  # in place: the machine hands this list out
        self.history.clear()
        self.history.update(state.history)
        self.head, self.seq, self.hand_mark = state.head, state.seq, state.hand_mark
        self._unsaved, self._hand_frames = list(state.unsaved), list(state.hand_frames)
        self._hand_heads = list(state.hand_heads)
        self._writers, self._since = dict(state.writers), dict(state.since)
        self._seqs = dict(state.seqs)
        self._previous = [log.copy() for log in state.previous]

    def hand_walk(self) -> list[bytes]:
        """The running hand's start (if it has one) and every head after it, in order."""
        start = [] if self.hand_mark is None else [self.hand_mark.head]
        return [*start, *self.hand_heads()]

    # ---------------------------------------------------------------- moving on
    def enter_segment(self, head: bytes) -> None:
        """A segment starts at its configuration's digest, sequence 0, before any hand. Its
        configuration round counts as a hand here: it can be rolled back to its start."""
        self.head, self.seq = head, 0
        self.history.add(head)
        self.hand_mark = HandMark(head, 0, len(self.records))
        self._previous = []  # a roll-back never crosses into another segment
        self._forget_hand()

    def start_hand(self) -> None:
        if self.hand_mark is not None:
            self._previous.append(
                _HandLog(
                    self.hand_mark,
                    self._hand_frames,
                    self._hand_heads,
                    self._writers,
                    self._since,
                    self._seqs,
                )
            )
            del self._previous[:-ROLLBACK_HANDS]
        self.hand_mark = HandMark(self.head, self.seq, len(self.records))
        self._forget_hand()

    def _forget_hand(self) -> None:
        self._hand_frames, self._hand_heads = [], []
        self._writers, self._since, self._seqs = {}, {}, {}

    def rebase(self, anchor: bytes, seq: int) -> None:
        """A prepared hand (P-53): its setup was signed on from ``anchor`` (see
        :func:`prepare_anchor`), with sequence numbers from ``seq``; the running hand's first
        head."""
        self.history.add(anchor)
        self.head, self.seq = anchor, seq
        self._hand_heads.append((anchor, len(self._hand_frames)))
        self._seqs[anchor] = seq

    def join(self) -> None:
        """The prepared hand's setup is complete, or a certificate ended it: its chain goes on
        at the join of the hand's start and the setup's last head (the last shuffle's, or the
        certificate's), which takes that head's place (nothing is written at the setup's last
        head itself)."""
        mark = self.hand_mark
        assert mark is not None and self._hand_heads
        digest = hashlib.sha256(JOIN_LABEL + mark.head + self.head).digest()
        self.seq = max(mark.seq, self.seq)
        self.history.add(digest)
        last, upto = self._hand_heads[-1]
        self._hand_heads[-1] = (digest, upto)
        del self._seqs[last]
        self._seqs[digest] = self.seq
        self.head = digest

    def append(self, frames: Sequence[bytes], digest: bytes) -> None:
        """One chain element (a message, or a certificate's votes): the head moves on."""
        self.records.extend(frames)
        self._unsaved.extend(frames)
        self._hand_frames.extend(frames)
        self.head = digest
        self.history.add(digest)
        self._hand_heads.append((digest, len(self._hand_frames)))
        self.seq += 1
        self._seqs[digest] = self.seq

    def add_record(self, frame: bytes) -> None:
        """A record that is no chain element (the next segment's configuration): the head
        stays."""
        self.records.append(frame)
        self._unsaved.append(frame)

    def note_head(self, writers: frozenset[int], since: float | None) -> None:
        """Who writes at the head, and (unless replaying) when we reached it."""
        self._writers[self.head] = writers
        if since is not None:
            self._since.setdefault(self.head, since)

    def hand_heads(self) -> list[bytes]:
        """The running hand's heads after its start, in order."""
        return [h for h, _ in self._hand_heads]

    def writers_at(self, head: bytes) -> frozenset[int] | None:
        if head in self._writers:
            return self._writers[head]
        for log in reversed(self._previous):
            if head in log.writers:
                return log.writers[head]
        return None

    def reached_at(self, head: bytes) -> float | None:
        if head in self._since:
            return self._since[head]
        for log in reversed(self._previous):
            if head in log.since:
                return log.since[head]
        return None

    def rollback_floor(self) -> int:
        """The number of records before the earliest hand a roll-back can reach."""
        return _floor(self._previous, self.hand_mark, len(self.records))

    # ---------------------------------------------------------------- records to store
    @property
    def unsaved_count(self) -> int:
        return len(self._unsaved)

    def take_unsaved(self, limit: int | None = None) -> list[bytes]:
        """The records not stored yet (at most ``limit`` of them, the oldest first)."""
        if limit is None:
            out, self._unsaved = self._unsaved, []
        else:
            out, self._unsaved = self._unsaved[:limit], self._unsaved[limit:]
        return out

    @property
    def saved_count(self) -> int:
        """How many records the node has taken to store (the unsaved ones are a suffix)."""
        return len(self.records) - len(self._unsaved)

    def unsaved_from(self, count: int) -> None:
        """The node holds our first ``count`` records and none after them."""
        self._unsaved = self.records[count:]

    def forget_unsaved(self) -> None:
        """The node holds these records already (a resume replayed them from its file)."""
        self._unsaved = []

    # ---------------------------------------------------------------- rolling back
    def seq_after(self, head: bytes) -> int:
        """The sequence number of the element that follows ``head`` (current or of this hand)."""
        if head == self.head:
            return self.seq
        mark = self.hand_mark
        assert mark is not None
        if head in self._seqs:
            return self._seqs[head]
        if head == mark.head:
            return mark.seq
        back = self.hands_back(head)
        if not back:
            raise KeyError(f"{head.hex()[:16]} is no head of the running hand nor of one before")
        log = self._previous[-back]
        return log.mark.seq if head == log.mark.head else log.seqs[head]

    def can_rollback_to(self, anchor: bytes, *, across_hand: bool = False) -> bool:
        """True when ``anchor`` is the head or an earlier head of the running hand (or of
        the segment's configuration round); with ``across_hand`` also a head of one of the
        kept hands before it in this segment."""
        if anchor == self.head:
            return True
        mark = self.hand_mark
        if mark is None:
            return False
        if anchor == mark.head or any(h == anchor for h, _ in self._hand_heads):
            return True
        return across_hand and self.hands_back(anchor) > 0

    def hands_back(self, anchor: bytes) -> int:
        """How many hands before the running one ``anchor`` is a head of (1: the hand before;
        not its last head, which is where the next hand starts); 0 for a head of the running
        hand or one not kept."""
        if self.hand_mark is None or anchor == self.hand_mark.head:
            return 0
        if any(h == anchor for h, _ in self._hand_heads):
            return 0  # a prepared hand's first head is the start of the hand before (P-53)
        for back, log in enumerate(reversed(self._previous), start=1):
            if self._in(log, anchor):
                return back
        return 0

    def crosses_hand(self, anchor: bytes) -> bool:
        """``anchor`` is a head of a kept hand before the running one."""
        return self.hands_back(anchor) > 0

    @staticmethod
    def _in(log: _HandLog, head: bytes) -> bool:
        return head == log.mark.head or any(h == head for h, _ in log.heads)

    def cut_to_hand_start(self, anchor: bytes) -> list[list[bytes]]:
        """Go back to where the hand began and return its elements up to ``anchor`` (each
        element's records), for the machine to replay; the records after the hand's start are
        cut."""
        assert self.can_rollback_to(anchor, across_hand=True)
        back = self.hands_back(anchor)
        # The heads after the anchor are void: no longer the table's. A prepared setup (P-53)
        # and what is built on it the same way may reach them again; a frame built on one of
        # them then waits for it instead of being dropped as stale.
        void = {self.head, *(h for h, _ in self._hand_heads)}
        for log in self._previous[len(self._previous) - back + 1 :] if back else []:
            void |= {log.mark.head, *(h for h, _ in log.heads)}
        if back:
            # Back into an earlier hand: it is the running hand again, the ones after it void.
            log = self._previous[-back]
            del self._previous[-back:]
            self.hand_mark, self._hand_frames = log.mark, log.frames
            self._hand_heads, self._writers, self._since = log.heads, log.writers, log.since
            self._seqs = log.seqs
        mark = self.hand_mark
        assert mark is not None
        elements: list[tuple[list[bytes], bytes]] = []
        done = 0
        for head, upto in self._hand_heads:
            if anchor == mark.head:
                break
            elements.append((self._hand_frames[done:upto], head))
            done = upto
            if head == anchor:
                break
        kept = {mark.head, *(head for _, head in elements)}
        after = [h for h, _ in self._hand_heads[len(elements) :]]
        self.history -= (void | set(after)) - kept
        self.head, self.seq = mark.head, mark.seq
        del self.records[mark.records :]
        self._unsaved = []
        self._hand_frames, self._hand_heads, self._seqs = [], [], {}
        return [frames for frames, _ in elements]


def _floor(previous: Sequence[_HandLog], mark: HandMark | None, records: int) -> int:
    if previous:
        return previous[0].mark.records
    return mark.records if mark is not None else records
