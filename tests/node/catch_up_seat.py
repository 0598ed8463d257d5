"""The catch-up part of a seat's node around a real machine, for tests: this fake is the node
it talks to (it records what would go out and keeps a clock)."""

from __future__ import annotations

from typing import Any

from dealerless.node.catch_up import CatchUp
from dealerless.node.options import NodeOptions
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import TableEvent


class CatchUpSeat:
    def __init__(self, machine: TableMachine, grace: float, *, receives: bool = False) -> None:
        self.machine = machine
        self.receives = receives  # records served to us reach the machine: keep its events
        self.events: list[TableEvent] = []
        self.waiting: dict[bytes, tuple[str, int]] = {}  # newcomers waiting: none here
        self.sent: list[tuple[str, dict[str, Any], bytes | None]] = []
        self.clock = 100.0
        self.say = lambda _line: None
        self.catch_up = CatchUp(
            self,
            NodeOptions(serve_grace=grace),
            waits_for_seat=self.waiting.__contains__,
            coming_back=lambda: False,
        )

    def now(self) -> float:
        return self.clock

    def queue_signed(self, payload: dict[str, Any], to: bytes | None = None) -> None:
        self.sent.append(("signed", payload, to))

    def queue_records(self, payload: dict[str, Any], to: bytes, size: int) -> bool:
        self.sent.append(("recs", payload, to))
        return True

    def queue(self, payload: dict[str, Any], to: bytes | None = None) -> None:
        self.sent.append(("unsigned", payload, to))

    def after(self, events: list[TableEvent]) -> None:
        if not self.receives:
            raise AssertionError("no machine call here")
        self.events.extend(events)

    def kinds(self) -> list[str]:
        return [payload["t"] for _, payload, _ in self.sent]

    def served(self) -> list[dict[str, Any]]:
        return [payload for kind, payload, _ in self.sent if kind == "recs"]
