"""A plain-terminal driver for a networked seat: moves are read as numbers from stdin.

Used by ``dealerless host`` / ``join`` / ``resume`` without ``--bot`` (the full-screen client
plugs in through the same :class:`dealerless.node.seat.Driver` interface).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import trio

from dealerless.client.line_play import LinePlayer
from dealerless.protocol.rules.base import Action
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import ActionApplied, TableEvent

__all__ = ["LineDriver"]


def _read_line(prompt: str) -> str:
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


class LineDriver:
    def __init__(
        self,
        write: Callable[[str], None] = print,
        read: Callable[[str], str] = _read_line,
        unicode: bool = True,
    ) -> None:
        self.write, self.read, self.unicode = write, read, unicode

    def _player(self, machine: TableMachine) -> LinePlayer:
        seat = -1 if machine.seat is None else machine.seat
        return LinePlayer(machine.config.game, seat, 0, self.read, self.write, self.unicode)

    def on_events(self, machine: TableMachine, events: list[TableEvent]) -> None:
        player = self._player(machine)
        for event in events:
            if isinstance(event, ActionApplied):
                suffix = " (timed out)" if event.by_timeout else ""
                self.write(player.describe(event.action) + suffix)

    async def choose(self, machine: TableMachine) -> Action | None:
        assert machine.seat is not None
        player = self._player(machine)
        engine = machine.engine
        actions = engine.legal_actions(machine.seat)
        hand = " ".join(
            s.card.pretty(self.unicode) for s in engine.hand(machine.seat) if s.card is not None
        )
        self.write(f"your hand: {hand}   scores: {list(engine.scores())}")
        for number, action in enumerate(actions, 1):
            self.write(f"  {number}) {player.describe(action).removeprefix('you: ')}")
        while True:
            try:
                answer = await trio.to_thread.run_sync(
                    self.read, "your move> ", abandon_on_cancel=True
                )
            except EOFError:
                return None
            answer = answer.strip()
            if answer.isdigit() and 1 <= int(answer) <= len(actions):
                return actions[int(answer) - 1]
            self.write(f"type a number from 1 to {len(actions)}")
