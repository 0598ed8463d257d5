"""How fast we write to one relay: a token bucket from the very first event, tightened when
the relay pushes back and loosened slowly while it accepts.

Public relays defend themselves against writers that are fast and new (damus 6-8 events a
minute per address, khatru 10 and then 2 every 3 minutes, rust-nostr's relay 60 a minute per
connection), and several escalate against a client that keeps hitting the limit (longer bans,
proof-of-work demands, silent drops). So we never rely on being told: a fresh relay gets a
modest burst and rate that grows slowly while the relay takes everything, and a
``rate-limited:`` answer cuts the rate by at least 30 % and to no more than what the relay has
actually taken in the last minute, and caps the recovery below the refused rate, with
an additive recovery of a few percent per accepted event. Pure: every method takes ``now``."""

from __future__ import annotations

import collections
from dataclasses import dataclass

__all__ = ["Pace", "PaceSettings"]

WINDOW = 60.0  # relays count their limits per minute
CALM = 120.0  # seconds after a refusal during which events keep MIN_GAP apart
MIN_GAP = 1.05


@dataclass(frozen=True)
class PaceSettings:
    burst: float = 12.0  # events a relay may take at once before the sustained rate applies
    rate: float = 3.0  # events a second to start with ...
    ceiling: float = 10.0  # ... growing to this while the relay never pushes back
    # The slowest we go: 3 events a minute. A relay that allows less (khatru's 2 per 3
    # minutes) cannot carry a table whose steps time out after minutes, and going slower
    # would only make the seat look silent.
    floor: float = 1 / 20
    cut: float = 0.7  # at a refusal the rate drops at least to this share ...
    after_refusal: float = 1.0  # ... and to at most this many a second (60/min: most limits)
    recover: float = 0.03  # each accepted event raises the rate by this share ...
    recover_min: float = 0.002  # ... and at least this many events a second


class Pace:
    def __init__(self, settings: PaceSettings | None = None, now: float = 0.0) -> None:
        self.settings = settings or PaceSettings()
        self.rate = self.settings.rate
        self.ceiling = self.settings.ceiling  # lowered for good below a rate that was refused
        self.capacity = self.settings.burst
        self.tokens = self.capacity
        self.stamp = now
        self.started = now
        self.accepted: collections.deque[float] = collections.deque()
        self.refusals = 0
        self.last_refusal = -1e9
        self.last_cut = -1e9
        self.last_spend = -1e9

    def _refill(self, now: float) -> None:
        if now > self.stamp:
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now

    def ready_at(self, now: float) -> float:
        """When the next event may leave (``now`` if it may leave now)."""
        self._refill(now)
        # After a refusal, never two events within MIN_GAP: a relay that has pushed back may
        # count a burst against us even below its rate (rust-nostr's refuses every event
        # within a second of the one before, once its first burst is spent: measured, 0 of 8
        # at 0.9 s gaps, 8 of 8 at 1.05 s). Saved tokens still go, one per gap.
        spaced = self.last_spend + MIN_GAP if now - self.last_refusal < CALM else now
        if self.tokens >= 1.0:
            return max(now, spaced)
        return max(now + (1.0 - self.tokens) / self.rate, spaced)

    def spend(self, now: float) -> None:
        self._refill(now)
        self.tokens -= 1.0
        self.last_spend = now

    def took(self, now: float) -> None:
        """The relay accepted an event: note it, and recover a little."""
        self.accepted.append(now)
        self._forget(now)
        step = max(self.rate * self.settings.recover, self.settings.recover_min)
        self.rate = min(self.ceiling, self.rate + step)
        self.capacity = min(self.settings.burst, max(self.capacity, self.rate * 15))

    def pushed_back(self, now: float, sent: float | None = None) -> None:
        """The relay answered ``rate-limited`` to an event sent at ``sent``: slow to what it
        has taken, and wait. Events that were already on their way when we last slowed down
        are refused for the same excess: they cut nothing more (one cut per push-back, or a
        window of refusals would divide the rate by 2 each and stall the seat)."""
        self._forget(now)
        self.refusals += 1
        if sent is not None and sent <= self.last_cut:
            self.last_refusal = now
            return
        self.last_refusal = self.last_cut = now
        # Never climb back to a rate the relay refused: recovery stops a little below it, so
        # a relay that escalates against clients that keep hitting its limit sees us stop.
        # What the relay took over the last minute (or since we started, if sooner) bounds
        # its limit from above; the cut makes sure we slow down even when it does not.
        span = max(1.0, min(WINDOW, now - self.started))
        taken = len(self.accepted) / span
        # The ceiling never falls below what the relay demonstrably takes: some relays refuse
        # now and then below their limit (rust-nostr's counts whole seconds), and a ceiling
        # that ratchets down at every refusal would end at the floor.
        self.ceiling = max(self.settings.floor, min(self.ceiling, self.rate * 0.9), 0.9 * taken)
        # 90 % of what it took: exactly at a relay's rate, a try a moment early is refused, and
        # relays like noteguard then take the partly refilled token too.
        cut = min(self.rate * self.settings.cut, self.settings.after_refusal, 0.9 * taken or 1e9)
        self.rate = max(self.settings.floor, cut)
        self.capacity = max(1.0, min(self.settings.burst, self.rate * 15))
        self._refill(now)
        self.tokens = min(self.tokens, 0.0)  # a full period before the next try

    def throttled(self, now: float, within: float = 30.0) -> bool:
        return now - self.last_refusal < within

    def _forget(self, now: float) -> None:
        while self.accepted and now - self.accepted[0] > WINDOW:
            self.accepted.popleft()
