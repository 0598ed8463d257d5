"""Text fitted to the screen: lines wrapped at spaces (prompt_toolkit's own wrapping cuts
words), panels that keep their key line in view, paths shortened to ``~``.

Pure functions over strings and formatted text; the tests call them directly.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth

Line = list[tuple[str, str]]  # one screen line of (style, character) pairs


def _split_chars(fragments: StyleAndTextTuples) -> list[Line]:
    """The fragments as lines of single characters, each with its style."""
    lines: list[Line] = [[]]
    for fragment in fragments:
        style, text = fragment[0], fragment[1]
        if "[ZeroWidthEscape]" in style:
            continue
        for char in text:
            if char == "\n":
                lines.append([])
            else:
                lines[-1].append((style, char))
    return lines


def _join(line: Line) -> StyleAndTextTuples:
    """Characters back into fragments (neighbours of one style merged)."""
    out: StyleAndTextTuples = []
    for style, char in line:
        if out and out[-1][0] == style:
            out[-1] = (style, out[-1][1] + char)
        else:
            out.append((style, char))
    return out


def _break_line(line: Line, width: int) -> list[Line]:
    """One line cut into pieces of at most ``width`` columns, at the last space that fits;
    a word wider than ``width`` is cut where it must be. Continuation lines keep the line's
    indent (a history's moves stay under their hand)."""
    indent = len(line) - len(_lstrip(line))
    if indent >= width // 2:
        indent = 0
    pieces: list[Line] = []
    rest = line
    first = True
    while True:
        room = width if first else width - indent
        widths = [get_cwidth(c) for _, c in rest]
        if sum(widths) <= room:
            pieces.append(rest if first else [*line[:indent], *rest])
            return pieces
        used, cut = 0, 0
        while cut < len(rest) and used + widths[cut] <= room:
            used += widths[cut]
            cut += 1
        # the last space that fits (one just after the room counts: the line ends before it)
        spaces = [i for i in range(1, min(cut + 1, len(rest))) if rest[i][1] == " "]
        at = spaces[-1] if spaces else max(cut, 1)  # no space: the word is cut
        head, tail = rest[:at], rest[at:]
        pieces.append(_rstrip(head) if first else [*line[:indent], *_rstrip(head)])
        rest = _lstrip(tail)
        first = False
        if not rest:
            return pieces


def _lstrip(line: Line) -> Line:
    i = 0
    while i < len(line) and line[i][1] == " ":
        i += 1
    return line[i:]


def _rstrip(line: Line) -> Line:
    i = len(line)
    while i > 0 and line[i - 1][1] == " ":
        i -= 1
    return line[:i]


def wrap_fragments(fragments: StyleAndTextTuples, width: int) -> list[StyleAndTextTuples]:
    """Formatted text as screen lines of at most ``width`` columns, broken at spaces."""
    width = max(1, width)
    return [_join(piece) for line in _split_chars(fragments) for piece in _break_line(line, width)]


def wrap_lines(lines: Sequence[str], width: int) -> list[str]:
    """Plain lines wrapped at spaces to ``width`` columns (an empty line stays one)."""
    return [
        "".join(fragment[1] for fragment in piece)
        for line in lines
        for piece in wrap_fragments([("", line)], width)
    ]


def short_path(path: Path | str, home: Path | None = None) -> str:
    """``path`` with the home folder written ``~`` (what a player types and reads)."""
    text = str(path)
    base = str(home if home is not None else Path(os.path.expanduser("~")))
    if base not in ("", "/", "~") and (text == base or text.startswith(base.rstrip("/") + "/")):
        return "~" + text[len(base.rstrip("/")) :]
    return text


def fit_panel(
    body: Sequence[str], footer: Sequence[str], height: int, top: int, more: str
) -> tuple[list[str], int]:
    """A panel of at most ``height`` lines whose ``footer`` (its keys) is always shown.

    A body too tall for the room above the footer shows from line ``top`` on, with ``more``
    (a text with ``{above}`` and ``{below}``) on the last line of the body part. Returns the
    lines and ``top`` kept within the body."""
    footer = list(footer)
    gap = [""] if body else []
    if len(body) + len(gap) + len(footer) <= height:
        return [*body, *gap, *footer], 0
    room = max(1, height - len(footer) - 1)  # one line says what is hidden
    top = max(0, min(top, len(body) - room))
    shown = list(body[top : top + room])
    below = len(body) - top - len(shown)
    return [*shown, more.format(above=top, below=below), *footer], top


def last_lines(fragments: StyleAndTextTuples, count: int) -> StyleAndTextTuples:
    """The last ``count`` lines of formatted text (a log window shows no more than that)."""
    out: StyleAndTextTuples = []
    breaks = 0
    for fragment in reversed(fragments):
        style, text = fragment[0], fragment[1]
        found = text.count("\n")
        if breaks + found < count:
            breaks += found
            out.append((style, text))
            continue
        keep = text.split("\n")[-(count - breaks) :]
        out.append((style, "\n".join(keep)))
        break
    return out[::-1]
