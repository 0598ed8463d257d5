"""A plain-terminal driver for a networked seat: moves are read as numbers from stdin.

Used by ``dealerless play --plain`` (through :func:`dealerless.node.local_game.run_local_game`)
and by ``dealerless host`` / ``join`` / ``resume`` with ``--plain``, ``--bot`` aside. The
full-screen client plugs in through the same :class:`dealerless.node.seat.Driver` interface
(:class:`dealerless.client.tui.node_session.DriverSession`).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

import trio

from dealerless.protocol.rules.base import Action
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import ActionApplied, TableEvent

__all__ = ["LineDriver", "describe", "move_text", "read_line"]


def read_line(prompt: str) -> str:
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


def describe(action: Action, me: int | None, unicode: bool = True) -> str:
    """One line for a move: ``you: play 7♣`` or ``seat 2: knock``."""
    who = "you" if action.seat == me else f"seat {action.seat}"
    return f"{who}: {move_text(action, unicode)}"


def move_text(action: Action, unicode: bool = True) -> str:
    """A move without its seat: ``play 7♣``, ``bid ♥``, ``knock 3``."""
    text = action.kind.value
    if action.card is not None:
        text += " " + action.card.pretty(unicode)
    if action.cards:
        text += " [" + " ".join(c.pretty(unicode) for c in action.cards) + "]"
    if action.suit is not None:
        text += " " + (action.suit.symbol if unicode else action.suit.name.lower())
    if action.amount is not None:
        text += f" {action.amount}"
    return text


class LineDriver:
    def __init__(
        self,
        write: Callable[[str], None] = print,
        read: Callable[[str], str] = read_line,
        unicode: bool = True,
    ) -> None:
        self.write, self.read, self.unicode = write, read, unicode
        self.stdin_closed = False

    def on_events(self, machine: TableMachine, events: list[TableEvent]) -> None:
        for event in events:
            if isinstance(event, ActionApplied):
                suffix = " (timed out)" if event.by_timeout else ""
                self.write(describe(event.action, machine.seat, self.unicode) + suffix)

    async def choose(self, machine: TableMachine) -> Action | None:
        assert machine.seat is not None
        engine = machine.engine
        actions = engine.legal_actions(machine.seat)
        hand = " ".join(
            s.card.pretty(self.unicode) for s in engine.hand(machine.seat) if s.card is not None
        )
        self.write(f"your hand: {hand}   scores: {list(engine.scores())}")
        for number, action in enumerate(actions, 1):
            self.write(f"  {number}) {move_text(action, self.unicode)}")
        while True:
            try:
                answer = await trio.to_thread.run_sync(
                    self.read, "your move> ", abandon_on_cancel=True
                )
            except EOFError:
                # stdin is closed: say so once, then let the step timeout decide this seat's
                # turns (returning at once would have the node ask again in a busy loop)
                if not self.stdin_closed:
                    self.stdin_closed = True
                    logging.getLogger("dealerless.node").warning(
                        "standard input is closed: this seat will be timed out at its turns"
                    )
                await trio.sleep_forever()
            answer = answer.strip()
            if answer.isdigit() and 1 <= int(answer) <= len(actions):
                return actions[int(answer) - 1]
            self.write(f"type a number from 1 to {len(actions)}")
