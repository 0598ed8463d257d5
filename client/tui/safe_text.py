"""Text from peers (names, chat, reasons) made safe to print: control characters and terminal
escape sequences are shown as visible escapes (``\\x1b``) instead of reaching the terminal.

A peer's name or chat line is signed data, so it cannot be changed in transit, but its author
can put anything into it: an ESC sequence could move the cursor, recolour or clear the screen,
set the window title or (OSC 52) the clipboard. Everything shown from a peer goes through
:func:`printable`, on the full screen and in line mode.
"""

from __future__ import annotations

import unicodedata

__all__ = ["printable"]


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str, limit: int | None = None) -> str:
    """``text`` with every control, format (bidi overrides, zero-width), surrogate, private-use
    or unassigned character replaced by its visible escape; cut to ``limit`` characters."""
    out = []
    for char in text:
        category = unicodedata.category(char)
        out.append(_escape(char) if category[0] == "C" else char)
    result = "".join(out)
    if limit is not None and len(result) > limit:
        result = result[: max(0, limit - 1)] + "…"
    return result
