"""Every notice a node can report has its English (node/notices.py, for the log file and a
plain run) and a rule on the screen (client/tui/node_text.py): translated (English, German,
Dutch, French), with seats by name and no Python repr, or dropped where the screen shows the
same from table events. Every ``notice(...)`` in node/ names a known code with the params its
English needs; a notice of an unknown code is shown as its English, escaped, and logged."""

from __future__ import annotations

import ast
import logging
import re
import string
from pathlib import Path

import pytest
from node_message_samples import SAMPLES

from dealerless.client.tui import i18n
from dealerless.client.tui import node_text as NT
from dealerless.client.tui.lobby import closing_lines, lobby_text
from dealerless.client.tui.node_session import DriverSession, LobbyState
from dealerless.node.notices import ENGLISH, Notice, Who, english, notice

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / "node"
SAYERS = ("say", "_stop", "give_up")  # the calls that report a notice in node/


def _calls(path: Path) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)]


def _name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _notice_sites() -> list[tuple[str, str, frozenset[str]]]:
    """Every ``notice("code", k=...)`` in node/ and client/: (where, code, params given)."""
    sites = []
    for path in sorted([*NODE.rglob("*.py"), *(ROOT / "client").rglob("*.py")]):
        imports = re.search(
            r"^from dealerless\.node\.notices import .*\bnotice\b", path.read_text(), re.M
        )
        if imports is None:
            continue  # (a "notice" there is something else)
        for call in _calls(path):
            if not isinstance(call.func, ast.Name) or call.func.id != "notice" or not call.args:
                continue
            code = call.args[0]
            choices = [code.body, code.orelse] if isinstance(code, ast.IfExp) else [code]
            given = frozenset(k.arg for k in call.keywords if k.arg is not None)
            for choice in choices:
                assert isinstance(choice, ast.Constant) and isinstance(choice.value, str), (
                    f"{path.name}:{call.lineno}: a notice's code is a literal"
                )
                sites.append((f"{path.name}:{call.lineno}", choice.value, given))
    return sites


SITES = _notice_sites()


def _fields(template: str) -> frozenset[str]:
    return frozenset(f for _, f, _, _ in string.Formatter().parse(template) if f)


def test_every_notice_the_node_makes_has_its_english_with_the_params_it_needs() -> None:
    assert len(SITES) > 80, "the scan found too few notice() calls: is it still looking?"
    for where, code, given in SITES:
        assert code in ENGLISH, f"{where}: no English for {code!r} (node/notices.py)"
        template = ENGLISH[code]
        if isinstance(template, str):
            assert _fields(template) <= given, (where, code, sorted(given), template)


def test_the_node_says_notices_never_sentences() -> None:
    """A ``say``/``give_up``/``_stop`` in node/ passes a notice (made there, or handed on)."""
    for path in sorted(NODE.rglob("*.py")):
        for call in _calls(path):
            if _name(call) not in SAYERS or not call.args:
                continue
            arg = call.args[0]
            where = f"{path.name}:{call.lineno}"
            assert not isinstance(arg, ast.Constant | ast.JoinedStr | ast.BinOp), where
            if isinstance(arg, ast.Call):
                assert _name(arg) in ("notice", "text_notice", "Notice"), where


def test_every_code_has_english_a_rule_and_samples() -> None:
    assert set(NT.RULES) == set(ENGLISH), set(ENGLISH) ^ set(NT.RULES)
    assert set(SAMPLES) == set(ENGLISH), set(ENGLISH) ^ set(SAMPLES)
    for code, samples in SAMPLES.items():
        assert samples and all(s.code == code for s in samples), code


def test_every_key_of_the_node_rules_is_in_every_catalog() -> None:
    english_keys = {k for k in i18n.CATALOGS["en"] if k.startswith(("node.", "change."))}
    assert len(english_keys) > 80
    for lang in i18n.LANGUAGES:
        missing = english_keys - set(i18n.CATALOGS[lang])
        assert not missing, (lang, sorted(missing))


def _pairs() -> list[object]:
    return [
        pytest.param(sample, id=f"{code}-{n}")
        for code, samples in SAMPLES.items()
        for n, sample in enumerate(samples)
    ]


def _values(value: object) -> list[str]:
    if isinstance(value, tuple):
        return [text for item in value for text in _values(item)]
    if isinstance(value, Who):
        return [str(value), *(t for t in (value.name, value.fingerprint) if t)]
    return [str(value)]


def _phrases(english: str) -> frozenset[str]:
    """Three words at a time of each literal piece; command-line options (--min-step-timeout)
    are the same in every language."""
    phrases = set()
    for piece in re.split(r"[|]", re.sub(r"--[\w-]+", "|", english)):
        words = re.findall(r"[a-z]+", piece.lower())
        phrases |= {" ".join(words[i : i + 3]) for i in range(len(words) - 2)}
    return frozenset(phrases)


def _literal(said: Notice) -> str:
    """The notice's English without its params' values (a peer's words are passed on)."""
    text = english(said)
    for value in sorted((v for p in said.params.values() for v in _values(p)), key=len)[::-1]:
        if value:
            text = text.replace(value, "|")
    return text


@pytest.mark.parametrize("said", _pairs())
def test_every_notice_is_translated_with_names_and_no_repr(said: Notice) -> None:
    i18n.MISSING.clear()
    shown = {lang: NT.node_notice(said, lang) for lang in i18n.LANGUAGES}
    assert not i18n.MISSING, sorted(i18n.MISSING)
    if said.code == "text":  # plain text: shown as it is, in every language
        assert set(shown.values()) == {english(said)}
        return
    if not shown["en"]:  # dropped: the screen shows it from the table's events
        assert shown == dict.fromkeys(i18n.LANGUAGES, "")
        return
    message = english(said)
    for lang, text in shown.items():
        assert text.strip(), (lang, message)
        assert not re.search(r"\bseat \d", text), (lang, text)  # seats by name
        assert "'bob'" not in text and "'mallory'" not in text and "'ab" not in text, text
        assert not re.search(r"\w\(\w+=|\[\d|Who\(", text), (lang, text)  # no Python repr
        if "bob" in message:
            assert "bob" in text, (lang, text)
        if lang != "en":
            assert text != shown["en"], (lang, message)
            leaked = _phrases(_literal(said)) & _phrases(text)
            assert not leaked, (lang, text, leaked)


def test_an_unknown_code_is_escaped_and_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    said = notice("from_a_newer_version", text="no rule knows \x1b[2J from test_node_messages")
    with caplog.at_level(logging.DEBUG, logger=NT.LOG.name):
        first = NT.node_notice(said, "de")
        second = NT.node_notice(said, "nl")
    assert first == second and "\x1b" not in first and "\\x1b[2J" in first
    assert first.startswith("from_a_newer_version: ")
    logged = [r for r in caplog.records if r.name == NT.LOG.name]
    assert len(logged) == 1 and "no rule knows" in logged[0].getMessage()


def test_the_unknown_log_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(NT, "_unknown_logged", set())
    for n in range(NT.UNKNOWN_LOGGED_MAX + 50):
        NT.node_notice(notice("unknown", n=n), "en")
    assert len(NT._unknown_logged) == NT.UNKNOWN_LOGGED_MAX


def test_the_status_line_and_the_lobby_show_the_translation() -> None:
    session = DriverSession(lobby=LobbyState(role="join", name="ann", game="tuppen", seats=3))
    session.say(notice("peer_up", who=Who(seat=2, name="bob")))
    assert session.notice("de") == "bob ist verbunden"
    assert session.notice("nl") == "bob is verbonden"
    assert session.notice("fr") == "bob est en ligne"
    session.say(notice("joined", who=Who(name="cy"), fingerprint="7KQ2-M4XA", count=3, seats=3))
    session.say(notice("at_table", listed="ann [AB12], bob [CD34]", need=1))
    text = "".join(t for _, t, *_ in lobby_text(session.lobby, "nl"))
    assert "cy is aangeschoven (3 van 3)" in text and "bob is verbonden" in text
    assert "at the table" not in text and "'cy'" not in text


def test_the_lines_told_after_the_screen_never_show_the_nodes_english() -> None:
    lobby = LobbyState()
    lobby.messages = [
        notice("hand_ended", hand=3, how="ended", reason="seat 1 (bob) took the last trick"),
        notice(
            "game_over",
            reason="10 hands played",
            winners="seat 0 (ann)",
            scores="ann 1, bob 0, cem 0",
        ),
        notice("transcript", records=220, verified=1, violations=0),
    ]
    lines = closing_lines(lobby, "de")
    assert lines == [i18n.tr("de", "node.verified", n=220)]


def test_who_text_names_seats_and_never_shows_a_repr() -> None:
    assert NT.who_text(Who(seat=0, name="ann"), "en") == "ann"
    assert NT.who_text(Who(name="o'neil"), "en") == "o'neil"
    assert NT.who_text(Who(name="\x1b[2J"), "en") == "\\x1b[2J"  # an escape stays harmless
    assert NT.who_text(Who(invalid=True), "de") == "ein unbekannter Spieler"
    assert NT.who_text(Who(invalid=True), "fr") == "un joueur inconnu"
    assert NT.who_text(Who(fingerprint="7KQ2M4XA9"), "en") == "7KQ2M4XA9"


def test_the_table_machines_own_refusals_are_translated() -> None:
    from tui_helpers import snapshot

    from dealerless.client.tui import presenter as P
    from dealerless.client.tui.results import LOCAL_REFUSALS

    sources = (ROOT / "protocol" / "table" / "machine.py").read_text(encoding="utf-8")
    sources += (ROOT / "client" / "tui" / "node_session.py").read_text(encoding="utf-8")
    for english_text, key in LOCAL_REFUSALS.items():
        assert f'"{english_text}"' in sources, english_text  # still what the machine says
        snap = snapshot(errors=(english_text,))
        shown = {lang: P.log_lines(snap, P.Look(lang))[-1] for lang in i18n.LANGUAGES}
        assert shown["en"].endswith(i18n.tr("en", key))
        assert not any(english_text in shown[lang] for lang in i18n.LANGUAGES if lang != "en")
    session = DriverSession(lobby=LobbyState(role="join", name="ann", game="tuppen", seats=3))
    session.act(object())  # type: ignore[arg-type]  # before the node runs: not our turn
    assert session._errors == ["it is not your turn"]


def test_an_unknown_notice_lands_in_the_log_file_not_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dealerless.client import logs

    log_file = logs.setup_logging(home=str(tmp_path))
    try:
        assert log_file is not None
        NT.node_notice(notice("text", text="a message for the log file test \x07"), "nl")
        for handler in logging.getLogger().handlers:
            handler.flush()
        assert "a message for the log file test \\x07" in log_file.read_text()
        assert "log file test" not in capsys.readouterr().err  # line mode prints it already
    finally:
        logs.reset_logging()
