"""Helpers for the terminal-client tests: a scriptable session and a key-driving runner."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from dealerless.client.bots import bot_for
from dealerless.client.tui.app import TableApp
from dealerless.client.tui.model import TableSnapshot
from dealerless.client.tui.session import LocalSession
from dealerless.protocol.cards import Card
from dealerless.protocol.messages import IdentityKey
from dealerless.protocol.rules.base import Action, HandResult
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig


def snapshot(
    legal: Sequence[Action] = (),
    hand: Sequence[Card] = (),
    *,
    my_turn: bool = True,
    over: bool = False,
    results: Sequence[HandResult] = (),
    **changes: Any,
) -> TableSnapshot:
    snap = TableSnapshot(
        game="tuppen",
        title="Tuppen",
        score_kind="penalty points",
        seat=0,
        names=("ann", "bob", "cy", "dee"),
        hand_number=1,
        dealer=3,
        scores=(0, 1, 2, 3),
        phase="play",
        rules_phase="play",
        to_act=(0,) if my_turn else (1,),
        arbiter=0 if my_turn else 1,
        my_turn=my_turn,
        may_act=bool(legal),
        legal=tuple(legal),
        hand=tuple(sorted(hand)),
        trick=(),
        leader=None,
        last_trick=None,
        statuses=(("to_act",), (), (), ()),
        info=(("info.stake", 1),),
        log=(),
        over=over,
        results=tuple(results),
    )
    return replace(snap, **changes) if changes else snap


class FakeSession:
    """A TableSession whose snapshot the test sets; records moves and chat."""

    def __init__(self, snap: TableSnapshot) -> None:
        self.snap = snap
        self.acted: list[Action] = []
        self.chat: list[str] = []
        self.changes: list[str] = []
        self.started = 0
        self.closed = 0
        keys = [IdentityKey.generate() for _ in snap.names]
        game = make_config("tuppen", len(snap.names))
        self._config = TableConfig(
            bytes(16),
            game,
            tuple(SeatInfo(n, k.peer_id.raw) for n, k in zip(snap.names, keys, strict=True)),
        )

    seat = 0

    @property
    def names(self) -> tuple[str, ...]:
        return self.snap.names

    @property
    def config(self) -> TableConfig:
        return self._config

    def start(self) -> None:
        self.started += 1

    def snapshot(self) -> TableSnapshot:
        return self.snap

    def act(self, action: Action) -> None:
        self.acted.append(action)
        # a real session's table changes after every move (the move, or its refusal)
        self.snap = replace(self.snap, version=self.snap.version + 1)

    def send_chat(self, text: str) -> None:
        self.chat.append(text)

    def want_change(self, change: str) -> None:
        self.changes.append(change)

    def subscribe(self, listener: Callable[[], None]) -> None:
        pass

    def wait_changed(self, version: int, timeout: float | None = None) -> int:
        return version

    def save_transcript(self, path: Path) -> None:
        path.write_bytes(b"x")

    def close(self) -> None:
        self.closed += 1


def run_keys(
    session: Any, keys: Sequence[str], *, lang: str = "en", **kw: Any
) -> tuple[int, TableApp]:
    """Run the table app on a pipe input fed with ``keys`` (the last keys must quit it)."""
    with create_pipe_input() as inp:
        app = TableApp(session, lang=lang, input=inp, output=DummyOutput(), clock=lambda: 0.0, **kw)
        for key in keys:
            inp.send_text(key)
        code = app.run()
    return code, app


def screen_output() -> tuple[Vt100_Output, io.StringIO]:
    """An 80x24 terminal that writes into a string (to look at what was drawn)."""
    buffer = io.StringIO()
    out = Vt100_Output(buffer, lambda: Size(rows=24, columns=80), term="xterm")
    return out, buffer


def play_by_bot(
    session: LocalSession,
    seed: int = 7,
    until_hands: int | None = None,
    on_decision: Callable[[TableSnapshot], None] | None = None,
) -> None:
    """Drive a non-threaded LocalSession to its end (or ``until_hands`` finished hands), the
    human seat played by the bot; ``on_decision`` sees every snapshot where the human may act."""
    bot = bot_for(session.config.game.game)
    rng = random.Random(seed)
    session.start(threaded=False)
    for _ in range(5000):
        session.run_until_idle()
        snap = session.snapshot()
        if snap.over or (until_hands is not None and len(snap.results) >= until_hands):
            return
        if on_decision is not None and snap.legal:
            on_decision(snap)
        assert snap.my_turn, f"stalled: {snap.phase} waits for {snap.arbiter}"
        action = bot(session.machine.engine, session.seat or 0, rng, True)
        assert action is not None
        session.act(action)
    raise AssertionError("game did not end")


async def drive(
    app: TableApp,
    choose: Callable[[TableSnapshot], str | None],
    done: Callable[[TableSnapshot], bool],
    send: Callable[[str], None],
) -> None:
    """Press keys chosen from the screen state until ``done``; then quit."""
    last_version, idle, sent = -1, 0, 0
    for _ in range(6000):
        if done(app.session.snapshot()):
            break
        # Keys act on the frame last drawn, so choose from that frame, not from a newer state
        # the screen has not drawn yet (a card index there can name a card already played).
        snap = app.snap
        idle += 1
        if idle > 500 and len(app.ui.sent) == sent:
            # A key read by the screen before it drew the state the key was chosen from does
            # nothing and nothing changes; a player would press it again, so does this one.
            # Only if the screen sent no move for it: a move sent and still on its way (a
            # loaded machine can take seconds) must not be sent again, or a card no longer
            # held is played.
            last_version, idle = -1, 0
        fresh = snap.version != last_version or app.ui.summary or app.ui.chooser
        key = choose(snap) if fresh else None
        if key is not None:
            last_version, idle, sent = snap.version, 0, len(app.ui.sent)
            send(key)
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("the game did not get there")
