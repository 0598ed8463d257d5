"""The node's progress messages (``say``, English, for logs) as the screen shows them:
translated where the client knows them, dropped where the table screen already shows the same
thing from the table's own events (a hand starting or ending, the game over, a timeout vote),
escaped otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.safe_text import printable

_Rule = tuple[re.Pattern[str], Callable[[str, re.Match[str]], str]]

_RULES: tuple[_Rule, ...] = (
    (
        re.compile(r"^connected; \d+ other peer\(s\) present$"),
        lambda lg, m: tr(lg, "node.connected"),
    ),
    (re.compile(r"^hand \d+ (starts|ended|aborted)\b"), lambda lg, m: ""),
    (re.compile(r"^game over: "), lambda lg, m: ""),
    (re.compile(r" is too slow: we voted to time them out$"), lambda lg, m: ""),
    (
        re.compile(r"^transcript: (\d+) records, verified by replay$"),
        lambda lg, m: tr(lg, "node.verified", n=m.group(1)),
    ),
    (re.compile(r"^transcript: .*NOT verified"), lambda lg, m: tr(lg, "node.not_verified")),
    (
        re.compile(r"^waiting for (.+) \((\d+) s\)$"),
        lambda lg, m: tr(lg, "node.waiting", name=printable(m.group(1), 40), seconds=m.group(2)),
    ),
    (re.compile(r"^link lost\b"), lambda lg, m: tr(lg, "node.link_lost")),
    (
        re.compile(r"^table ready: (\S+), (\d+) seats; we are seat \d+ \((.*)\)$"),
        lambda lg, m: tr(
            lg, "node.ready", game=m.group(1), seats=m.group(2), name=printable(m.group(3), 40)
        ),
    ),
    (re.compile(r"refused.*the table is full"), lambda lg, m: tr(lg, "node.refused_full")),
)


def node_notice(text: str, lang: str) -> str:
    """What the screen shows for one node message ("" for nothing)."""
    for pattern, make in _RULES:
        match = pattern.search(text)
        if match is not None:
            return make(lang, match)
    return printable(text, 200)


def table_full(text: str) -> bool:
    """Whether a node message is the refusal of a seat at a full table."""
    return _RULES[-1][0].search(text) is not None
