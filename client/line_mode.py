"""Line mode (``--plain``, or no terminal): the table as lines of text, moves as numbers.

:class:`TextLineDriver` is a node ``Driver`` like ``node/line_driver.py``'s, but it speaks the
full-screen client's words: every event through the same presenter (translated, seats by
name, teams counted from 1, the result's breakdown), every text from a peer escaped
(:func:`dealerless.client.tui.safe_text.printable`), never a Python repr. :func:`plain_say`
turns the node's progress messages into the same words.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace

import trio

from dealerless.client.tui import presenter as P
from dealerless.client.tui.i18n import tr
from dealerless.client.tui.model import TableSnapshot, build_snapshot
from dealerless.client.tui.node_text import node_notice
from dealerless.client.tui.results import breakdown, standings_line
from dealerless.node.line_driver import read_line
from dealerless.node.notices import Notice
from dealerless.protocol.rules.base import Action
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import (
    Accepted,
    ChatReceived,
    HandEnded,
    TableEvent,
    WaitingFor,
)

__all__ = ["TextLineDriver", "plain_say"]


def plain_say(lang: str, write: Callable[[str], None] | None = None) -> Callable[[Notice], None]:
    """A node ``say`` for line mode: its notices in the screen's words, on stderr (stdout
    carries the game), the ones the game lines already tell dropped."""

    def say(said: Notice) -> None:
        shown = node_notice(said, lang)
        if shown:
            (write or _stderr)(shown)

    return say


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class TextLineDriver:
    def __init__(
        self,
        lang: str = "en",
        unicode: bool = True,
        write: Callable[[str], None] = print,
        read: Callable[[str], str] = read_line,
    ) -> None:
        self.look = P.Look(lang, unicode)
        self.write, self.read = write, read
        self.log: list[TableEvent] = []
        self.stdin_closed = False

    def _snapshot(self, machine: TableMachine) -> TableSnapshot:
        names = tuple(s.name for s in machine.config.seats)
        return build_snapshot(machine, names, self.log)

    def on_events(self, machine: TableMachine, events: list[TableEvent]) -> None:
        fresh = [e for e in events if not isinstance(e, Accepted | WaitingFor)]
        if not fresh:
            return
        self.log.extend(e for e in fresh if not isinstance(e, ChatReceived))
        snap = self._snapshot(machine)
        for event in fresh:
            if isinstance(event, ChatReceived):
                self.write(P.chat_lines(snap_with_chat(snap, event), self.look)[-1])
                continue
            for line in P.event_lines(snap, event, self.look):
                self.write(line)
            if isinstance(event, HandEnded) and not event.aborted:
                for line in breakdown(snap, event.result, self.look):
                    self.write("  " + line)
                self.write(standings_line(snap, self.look))

    async def choose(self, machine: TableMachine) -> Action | None:
        assert machine.seat is not None
        snap = self._snapshot(machine)
        lang = self.look.lang
        actions = list(machine.engine.legal_actions(machine.seat))
        cards = P.cards_text([c for c in snap.hand if c is not None], self.look)
        self.write(tr(lang, "line.hand", cards=cards or tr(lang, "hand.empty")))
        self.write(standings_line(snap, self.look))
        for key, values in snap.notes:
            self.write(tr(lang, "line.note", text=P.note_text(snap, key, values, self.look)))
        for number, action in enumerate(actions, 1):
            self.write(f"  {number}) {P.action_text(action, self.look)}")
        while True:
            try:
                answer = await trio.to_thread.run_sync(
                    self.read, tr(lang, "line.choice", n=len(actions)), abandon_on_cancel=True
                )
            except EOFError:
                # stdin is closed: say so once and leave this seat's turns to the step timeout,
                # as node/line_driver.py does (returning None had the node ask again at once,
                # re-prompting forever)
                if not self.stdin_closed:
                    self.stdin_closed = True
                    self.write(tr(lang, "line.stdin_closed"))
                await trio.sleep_forever()
            answer = answer.strip()
            if answer.isdigit() and 1 <= int(answer) <= len(actions):
                return actions[int(answer) - 1]
            self.write(tr(lang, "line.bad_choice", n=len(actions)))


def snap_with_chat(snap: TableSnapshot, event: ChatReceived) -> TableSnapshot:
    return replace(snap, chat=((event.seat, event.text),))
