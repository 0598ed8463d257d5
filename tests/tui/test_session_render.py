"""LocalSession clocks and timeouts; drawing at several sizes, in colour and monochrome."""

from __future__ import annotations

import io
import re

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from dealerless.client.tui import presenter as P
from dealerless.client.tui.app import TableApp
from dealerless.client.tui.session import LocalSession, TableSession
from dealerless.protocol.rules.registry import make_config


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_local_session_is_a_table_session() -> None:
    session = LocalSession(make_config("tuppen", 2), seed=1)
    assert isinstance(session, TableSession)


def test_a_silent_human_is_timed_out_and_the_countdown_says_so() -> None:
    clock = FakeClock()
    session = LocalSession(
        make_config("tuppen", 3), seed=4, human_name="ann", step_timeout_ms=5000, clock=clock
    )
    session.start(threaded=False)
    session.run_until_idle()
    snap = session.snapshot()
    assert snap.my_turn and snap.deadline is not None
    look = P.Look("en", False)
    text = "".join(t for _, t, *_ in P.countdown(snap, look, snap.now))
    assert "5s left for ann (you)" in text
    clock.now += 6.0
    session.run_until_idle()
    after = session.snapshot()
    lines = P.log_lines(after, look)
    assert any("ann (you) is silent" in line for line in lines) or any(
        "(by timeout)" in line for line in lines
    ), lines[-5:]


def draw(size: Size, *, mono: bool, game: str = "belote") -> str:
    session = LocalSession(make_config(game, 4), seed=8, human_name="ann")
    session.start(threaded=False)
    buffer = io.StringIO()
    output = Vt100_Output(buffer, lambda: size, term="xterm")
    with create_pipe_input() as inp:
        app = TableApp(session, input=inp, output=output, mono=mono, clock=lambda: 0.0)
        session.run_until_idle()  # the deal is done before the first frame
        inp.send_text("?")
        inp.send_text("x")
        inp.send_text("q")
        inp.send_text("y")
        assert app.run() == 0
    return buffer.getvalue()


@pytest.mark.parametrize("size", [Size(24, 80), Size(40, 120), Size(12, 40)])
def test_draws_at_any_size(size: Size) -> None:
    drawn = draw(size, mono=False)
    plain = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", drawn)
    assert "Belote" in plain
    if size.columns >= 80:
        assert "hand:" in plain and "moves:" in plain and "Quit? (y/n)" in plain


def test_monochrome_has_no_colours() -> None:
    colour = draw(Size(24, 80), mono=False)
    mono = draw(Size(24, 80), mono=True)
    colours = re.compile(r"\x1b\[[0-9;]*(38|48);")
    assert colours.search(colour)
    assert not colours.search(mono)
    assert "\x1b[7m" in mono or ";7m" in mono or "7;" in mono  # reverse video still marks
