"""What a relay's answer to one event means for the table (NIP-01 ``OK`` and ``NOTICE``).

Relays word their answers freely behind NIP-01's machine-readable prefixes
(``duplicate pow blocked rate-limited invalid restricted mute error`` and NIP-42's
``auth-required``), and the same trouble arrives under different prefixes: a size limit is
``blocked: ... too large`` on one relay, ``invalid: event too large`` on another and a bare
NOTICE on a third. So the words decide before the prefix where they say something specific
(size, age, rate), and the prefix decides the rest. Every wording this module knows is a unit
test (tests/nostr/test_refusals.py) with the exact strings of strfry, noteguard, khatru,
nostr-rs-relay, nostream and rust-nostr's relay."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

__all__ = ["Answer", "Verdict", "classify_notice", "classify_ok", "pow_difficulty"]


class Verdict(enum.Enum):
    STORED = "stored"  # accepted (or already there): done
    DELIVERED = "delivered"  # khatru's ``mute:``: an ephemeral event nobody listened to: done
    RATE_LIMITED = "rate-limited"  # send it again later, slower
    TOO_BIG = "too-big"  # cut it smaller and send the pieces
    STALE = "stale"  # its created_at is refused: sign it again with a fresh one
    NEEDS_POW = "needs-pow"  # NIP-13: mine it to the difficulty asked, if affordable
    NEEDS_AUTH = "needs-auth"  # NIP-42: answer the relay's challenge, then send it again
    BARRED = "barred"  # this relay will not carry this table (restricted, blocked, paid)
    FAILED = "failed"  # refused for a reason we cannot act on (invalid:, error:, unknown)


@dataclass(frozen=True)
class Answer:
    verdict: Verdict
    reason: str  # the relay's own words (bounded), for the user and bug reports

    @property
    def done(self) -> bool:
        return self.verdict in (Verdict.STORED, Verdict.DELIVERED)


MAX_REASON = 160

_SIZE = re.compile(
    r"too (large|big|long)|exceeds?|oversized?|size limit|max(imum)?[ _-]?(event|message|content)"
    r"[ _-]?(size|length|bytes)|content length|payload|characters should be enough",
    re.IGNORECASE,
)
_AGE = re.compile(
    r"expired|too old|too (late|early|far)|in the future|created_at|stale|timestamp",
    re.IGNORECASE,
)
_RATE = re.compile(r"rate[ -]?limit|slow down|too (many|fast|often)|noting too much", re.I)
_POW = re.compile(r"\bpow\b|proof[ -]of[ -]work|difficulty", re.IGNORECASE)
_AUTH = re.compile(r"auth(entication)?[ -]required|\bnip-?42\b|not authenticated", re.I)


def _prefix(message: str) -> str:
    head, colon, _ = message.partition(":")
    return head.strip().lower() if colon else ""


def classify_ok(accepted: bool, message: str) -> Answer:
    """The meaning of ``["OK", id, accepted, message]``."""
    reason = message.strip()[:MAX_REASON]
    prefix = _prefix(reason)
    if accepted or prefix == "duplicate":
        # strfry's shadow rejection also answers true: nothing here can tell (see the pool's
        # echo check, which notices a relay that never brings our events back).
        return Answer(Verdict.STORED, reason)
    if prefix == "mute":
        return Answer(Verdict.DELIVERED, reason)
    return _refusal(prefix, reason)


def classify_notice(message: str) -> Answer | None:
    """A NOTICE that stands for an ``OK false`` (nostr-rs-relay's oversize answer, nostream
    past its message limit), or None when it says nothing about our events."""
    reason = message.strip()[:MAX_REASON]
    answer = _refusal(_prefix(reason), reason)
    return answer if answer.verdict is not Verdict.FAILED else None


def _refusal(prefix: str, reason: str) -> Answer:
    # Words first: they say what is wrong whatever prefix the relay put in front.
    if _SIZE.search(reason):
        return Answer(Verdict.TOO_BIG, reason)
    if prefix == "rate-limited" or _RATE.search(reason):
        return Answer(Verdict.RATE_LIMITED, reason)
    if prefix == "pow" or (prefix in ("", "invalid", "blocked") and _POW.search(reason)):
        return Answer(Verdict.NEEDS_POW, reason)
    if prefix == "auth-required" or _AUTH.search(reason):
        return Answer(Verdict.NEEDS_AUTH, reason)
    if _AGE.search(reason):
        return Answer(Verdict.STALE, reason)
    if prefix in ("restricted", "blocked") or "payment" in reason.lower():
        return Answer(Verdict.BARRED, reason)
    return Answer(Verdict.FAILED, reason)


def pow_difficulty(reason: str) -> int | None:
    """The difficulty a ``pow:`` refusal asks for, where it says (the largest number in it:
    relays write "difficulty 5 is less than 8" or "min 8")."""
    numbers = [int(n) for n in re.findall(r"\d+", reason) if len(n) <= 3]
    return max(numbers) if numbers else None
