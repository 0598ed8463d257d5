"""What the table state machine tells its driver, and its two kinds of error.

As in h11: :class:`LocalProtocolError` means *we* tried something the protocol does not allow
(nothing was sent); a peer's bad message is never raised at the driver but reported as a
:class:`Violation` event carrying the signed evidence and the culprit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dealerless.protocol.rules.base import Action, Event, HandResult, Outcome


class LocalProtocolError(Exception):
    """This peer tried something the protocol or the rules do not allow; nothing was sent."""


class RemoteProtocolError(Exception):
    """A peer's message broke the protocol (used internally; drivers see Violation events)."""

    def __init__(self, reason: str, culprit: int | None, evidence: tuple[bytes, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.culprit = culprit
        self.evidence = evidence


@dataclass(frozen=True)
class TableEvent:
    """Base class of everything the machine reports."""


@dataclass(frozen=True)
class Accepted(TableEvent):
    """A chain element was accepted (kind, author seat, sequence number) and the state hash
    right after it: every honest peer sees the same sequence of these."""

    kind: str
    seat: int | None
    seq: int
    state_hash: bytes = b""
    prepared: bool = False  # of a setup that came while the hand before was played (P-53)


@dataclass(frozen=True)
class HandStarted(TableEvent):
    hand: int
    dealer: int


@dataclass(frozen=True)
class CardsDealt(TableEvent):
    """Our own cards from a deal or draw (deck position, card index)."""

    cards: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class ActionApplied(TableEvent):
    action: Action
    rules_events: tuple[Event, ...] = ()
    by_timeout: bool = False


@dataclass(frozen=True)
class CardsShown(TableEvent):
    """Cards opened in public: a turned-up card or cards shown on a check or claim."""

    seat: int | None
    cards: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class HandEnded(TableEvent):
    """A hand's result. ``aborted``: it ended early, for a proven violation of ``culprit`` or
    because ``silent`` stayed silent where the hand could not go on without it."""

    result: HandResult
    aborted: bool = False
    culprit: int | None = None
    silent: int | None = None
    # Every seat's score right after this hand: what its result panel shows, even when the
    # panel opens hands later (the engine's scores have moved on by then).
    scores: tuple[int, ...] = ()


@dataclass(frozen=True)
class HandSigned(TableEvent):
    """Every seat signed the result of the hand: it is final."""

    hand: int


@dataclass(frozen=True)
class GameOver(TableEvent):
    outcome: Outcome


@dataclass(frozen=True)
class SeatsChanging(TableEvent):
    """This segment of the table ends after ``hand``: seats asked to stand up, sit out or
    re-form the table, or a seat was silent (it sits out). The next segment's configuration
    follows (protocol/table/segments.py)."""

    hand: int
    changes: tuple[tuple[int, str], ...]  # (seat, "stand" | "sit-out" | "reseat")
    silent: int | None = None


@dataclass(frozen=True)
class SegmentStarted(TableEvent):
    """The next segment's configuration checked and started (``seated``: with us in it; else
    the table goes on without this seat). ``config`` is any: events does not import config."""

    config: Any
    seated: bool


@dataclass(frozen=True)
class SegmentVoided(TableEvent):
    """A certificate of the ended segment's last hand reached us after we started the next
    segment (``config``): that switch is void, and so is what was done for that segment (a
    host's signature on it, the newcomers it seated). The table is back at the end of the
    ended segment, with the certificate (:class:`TranscriptCut` events follow: to the switch,
    and further back if the certificate rolled the hand back), and that segment ends again (a
    new :class:`SeatsChanging`). P-52. ``hand``: its last hand; ``kept``: the records that
    stayed."""

    config: Any
    hand: int
    kept: int


@dataclass(frozen=True)
class Violation(TableEvent):
    """A peer broke the rules, a proof, the order, the chain or a signature."""

    culprit: int | None
    reason: str
    evidence: tuple[bytes, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Stale(TableEvent):
    """A message that lost its place (built on an older head); not a violation."""

    seat: int | None
    kind: str


@dataclass(frozen=True)
class ShareMissing(TableEvent):
    """Back after a restart in a hand whose key share is missing or damaged: we cannot write
    there (the others will time us out; silence costs at most the bounded settlement)."""

    hand: int
    reason: str


@dataclass(frozen=True)
class SeatSilent(TableEvent):
    """A timeout certificate against this seat was carried out (silence, not a violation)."""

    seat: int
    phase: str
    hand: int


@dataclass(frozen=True)
class TableNotStarted(TableEvent):
    """The configuration round ended without every signature: the table does not start,
    because ``culprit`` signed something else (proven) or ``silent`` did not sign."""

    reason: str
    culprit: int | None = None
    silent: int | None = None


@dataclass(frozen=True)
class TimeoutVoted(TableEvent):
    silent: int


@dataclass(frozen=True)
class WaitingFor(TableEvent):
    """The chain waits for these seats (after every change)."""

    seats: tuple[int, ...]
    phase: str


@dataclass(frozen=True)
class TranscriptCut(TableEvent):
    """The chain was rolled back to a fork point: keep only the first ``keep`` records."""

    keep: int


@dataclass(frozen=True)
class ChatReceived(TableEvent):
    """A signed line of table chat from another seat (not part of the transcript)."""

    seat: int
    text: str
