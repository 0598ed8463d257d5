"""prompt_toolkit containers for the parts of the table screen, and the colour styles."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    VSplit,
    Window,
)
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

TextFn = Callable[[], StyleAndTextTuples]

STYLE = Style.from_dict(
    {
        "title": "reverse bold",
        "header": "bold",
        "header.dim": "",
        "label": "bold",
        "dim": "#888888",
        "seat.marker": "bold #ffaf00",
        "seat.me": "bold #5fafff",
        "seat.acting": "underline",
        "seat.score": "",
        "seat.status": "#afaf5f",
        "card.red": "#ff5f5f",
        "card.black": "",
        "card.hidden": "#888888",
        "card.legal": "bold",
        "card.illegal": "#6c6c6c",
        "card.selected": "reverse",
        "card.number": "#888888",
        "key": "bold #ffaf00",
        "action": "",
        "action.selected": "reverse",
        "countdown": "#afaf5f",
        "countdown.urgent": "bold #ff5f5f",
        "log": "",
        "chat": "#87afaf",
        "overlay": "bg:#262626 #ffffff",
        "frame.border": "#888888",
        "menu.selected": "reverse",
        "error": "bold #ff5f5f",
        "note": "#d7af87",
        "seat.team": "#87afd7",
    }
)


def last_line_point(fragments: StyleAndTextTuples) -> tuple[int, int]:
    """(column, line) of the end of the last line: where a log keeps its cursor so that the
    window always shows its newest line in full, also when that line wraps."""
    text = "".join(t for _, t, *_ in fragments)
    lines = text.split("\n")
    return len(lines[-1]), len(lines) - 1


def text_window(
    fn: TextFn,
    *,
    height: int | Dimension | Callable[[], int] | None = None,
    wrap: bool = True,
    bottom: bool = False,
    width: int | Dimension | None = None,
) -> Window:
    """A window over a text function; ``bottom`` keeps the last line in view (logs)."""
    if bottom:

        def cursor() -> Point:
            x, y = last_line_point(fn())
            return Point(x, y)

        control = FormattedTextControl(fn, focusable=False, get_cursor_position=cursor)
    else:
        control = FormattedTextControl(fn, focusable=False)
    return Window(control, height=height, width=width, wrap_lines=wrap)


def overlay(body: Container, title: str | Callable[[], str], visible: Callable[[], bool]) -> Float:
    return Float(
        ConditionalContainer(
            Frame(body, title=title, style="class:overlay"), filter=Condition(visible)
        )
    )


def table_layout(
    *,
    header: TextFn,
    seats: TextFn,
    seats_height: int | Callable[[], int],
    trick: TextFn,
    hand: TextFn,
    actions: TextFn,
    status: TextFn,
    log: TextFn,
    chat: TextFn,
    chat_input: BufferControl,
    chat_active: Callable[[], bool],
    floats: list[Float],
    too_small: Callable[[], StyleAndTextTuples | None] = lambda: None,
) -> FloatContainer:
    """The table screen; below 80x24 a notice on the first line says so (the parts that do not
    fit would vanish without a word)."""
    body = HSplit(
        [
            ConditionalContainer(
                text_window(lambda: too_small() or [], height=1, wrap=False),
                filter=Condition(lambda: too_small() is not None),
            ),
            text_window(header, height=1, wrap=False),
            text_window(seats, height=seats_height, wrap=False),
            text_window(trick, height=Dimension(min=1, max=2, preferred=1)),
            text_window(hand, height=Dimension(min=1, max=2, preferred=1)),
            text_window(actions, height=Dimension(min=1, max=4)),
            text_window(status, height=1, wrap=False),
            Window(height=1, char="-", style="class:dim"),
            VSplit(
                [
                    text_window(log, bottom=True),
                    Window(width=1, char="|", style="class:dim"),
                    text_window(chat, bottom=True, width=Dimension(preferred=26, max=30)),
                ],
                # the spare rows go to the log (the parts above take what they need)
                height=Dimension(min=0, weight=40),
            ),
            ConditionalContainer(
                VSplit([Window(chat_input, height=1)]), filter=Condition(chat_active)
            ),
        ]
    )
    return FloatContainer(content=body, floats=floats)
