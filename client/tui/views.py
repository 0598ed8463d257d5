"""prompt_toolkit containers for the parts of the table screen, and the colour styles."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application.current import get_app
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
from prompt_toolkit.layout.controls import (
    BufferControl,
    FormattedTextControl,
    GetLinePrefixCallable,
    UIContent,
    UIControl,
)
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.styles import Style
from prompt_toolkit.utils import get_cwidth
from prompt_toolkit.widgets import Frame

from dealerless.client.tui.wrap import last_lines, wrap_fragments

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
    window always shows its newest line in full."""
    text = "".join(t for _, t, *_ in fragments)
    lines = text.split("\n")
    return len(lines[-1]), len(lines) - 1


class WrappedText(UIControl):
    """Formatted text wrapped at spaces to the window's width (prompt_toolkit's own wrapping
    cuts words in two). ``bottom``: the newest line stays in view (logs), and only the last
    lines a window can show are wrapped (a long game's log is long)."""

    def __init__(self, fn: TextFn, *, bottom: bool = False) -> None:
        self.fn = fn
        self.bottom = bottom
        self._key: tuple[int, int, int | None] | None = None
        self._lines: list[StyleAndTextTuples] = []
        self._frame = -1
        self._text: StyleAndTextTuples = []

    def text(self) -> StyleAndTextTuples:
        """The text of this frame (asked for several times a frame: made once)."""
        frame = get_app().render_counter
        if frame != self._frame:
            self._frame, self._text = frame, self.fn()
        return self._text

    def lines(self, width: int, height: int | None = None) -> list[StyleAndTextTuples]:
        key = (get_app().render_counter, width, height if self.bottom else None)
        if key != self._key:
            fragments = self.text()
            if self.bottom and height is not None:
                fragments = last_lines(fragments, height)
            lines = wrap_fragments(fragments, width)
            if len(lines) > 1 and not lines[-1]:  # the parts end their text with a newline
                lines.pop()
            self._key, self._lines = key, lines
        return self._lines

    def is_focusable(self) -> bool:
        return False

    def preferred_width(self, max_available_width: int) -> int | None:
        text = "".join(fragment[1] for fragment in self.text())
        return min(max_available_width, max((get_cwidth(x) for x in text.split("\n")), default=0))

    def preferred_height(
        self,
        width: int,
        max_available_height: int,
        wrap_lines: bool,
        get_line_prefix: GetLinePrefixCallable | None,
    ) -> int | None:
        return len(self.lines(width, max_available_height))

    def create_content(self, width: int, height: int | None) -> UIContent:
        lines = self.lines(width, height)
        end, _ = last_line_point(lines[-1] if lines else [])
        cursor = Point(x=end, y=len(lines) - 1) if self.bottom else Point(x=0, y=0)
        return UIContent(get_line=lambda i: lines[i], line_count=len(lines), cursor_position=cursor)


def text_window(
    fn: TextFn,
    *,
    height: int | Dimension | Callable[[], int] | None = None,
    wrap: bool = True,
    bottom: bool = False,
    width: int | Dimension | Callable[[], int] | None = None,
) -> Window:
    """A window over a text function, wrapped at spaces unless ``wrap`` is off; ``bottom``
    keeps the last line in view (logs)."""
    if wrap:
        # as tall as its text (a log fills the room it has)
        wrapped = WrappedText(fn, bottom=bottom)
        return Window(wrapped, height=height, width=width, dont_extend_height=not bottom)
    control = FormattedTextControl(fn, focusable=False)
    return Window(control, height=height, width=width, wrap_lines=False)


def overlay(body: Container, title: str | Callable[[], str], visible: Callable[[], bool]) -> Float:
    return Float(
        ConditionalContainer(
            Frame(body, title=title, style="class:overlay"), filter=Condition(visible)
        )
    )


def screen_columns() -> int:
    return get_app().output.get_size().columns


# From this width on the hand history has a column of its own between the log and the chat.
WIDE = 140


def chat_columns(columns: int) -> int:
    """The chat's width: 26 columns at 80, a third of a wider screen (at most 60)."""
    return max(26, min(60, columns // 3))


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
    history: TextFn = lambda: [],
) -> FloatContainer:
    """The table screen; below 80x24 a notice on the first line says so (the parts that do not
    fit would vanish without a word). A wide screen shows the hand history beside the log."""
    body = HSplit(
        [
            ConditionalContainer(
                text_window(lambda: too_small() or [], height=1, wrap=False),
                filter=Condition(lambda: too_small() is not None),
            ),
            # each part as tall as its text wrapped to the width (within bounds): a part given
            # fewer rows than its text needs would lose its end (the last trick's last card)
            text_window(header, height=Dimension(min=1, max=3)),  # Pottuppen: every bet
            text_window(seats, height=seats_height, wrap=False),
            text_window(trick, height=Dimension(min=1, max=3)),
            text_window(hand, height=Dimension(min=1, max=2)),
            text_window(actions, height=Dimension(min=1, max=5)),
            text_window(status, height=Dimension(min=1, max=3)),
            Window(height=1, char="-", style="class:dim"),
            VSplit(
                [
                    text_window(log, bottom=True),
                    Window(width=1, char="|", style="class:dim"),
                    ConditionalContainer(
                        VSplit(
                            [
                                text_window(history, bottom=True),
                                Window(width=1, char="|", style="class:dim"),
                            ]
                        ),
                        filter=Condition(lambda: screen_columns() >= WIDE),
                    ),
                    text_window(chat, bottom=True, width=lambda: chat_columns(screen_columns())),
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
