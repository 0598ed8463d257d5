"""The step deadline on this peer's clock: when the current head was reached, and which seats'
elements came in time where (a timeout certificate against one of those is refuted for us).
Time is an input: the machine passes ``now``, the clock never reads one."""

from __future__ import annotations

OWN_MARGIN = 0.9  # our own element counts as in time only with a margin for the trip


class StepClock:
    def __init__(self, timeout: float, now: float) -> None:
        self.timeout = timeout
        self.since = now  # when the current head was reached
        # (seat, head): that seat's element at that head was written by us, or reached us,
        # before our own deadline there.
        self._in_time: set[tuple[int, bytes]] = set()
        self._untimed_head: bytes | None = None  # resumed here: how long it waited is unknown

    def head_reached(self, now: float) -> None:
        self.since = now

    def resumed_at(self, head: bytes) -> None:
        self._untimed_head = head

    def note_arrival(self, seat: int, head: bytes, now: float) -> None:
        """A peer's element at ``head`` reached us now."""
        if now - self.since < self.timeout:
            self._in_time.add((seat, head))

    def note_own(self, seat: int, head: bytes, now: float) -> None:
        """We write our element at ``head`` now."""
        late = head == self._untimed_head or now - self.since > OWN_MARGIN * self.timeout
        if not late:
            self._in_time.add((seat, head))

    def moved_in_time(self, head: bytes, seat: int) -> bool:
        return (seat, head) in self._in_time

    def deadline_passed(
        self, head: bytes, now: float, reached_at: float | None, *, steps: float = 1
    ) -> bool:
        """The deadline at ``head`` (``steps`` step timeouts after it was reached at
        ``reached_at``; None: its arrival was never seen, it was replayed) passed. A head we
        resumed at counts as passed (we were away for an unknown time)."""
        if head == self._untimed_head:
            return True
        return reached_at is None or now - reached_at >= steps * self.timeout
