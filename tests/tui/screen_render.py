"""The table screen drawn into prompt_toolkit's in-memory screen at any size, read back as
rows of text: what a terminal of that size would show, without a terminal."""

from __future__ import annotations

import io
from typing import Any

from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output.vt100 import Vt100_Output

from dealerless.client.tui.app import TableApp


def sized_app(session: Any, columns: int, rows: int, lang: str = "en", **kw: Any) -> TableApp:
    """A table screen on a terminal of ``columns`` x ``rows`` (nothing is run)."""
    size = Size(rows=rows, columns=columns)
    output = Vt100_Output(io.StringIO(), lambda: size, term="xterm")
    with create_pipe_input() as inp:
        return TableApp(session, lang=lang, input=inp, output=output, clock=lambda: 0.0, **kw)


def draw(app: TableApp) -> list[str]:
    """One frame of ``app`` (its state as it is now), as the rows of the terminal."""
    size = app.app.output.get_size()
    screen = Screen()
    with set_app(app.app):
        app._before_render()
        app.app.render_counter += 1  # a new frame: the windows draw anew, not from their cache
        position = WritePosition(0, 0, size.columns, size.rows)
        app.layout.container.write_to_screen(screen, MouseHandlers(), position, "", False, None)
        screen.draw_all_floats()
    return [
        "".join(screen.data_buffer[y][x].char for x in range(size.columns)).rstrip()
        for y in range(size.rows)
    ]


def words(rows: list[str]) -> set[str]:
    """Every word on the screen (what is between spaces and the frames' lines)."""
    found: set[str] = set()
    for row in rows:
        for sep in "│|┌┐└┘─":
            row = row.replace(sep, " ")
        found.update(row.split())
    return found
