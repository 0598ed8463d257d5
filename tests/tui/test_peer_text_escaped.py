"""Text from peers (names, chat, reasons) never reaches the terminal as control characters or
escape sequences: the screen, the lobby, line mode and the audit show them as visible escapes
(issue 11, property 6)."""

from __future__ import annotations

from tui_helpers import snapshot

from dealerless.client.line_mode import TextLineDriver
from dealerless.client.tui import presenter as P
from dealerless.client.tui.lobby import lobby_text
from dealerless.client.tui.node_session import LobbyState
from dealerless.client.tui.node_text import node_notice
from dealerless.client.tui.safe_text import printable
from dealerless.node.notices import Who, notice, text_notice
from dealerless.protocol.rules.base import HandResult
from dealerless.protocol.rules.reasons import HandEnd
from dealerless.protocol.table.events import ChatReceived, HandEnded, Violation

CLEAR = "\x1b[2J\x1b[H"  # clear the screen, cursor home
CLIPBOARD = "\x1b]52;c;ZWNobyBvd25lZA==\x07"  # OSC 52: set the clipboard
BIDI = "\u202e"  # right-to-left override: reverses what follows
NASTY = f"eve{CLEAR}{CLIPBOARD}{BIDI}\r\b\x00"
EN = P.Look("en")


def clean(text: str) -> bool:
    return not any(ord(c) < 0x20 or c in "\x7f\u202e" for c in text.replace("\n", ""))


def test_printable_shows_controls_as_escapes() -> None:
    assert printable("a\x1b[31mb") == "a\\x1b[31mb"
    assert printable("\u202edcba") == "\\u202edcba"
    assert printable("Jürgen ♥ 7♣") == "Jürgen ♥ 7♣"  # letters and symbols stay
    assert printable("x" * 50, 10) == "x" * 9 + "…"


def test_names_chat_and_reasons_on_the_table_screen() -> None:
    snap = snapshot(names=("ann", NASTY, "cy", "dee"), chat=((1, f"hi{CLEAR}"),))
    seats = "".join(t for _, t, *_ in P.seats(snap, EN))
    assert clean(seats) and "eve\\x1b[2J" in seats
    assert all(clean(line) for line in P.chat_lines(snap, EN))
    violation = Violation(culprit=1, reason=f"bad{CLIPBOARD}")
    result = HandResult(1, (), (0, 1, 0, 0), "x", {}, HandEnd.VOIDED, f"seat 1 {CLEAR}")
    lines = P.event_lines(snap, violation, EN) + P.event_lines(snap, HandEnded(result), EN)
    assert lines and all(clean(line) for line in lines)
    assert all(clean(line) for line in P.summary(snap, EN, result))


def test_names_and_messages_in_the_lobby() -> None:
    lobby = LobbyState(role="host", name="ann", game="tuppen", seats=3, names=["ann", NASTY])
    lobby.messages = [
        notice("joined", who=Who(name=NASTY), fingerprint="AB12", count=2, seats=3),
        text_notice(f"'{NASTY}' joined (2/3)"),
    ]
    shown = "".join(t for _, t, *_ in lobby_text(lobby, "en"))
    assert clean(shown)
    assert clean(node_notice(notice("refused_from", who=Who(name=NASTY), reason="x"), "en"))


def test_chat_in_line_mode() -> None:
    from dealerless.client.tui.session import LocalSession
    from dealerless.protocol.rules.registry import make_config

    session = LocalSession(make_config("tuppen", 2), seed=1, human_name=NASTY)
    session.start(threaded=False)
    written: list[str] = []
    driver = TextLineDriver("en", write=written.append)
    driver.on_events(session.machine, [ChatReceived(seat=1, text=f"hello{CLEAR}")])
    driver.on_events(session.machine, list(session.snapshot().log))
    assert written and all(clean(line) for line in written)
