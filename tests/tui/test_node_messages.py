"""Every message a node can say reaches the screen translated (English, German, Dutch, French), with
seats by name and no Python repr, or is dropped where the screen shows the same from table
events; a new ``say(...)`` in node/ without samples here fails; an unknown message is shown
escaped and logged."""

from __future__ import annotations

import ast
import logging
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from node_message_samples import SAMPLES

from dealerless.client.tui import i18n
from dealerless.client.tui import node_text as NT
from dealerless.client.tui.lobby import closing_lines, lobby_text
from dealerless.client.tui.node_session import DriverSession, LobbyState

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / "node"
REFUSED = "the host refused us: "  # how a joiner's node tells a host's refusal (a reason)


@dataclass(frozen=True)
class Site:
    key: str  # "file: template"
    where: str  # file:line
    pattern: re.Pattern[str]  # what a concrete message of this place looks like
    phrases: frozenset[str]  # the node's English, three words at a time


def template(expr: ast.expr) -> str:
    """The message's format: literal text, ``{}`` for a value, ``{a|b}`` for a choice."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.JoinedStr):
        return "".join(template(v) for v in expr.values)
    if isinstance(expr, ast.FormattedValue):
        return template(expr.value) if isinstance(expr.value, ast.IfExp) else "{}"
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return template(expr.left) + template(expr.right)
    if isinstance(expr, ast.IfExp):
        return "{" + template(expr.body) + "|" + template(expr.orelse) + "}"
    return "{" + ast.unparse(expr) + "}"


def regex(expr: ast.expr) -> str:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return re.escape(expr.value)
    if isinstance(expr, ast.JoinedStr):
        return "".join(regex(v) for v in expr.values)
    if isinstance(expr, ast.FormattedValue):
        return regex(expr.value) if isinstance(expr.value, ast.IfExp) else ".*?"
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return regex(expr.left) + regex(expr.right)
    if isinstance(expr, ast.IfExp):
        return f"(?:{regex(expr.body)}|{regex(expr.orelse)})"
    return ".*"


def _said(node: ast.AST) -> tuple[ast.expr, str] | None:
    """The message argument of a call or raise that makes a node message, and its prefix."""
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if (name == "say" or name.endswith("_say") or name in ("_stop", "give_up")) and node.args:
            return node.args[0], ""
        if name == "refuse" and len(node.args) == 2:  # the host's reason, told by the joiner
            return node.args[1], re.escape(REFUSED)
    if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
        raised = getattr(node.exc.func, "id", "")
        if raised == "FatalLinkError":  # said as it is by the node (seat.py: str(exc))
            return node.exc.args[0], ""
    return None


def _sites_in(path: Path) -> list[Site]:
    sites = []
    label = path.name
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        found = _said(node)
        if path.name == "relay_pins.py" and isinstance(node, ast.Raise):
            # its ValueErrors become FatalLinkErrors (node/app.py), said as they are
            exc = node.exc
            if isinstance(exc, ast.Call) and getattr(exc.func, "id", "") == "ValueError":
                found = (exc.args[0], "")
        if path.parent.name == "tui" and isinstance(node, ast.Call):
            # the client's own lines among the node's (lobby.messages.append("..."))
            func = node.func
            found = None
            if isinstance(func, ast.Attribute) and func.attr == "append" and node.args:
                owner = func.value
                if isinstance(owner, ast.Attribute) and owner.attr == "messages":
                    found = (node.args[0], "")
        if found is None:
            continue
        expr, prefix = found
        form = template(expr)
        pattern = re.compile(prefix + regex(expr), re.DOTALL)
        english = (REFUSED if prefix else "") + form
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        sites.append(Site(f"{label}: {form[:48]}", where, pattern, _phrases(english)))
    return sites


def all_sites() -> list[Site]:
    sites: list[Site] = []
    for path in sorted(NODE.rglob("*.py")):
        sites.extend(_sites_in(path))
    for path in sorted((ROOT / "client" / "tui").glob("*.py")):
        sites.extend(_sites_in(path))
    return sites


def _phrases(english: str) -> frozenset[str]:
    """Three words at a time of each literal piece (not across a value or a choice);
    command-line options (--min-step-timeout) are the same in every language."""
    phrases = set()
    for piece in re.split(r"[{}|]", re.sub(r"--[\w-]+", "|", english)):
        words = re.findall(r"[a-z]+", piece.lower())
        phrases |= {" ".join(words[i : i + 3]) for i in range(len(words) - 2)}
    return frozenset(phrases)


SITES = all_sites()


def test_every_place_that_makes_a_node_message_has_samples() -> None:
    assert len(SITES) > 50, "the scan found too few say() calls: is it still looking?"
    missing = sorted({f"{s.where}  {s.key!r}" for s in SITES if s.key not in SAMPLES})
    assert not missing, "node messages without samples in node_message_samples.py:\n" + "\n".join(
        missing
    )
    stale = sorted(set(SAMPLES) - {s.key for s in SITES})
    assert not stale, f"samples for places that no longer exist: {stale}"


@pytest.mark.parametrize("site", SITES, ids=lambda s: s.where)
def test_each_sample_is_a_message_of_its_place(site: Site) -> None:
    samples = SAMPLES.get(site.key)
    if not isinstance(samples, tuple):
        return  # passes on messages listed elsewhere (or has none: the test above fails)
    assert samples
    for sample in samples:
        assert site.pattern.fullmatch(sample), (site.where, sample)


def _samples() -> list[str]:
    return sorted({m for v in SAMPLES.values() if not isinstance(v, str) for m in v})


def _pairs() -> list[object]:
    pairs = {}
    for site in SITES:
        samples = SAMPLES.get(site.key, ())
        for n, sample in enumerate(() if isinstance(samples, str) else samples):
            pairs[(site.key, sample)] = pytest.param(site, sample, id=f"{site.where}-{n}")
    return list(pairs.values())


@pytest.mark.parametrize(("site", "message"), _pairs())
def test_every_node_message_is_translated_with_names_and_no_repr(site: Site, message: str) -> None:
    i18n.MISSING.clear()
    shown = {lang: NT.node_notice(message, lang) for lang in i18n.LANGUAGES}
    assert not i18n.MISSING, sorted(i18n.MISSING)
    if not shown["en"]:  # dropped: the screen shows it from the table's events
        assert shown == dict.fromkeys(i18n.LANGUAGES, "")
        return
    for lang, text in shown.items():
        assert text.strip(), (lang, message)
        assert not re.search(r"\bseat \d", text), (lang, text)  # seats by name
        assert "'bob'" not in text and "'mallory'" not in text and "'ab" not in text, text
        assert not re.search(r"\w\(\w+=|\[\d", text), (lang, text)  # no Python repr
        if "bob" in message:
            assert "bob" in text, (lang, text)
        if lang != "en":
            assert text != shown["en"], (lang, message)
            leaked = site.phrases & _phrases(text)
            assert not leaked, (lang, text, leaked)


def test_every_rule_of_the_screen_layer_has_a_sample() -> None:
    used = set()
    for message in _samples():
        for rule in NT.RULES:
            if rule.pattern.search(message):
                used.add(rule.name)
                break
    assert used == {rule.name for rule in NT.RULES}, {r.name for r in NT.RULES} - used


def test_an_unknown_message_is_escaped_and_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    text = "a message no rule knows \x1b[2J from test_node_messages"
    with caplog.at_level(logging.DEBUG, logger=NT.LOG.name):
        first = NT.node_notice(text, "de")
        second = NT.node_notice(text, "nl")
    assert first == second and "\x1b" not in first and "\\x1b[2J" in first
    logged = [r for r in caplog.records if r.name == NT.LOG.name]
    assert len(logged) == 1 and "no rule knows" in logged[0].getMessage()


def test_the_unknown_log_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(NT, "_unknown_logged", set())
    for n in range(NT.UNKNOWN_LOGGED_MAX + 50):
        NT.node_notice(f"unknown message number {n}", "en")
    assert len(NT._unknown_logged) == NT.UNKNOWN_LOGGED_MAX


def test_the_status_line_and_the_lobby_show_the_translation() -> None:
    session = DriverSession(lobby=LobbyState(role="join", name="ann", game="tuppen", seats=3))
    session.say("seat 2 (bob) connected")
    assert session.notice("de") == "bob ist verbunden"
    assert session.notice("nl") == "bob is verbonden"
    assert session.notice("fr") == "bob est en ligne"
    session.say("'cy' [7KQ2-M4XA] joined (3/3)")
    session.say("at the table: ann [AB12], bob [CD34]; waiting for 1 more player(s)")
    text = "".join(t for _, t, *_ in lobby_text(session.lobby, "nl"))
    assert "cy is aangeschoven (3 van 3)" in text and "bob is verbonden" in text
    assert "at the table" not in text and "'cy'" not in text


def test_the_lines_told_after_the_screen_never_show_the_nodes_english() -> None:
    lobby = LobbyState()
    lobby.messages = [
        "hand 3 ended: seat 1 (bob) took the last trick",
        "game over: 10 hands played; won by seat 0 (ann); final scores: ann 1, bob 0, cem 0",
        "transcript: 220 records, verified by replay",
    ]
    lines = closing_lines(lobby, "de")
    assert lines == [i18n.tr("de", "node.verified", n=220)]


def test_who_text_names_seats_and_unquotes_names() -> None:
    assert NT.who_text("seat 0 (ann)", "en") == "ann"
    assert NT.who_text("'o\\'neil'", "en") == "o'neil"
    assert NT.who_text("'\\x1b[2J'", "en") == "\\x1b[2J"  # a repr'd escape stays harmless
    assert NT.who_text("an invalid key", "de") == "ein unbekannter Spieler"
    assert NT.who_text("an invalid key", "fr") == "un joueur inconnu"


def test_the_table_machines_own_refusals_are_translated() -> None:
    from tui_helpers import snapshot

    from dealerless.client.tui import presenter as P
    from dealerless.client.tui.results import LOCAL_REFUSALS

    sources = (ROOT / "protocol" / "table" / "machine.py").read_text(encoding="utf-8")
    sources += (ROOT / "client" / "tui" / "node_session.py").read_text(encoding="utf-8")
    for english, key in LOCAL_REFUSALS.items():
        assert f'"{english}"' in sources, english  # still what the machine says
        snap = snapshot(errors=(english,))
        shown = {lang: P.log_lines(snap, P.Look(lang))[-1] for lang in i18n.LANGUAGES}
        assert shown["en"].endswith(i18n.tr("en", key))
        assert not any(english in shown[lang] for lang in i18n.LANGUAGES if lang != "en"), shown
    session = DriverSession(lobby=LobbyState(role="join", name="ann", game="tuppen", seats=3))
    session.act(object())  # type: ignore[arg-type]  # before the node runs: not our turn
    assert session._errors == ["it is not your turn"]


def test_an_unknown_message_lands_in_the_log_file_not_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dealerless.client import logs

    log_file = logs.setup_logging(home=str(tmp_path))
    try:
        assert log_file is not None
        NT.node_notice("a message for the log file test \x07", "nl")
        for handler in logging.getLogger().handlers:
            handler.flush()
        assert "a message for the log file test \\x07" in log_file.read_text()
        assert "log file test" not in capsys.readouterr().err  # line mode prints it already
    finally:
        logs.reset_logging()
