"""The node's progress messages (``say``, English, for logs) as the screen shows them.

Every message a node can say (node/*.py, node/nostr/*.py) has a rule in :data:`RULES`: it is
translated, with seats by name and no Python repr, or dropped where the screen already shows
the same thing from the table's own events (the reason is next to the rule). Details a person
cannot act on (an exception's text, a file's parse error) stay in the log file, where every
node line is recorded (``node.app.logged_say``); the screen says so. A message no rule knows
(a new one, or a refusal reason from another version's host) is shown escaped, untranslated,
and logged once (DEBUG, into the log file) so it can be found and given a rule
(tests/tui/test_node_messages.py keeps the rules complete).
"""

from __future__ import annotations

import ast
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.safe_text import printable
from dealerless.client.tui.wording import game_title, person_name

__all__ = [
    "PLAY_NOISE",
    "RULES",
    "TABLE_NEWS",
    "NodeRule",
    "node_notice",
    "node_rule",
    "table_full",
    "who_text",
]

LOG = logging.getLogger("dealerless.client.node_text")
UNKNOWN_LOGGED_MAX = 200  # bounded: a chatty peer cannot grow the set without end
_unknown_logged: set[str] = set()

Show = Callable[[str, re.Match[str]], str]


@dataclass(frozen=True)
class NodeRule:
    """One kind of node message: its English form and what the screen makes of it."""

    name: str
    pattern: re.Pattern[str]
    show: Show


_SEAT = re.compile(r"^seat \d+ \((.*)\)$")


def _unquote(text: str) -> str:
    """A name the node printed as a Python repr (``'ann'``) as the name itself."""
    if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
        if isinstance(value, str):
            return value
    return text


def who_text(text: str, lang: str) -> str:
    """Who the node names (``seat 2 (bob)``, ``'bob'``, a fingerprint) as the screen names
    them: by name, never by a seat number counted from 0."""
    match = _SEAT.match(text)
    if match is not None:
        return person_name(lang, match.group(1), 40)
    if text == "an invalid key":
        return tr(lang, "node.invalid_key")
    return person_name(lang, _unquote(text), 40)


def _names_text(text: str, lang: str) -> str:
    """``seat 0 (ann), seat 2 (cy)`` -> ``ann, cy``."""
    parts = re.findall(r"seat \d+ \((.*?)\)(?:, |$)", text)
    return ", ".join(person_name(lang, p, 40) for p in parts) if parts else printable(text, 80)


def _way_text(label: str, lang: str) -> str:
    """A way in (``direct 10.0.0.5:4000``, ``relay ...``, ``Nostr (3 relays)``)."""
    kind, _, rest = label.partition(" ")
    if kind in ("direct", "relay"):
        return tr(lang, f"node.way_{kind}", address=printable(rest, 60))
    match = re.match(r"^Nostr \((\d+) relays?\)$", label)
    if match is not None:
        count = match.group(1)
        return (
            tr(lang, "node.way_nostr_one") if count == "1" else tr(lang, "node.way_nostr", n=count)
        )
    return printable(label, 60)


def _host_refused(lang: str, reason: str) -> str:
    known = {
        "the table is full": "node.refused_full",
        "no valid proof of the invite's token": "node.refused_proof",
        "the table is full and enough players wait for a seat": "node.refused_waiting_full",
        "this table is finished: its game is over": "node.table_finished",
    }
    key = known.get(reason)
    if key is not None:
        return tr(lang, key)
    if reason.startswith("buy-in refused: "):
        return tr(lang, "node.refused_buy_in", why=_buy_in_text(reason[16:], lang))
    return tr(lang, "node.host_refused", reason=printable(reason, 120))  # the host's own words


def _buy_in_text(reason: str, lang: str) -> str:
    """Why the rules refuse a buy-in (protocol/rules: newcomer_ledger), in the screen's words."""
    match = re.match(r"^a buy-in must be (\d+)\.\.(\d+) chips", reason)
    if match is not None:
        return tr(lang, "node.buy_in_range", low=match.group(1), high=match.group(2))
    match = re.match(r"^in play-money every seat sits down with (\d+) chips$", reason)
    if match is not None:
        return tr(lang, "node.buy_in_fixed", n=match.group(1))
    if reason.startswith("a tournament takes no newcomers"):
        return tr(lang, "node.buy_in_tournament")
    if reason.startswith("in Pottuppen a newcomer sits down with a balance of 0"):
        return tr(lang, "node.buy_in_pottuppen")
    return printable(reason, 120)


def _change_word(change: str, lang: str) -> str:
    """``stand`` / ``sit out`` (as the node writes a seat change) in the screen's words."""
    return tr(lang, "change.sit-out" if change.startswith("sit") else "change.stand")


def _resumed(lang: str, m: re.Match[str]) -> str:
    if m.group(2):
        text = tr(lang, "node.resumed_peers", n=m.group(1), m=m.group(2), hand=m.group(3))
    else:
        text = tr(lang, "node.resumed", n=m.group(1), hand=m.group(3))
    return text + (tr(lang, "node.resumed_wait") if m.group(4) else "")


def _cheating(lang: str, m: re.Match[str]) -> str:
    count = int(m.group(2)) + int(m.group(3) or 0)
    return tr(lang, "node.cheating", names=_names_text(m.group(1), lang), n=count)


def _say(key: str) -> Show:
    """A message shown as one fixed text."""
    return lambda lg, m: tr(lg, key)


def _drop(lang: str, match: re.Match[str]) -> str:
    return ""


def _rule(name: str, pattern: str, show: Show) -> NodeRule:
    return NodeRule(name, re.compile(pattern), show)


RULES: tuple[NodeRule, ...] = (
    # ---- the table (node/seat.py)
    _rule("connected", r"^connected; \d+ other peer\(s\) present$", _say("node.connected")),
    # the move log shows these from the table's own events (HandStarted, HandEnded, GameOver,
    # TimeoutVoted), with names and the reason in the screen's language
    _rule("hand", r"^hand \d+ (starts|ended|aborted)\b", _drop),
    _rule("game_over", r"^game over: ", _drop),
    _rule("vote", r" is too slow: we voted to time them out$", _drop),
    _rule(
        "verified",
        r"^transcript: (\d+) records, verified by replay$",
        lambda lg, m: tr(lg, "node.verified", n=m.group(1)),
    ),
    _rule(
        "verified_violations",
        r"^transcript: (\d+) records, verified by replay; (\d+) violation\(s\)$",
        lambda lg, m: tr(lg, "node.verified_violations", n=m.group(1), v=m.group(2)),
    ),
    _rule("not_verified", r"^transcript: .*NOT verified", _say("node.not_verified")),
    _rule(
        "waiting",
        r"^waiting for (.+) \((\d+) s\)$",
        lambda lg, m: tr(lg, "node.waiting", name=who_text(m.group(1), lg), seconds=m.group(2)),
    ),
    _rule("link_lost", r"^link lost\b", _say("node.link_lost")),
    _rule(
        "retrying",
        r"; retrying in ([\d.]+) s$",
        lambda lg, m: tr(lg, "node.retrying", seconds=m.group(1)),
    ),
    _rule(
        "ready",
        r"^table ready: (\S+), (\d+) seats; we are (.*)$",
        lambda lg, m: tr(
            lg,
            "node.ready",
            game=game_title(lg, m.group(1)),
            seats=m.group(2),
            name=who_text(m.group(3), lg),
        ),
    ),
    _rule(
        "peer_records_bad",
        r"^records from the peers do not replay \(",
        _say("node.peer_records_bad"),
    ),
    _rule(
        "resumed",
        r"^resumed from (\d+) stored record\(s\)(?: and (\d+) from the peers)?: hand (\d+), "
        r"\w+(; no peer has answered yet)?",
        _resumed,
    ),
    _rule(
        "share_damaged",
        r"^cannot resume: a stored key share in .* is missing or damaged",
        _say("node.share_damaged"),
    ),
    _rule(
        "transcript_unusable",
        r"^cannot resume: the stored transcript .* is unusable",
        _say("node.transcript_unusable"),
    ),
    _rule(
        "outbox_full",
        r"^(\d+) of our own messages wait for the link; giving up$",
        lambda lg, m: tr(lg, "node.outbox_full", n=m.group(1)),
    ),
    _rule("move_refused", r"^move refused: ", _say("node.move_refused")),
    _rule(
        "share_missing",
        r"^our stored key share of hand (\d+) .* is missing or damaged",
        lambda lg, m: tr(lg, "node.share_missing", n=m.group(1)),
    ),
    _rule(
        "timed_out",
        r"^(.+) was timed out \([\w-]+, hand (\d+)\)$",
        lambda lg, m: tr(lg, "node.timed_out", name=who_text(m.group(1), lg), n=m.group(2)),
    ),
    _rule("damaged", r"^refused a damaged or misrouted message: ", _say("node.damaged")),
    # a rules violation is also in the move log (Violation), with the rules' reason
    _rule(
        "refused_from",
        r"^refused a message from (.+?): ",
        lambda lg, m: tr(lg, "node.refused_from", name=who_text(m.group(1), lg)),
    ),
    _rule("auditor_failed", r"^the auditor replay failed: ", _say("node.auditor_failed")),
    _rule(
        "cheating",
        r"^caught cheating: (.+): (\d+) violation\(s\)(?: \(\+(\d+) more\))?$",
        _cheating,
    ),
    _rule("never_started", r"^the table never started: ", _say("node.never_started")),
    # ---- seats that change between hands (node/seat.py, node/seat_changes.py, node/app.py)
    # the move log shows these from the table's events (SeatsChanging, SegmentStarted)
    _rule("seats_change", r"^seats change after hand \d+ \(", _drop),
    _rule("goes_on", r"^the table goes on with \d+ seats: ", _drop),
    _rule("goes_on_without_us", r"^the table goes on without us: ", _drop),
    # sitting out: the table screen shows it (the sitting-out panel)
    _rule("sit_out_following", r"^we sit out and follow the table: ", _drop),
    _rule(
        "asked_change",
        r"^we asked to (stand|sit out) after this hand$",
        lambda lg, m: tr(lg, "node.asked_change", change=_change_word(m.group(1), lg)),
    ),
    _rule(
        "cannot_change",
        r"^cannot (stand|sit-out) here: ",
        lambda lg, m: tr(lg, "node.cannot_change", change=_change_word(m.group(1), lg)),
    ),
    _rule(
        "newcomer_waits",
        r"^(.+) \[[^\]]*\] waits to sit down with (\d+) after this hand$",
        lambda lg, m: tr(
            lg, "node.newcomer_waits", name=who_text(m.group(1), lg), chips=m.group(2)
        ),
    ),
    _rule("cannot_reform", r"^cannot re-form the table: ", _say("node.cannot_reform")),
    _rule(
        "next_host_wait",
        r"^seats change after hand (\d+): waiting for the next host$",
        lambda lg, m: tr(lg, "node.next_host_wait", n=m.group(1)),
    ),
    _rule(
        "newcomers_refused",
        r"^the newcomers cannot sit down \(.*\); the table goes on without them$",
        _say("node.newcomers_refused"),
    ),
    _rule("cannot_go_on", r"^the table cannot go on: ", _say("node.cannot_go_on")),
    _rule(
        "next_host_missing",
        r"^the next host sent no configuration in (\d+) s: the table ends here$",
        lambda lg, m: tr(lg, "node.next_host_missing", seconds=m.group(1)),
    ),
    # coming back after a sit-out (node/seat_changes.py)
    _rule(
        "coming_back",
        r"^we asked to come back: we sit down again at the next hand boundary$",
        _say("node.coming_back"),
    ),
    _rule(
        "away_quiet",
        r"^the table made no progress for (\d+) s: we stop following it$",
        lambda lg, m: tr(lg, "node.away_quiet", seconds=m.group(1)),
    ),
    _rule(
        "comes_back",
        r"^(.+) \[[^\]]*\] comes back after this hand$",
        lambda lg, m: tr(lg, "node.comes_back", name=who_text(m.group(1), lg)),
    ),
    _rule(
        "back_from_silence",
        r"^we were silent and sit out \(our chips kept\); we ask to come back$",
        _say("node.back_from_silence"),
    ),
    _rule(
        "serving_others",
        r"^we left the table; this process keeps passing the others' messages",
        _say("node.serving_others"),
    ),
    # ---- joining (node/join_handshake.py, node/seat_messages.py, node/catch_up.py)
    _rule("full", r"^the host refused us: the table is full$", _say("node.refused_full")),
    _rule(
        "host_refused",
        r"^the host refused us: (.*)$",
        lambda lg, m: _host_refused(lg, m.group(1)),
    ),
    _rule(
        "config_refused", r"^refused the host's table configuration: ", _say("node.config_refused")
    ),
    _rule("lobby_broken", r"^refused a lobby message from the host: ", _say("node.lobby_broken")),
    # the lobby screen lists who is at the table (LobbyView), with their fingerprints
    _rule("at_table", r"^at the table: .*; waiting for \d+ more player\(s\)$", _drop),
    _rule(
        "config_unreadable",
        r"^refused the table configuration: ",
        _say("node.config_unreadable"),
    ),
    _rule(
        "config_bad_sig",
        r"^refused a table configuration with a bad host signature$",
        _say("node.config_bad_sig"),
    ),
    _rule(
        "config_not_host",
        r"^refused a table configuration from a seat that does not host it$",
        _say("node.config_not_host"),
    ),
    _rule(
        "unanswered",
        r"^nobody at the table answered for (\d+) s \(the game may be over, or its host gone\)$",
        lambda lg, m: tr(lg, "node.unanswered", seconds=m.group(1)),
    ),
    _rule(
        "finished",
        r"^this table is finished: its game ended(?: after (\d+) hands)?$",
        lambda lg, m: (
            tr(lg, "node.table_finished_after", hands=m.group(1))
            if m.group(1)
            else tr(lg, "node.table_finished")
        ),
    ),
    _rule("no_seat", r"^the table configuration has no seat for us$", _say("node.no_seat")),
    _rule(
        "seat_open_elsewhere",
        r"^table ([0-9a-f]+) is already open in another dealerless process on this computer ",
        lambda lg, m: tr(lg, "node.seat_open_elsewhere", table=m.group(1)),
    ),
    # a newcomer at a running table checks it from its start (node/arrival.py)
    _rule(
        "offer_unproven",
        r"^(?:no readable first configuration in|a running table's first configuration) ",
        _say("node.offer_unproven"),
    ),
    _rule(
        "offer_ignored",
        r"^ignored the offer of (.+?): ",
        lambda lg, m: tr(lg, "node.offer_ignored", name=who_text(m.group(1), lg)),
    ),
    _rule(
        "offer_checking",
        r"^(.+) offers us a seat at the running table \(after hand (\d+)\); checking its chain "
        r"from the start \((\d+) records\)$",
        lambda lg, m: tr(
            lg,
            "node.offer_checking",
            name=who_text(m.group(1), lg),
            hand=m.group(2),
            n=m.group(3),
        ),
    ),
    _rule(
        "offer_too_big",
        r"^gave up the offer of (.+?): ",
        lambda lg, m: tr(lg, "node.offer_too_big", name=who_text(m.group(1), lg)),
    ),
    _rule(
        "offer_stalled",
        r"^(.+) sent no more of the table's chain \((\d+) of (\d+) records\); its offer is "
        r"given up$",
        lambda lg, m: tr(
            lg,
            "node.offer_stalled",
            name=who_text(m.group(1), lg),
            got=m.group(2),
            n=m.group(3),
        ),
    ),
    _rule(
        "offer_refused",
        r"^refused the running table (.+?) offered: ",
        lambda lg, m: tr(lg, "node.offer_refused", name=who_text(m.group(1), lg)),
    ),
    _rule(
        "chain_checked",
        r"^checked the table's chain from its start: (\d+) records in ([\d.]+) s$",
        lambda lg, m: tr(lg, "node.chain_checked", n=m.group(1), seconds=m.group(2)),
    ),
    _rule(
        "joined",
        r"^(.+) \[[^\]]*\] joined \((\d+)/(\d+)\)$",
        lambda lg, m: tr(
            lg, "node.joined", name=who_text(m.group(1), lg), k=m.group(2), n=m.group(3)
        ),
    ),
    _rule(
        "bad_signature",
        r"^refused a .* message with a bad signature \((.*)\)$",
        lambda lg, m: tr(lg, "node.bad_signature", name=who_text(m.group(1), lg)),
    ),
    _rule(
        "peer_up",
        r"^(.+) connected$",
        lambda lg, m: tr(lg, "node.peer_up", name=who_text(m.group(1), lg)),
    ),
    _rule(
        "peer_left_end",
        r"^(.+) left after the end of the game$",
        lambda lg, m: tr(lg, "node.peer_left_end", name=who_text(m.group(1), lg)),
    ),
    _rule(
        "peer_quit",
        r"^(.+) quit the table; if they do not come back they are timed out$",
        lambda lg, m: tr(lg, "node.peer_quit", name=who_text(m.group(1), lg)),
    ),
    _rule(
        "peer_down_wait",
        r"^(.+) disconnected; the table waits up to (\d+) s at their step, then times them out$",
        lambda lg, m: tr(
            lg, "node.peer_down_wait", name=who_text(m.group(1), lg), seconds=m.group(2)
        ),
    ),
    _rule(
        "peer_down",
        r"^(.+) disconnected$",
        lambda lg, m: tr(lg, "node.peer_down", name=who_text(m.group(1), lg)),
    ),
    _rule("released", r"^heard from a peer: writing again$", _say("node.released")),
    # ---- links and ways in (node/app.py, node/ways.py, node/links.py, node/hub.py)
    _rule("no_way_works", r"^no way in to the table works \(", _say("node.no_way_works")),
    _rule(
        "nothing_answered",
        r"^nothing answered within (\d+) s; tried ",
        lambda lg, m: tr(lg, "node.nothing_answered", seconds=m.group(1)),
    ),
    _rule(
        "wrong_host",
        r"^(\S+) names a host for this table that the invite does not\b",
        lambda lg, m: tr(lg, "node.wrong_host", address=printable(m.group(1), 60)),
    ),
    _rule(
        "not_invited_peer",
        r"^(\S+) is not who the invite says \(identity mismatch\)",
        lambda lg, m: tr(lg, "node.not_invited_peer", address=printable(m.group(1), 60)),
    ),
    _rule(
        "pins_bad",
        r"^(.+) (is unreadable \(.*\); move it away to start afresh|does not hold a map of "
        r"relay fingerprints)$",
        lambda lg, m: tr(lg, "node.pins_bad", path=printable(m.group(1), 120)),
    ),
    _rule(
        "way_retry",
        r"^((?:direct|relay) \S+|Nostr \(\d+ relays?\)): (.*); trying again$",
        lambda lg, m: tr(
            lg, "node.way_retry", way=_way_text(m.group(1), lg), detail=printable(m.group(2), 400)
        ),
    ),
    # What each Nostr relay answered, in its own words: the person can act on it (another
    # relay, a club relay) and a bug report needs it.
    _rule(
        "no_relay",
        r"^no Nostr relay will carry this table: (.*)$",
        lambda lg, m: tr(lg, "node.no_relay", states=printable(m.group(1), 800)),
    ),
    _rule(
        "no_relay_now",
        r"^no Nostr relay carries the table now: (.*)$",
        lambda lg, m: tr(lg, "node.no_relay_now", states=printable(m.group(1), 800)),
    ),
    _rule(
        "relay_barred",
        r"^relay (\S+) cannot carry the table: (.*)$",
        lambda lg, m: tr(
            lg,
            "node.relay_barred",
            url=printable(m.group(1), 120),
            reason=printable(m.group(2), 200),
        ),
    ),
    _rule(
        "refused_handshake",
        r"^refused a connection from \S+: handshake failed",
        _say("node.refused_connection"),
    ),
    # The hub's other notes (node/hub.py: its bounds at work): the detail stays as the hub
    # wrote it, inside a line in the screen's language.
    _rule(
        "hub_note",
        r"^((?:refused a (?:connection|table)|closed (?:the idle table|a table)|dropped a \d+-byte"
        r"|the hub is full|the host's own queue is full)\b.*?)"
        r"(?: \(and (\d+) more like it since the last such line\))?$",
        lambda lg, m: (
            tr(lg, "node.hub_note", text=printable(m.group(1), 300))
            + (tr(lg, "node.hub_note_more", n=int(m.group(2))) if m.group(2) else "")
        ),
    ),
    _rule(
        "old_invite",
        r"^cannot use table \w+: its stored invite is unusable",
        _say("node.old_invite"),
    ),
    _rule(
        "cannot_listen",
        r"^cannot listen on (\S+): ",
        lambda lg, m: tr(lg, "node.cannot_listen", address=printable(m.group(1), 60)),
    ),
    _rule("no_way_in", r"^this table has no way in\b", _say("node.no_way_in")),
    _rule(
        "connecting",
        r"^connecting to (\S+)$",
        lambda lg, m: tr(lg, "node.connecting", address=printable(m.group(1), 60)),
    ),
    _rule(
        "relay_pinned",
        r"^relay (\S+) is (\S+): pinned from now on$",
        lambda lg, m: tr(
            lg,
            "node.relay_pinned",
            address=printable(m.group(1), 60),
            fingerprint=printable(m.group(2), 40),
        ),
    ),
    _rule(
        "slow_invite",
        r"^refused: the invite's step timeout is (\d+) ms, below the floor of (\d+) ms",
        lambda lg, m: tr(lg, "node.slow_invite", n=m.group(1), floor=m.group(2)),
    ),
    _rule(
        "invite_no_way",
        r"^refused: the invite code holds no way to reach the table",
        _say("node.invite_no_way"),
    ),
    _rule("known_table", r"^this table is known here: resuming it$", _say("node.known_table")),
    _rule("stored_unusable", r"^cannot use a stored table: ", _say("node.stored_unusable")),
    _rule(
        "no_resume",
        r"^no table to resume(?: matching (.+))?$",
        lambda lg, m: (
            tr(lg, "node.no_resume_id", id=printable(_unquote(m.group(1)), 40))
            if m.group(1)
            else tr(lg, "node.no_resume")
        ),
    ),
    _rule(
        "ambiguous",
        r"^(.+) matches several tables; give more of the id$",
        lambda lg, m: tr(lg, "node.ambiguous", id=printable(_unquote(m.group(1)), 40)),
    ),
    _rule(
        "resuming",
        r"^resuming table (\w+) \((\S+), (host|join)\)$",
        lambda lg, m: tr(
            lg, f"node.resuming_{m.group(3)}", id=m.group(1), game=game_title(lg, m.group(2))
        ),
    ),
    _rule(
        "bot_failed",
        r"^a bot process failed: exit codes \[([-\d, ]*)\]$",
        lambda lg, m: tr(lg, "node.bot_failed", codes=m.group(1)),
    ),
    # ---- the client's own (client/tui/lobby.py)
    _rule("left_early", r"^left the table before the end of the game$", _say("node.left_early")),
)

_FULL = next(rule for rule in RULES if rule.name == "full")


# What happens to the people at a running table: kept in the move log (NodeSaid), in order.
TABLE_NEWS = frozenset(
    {
        "peer_quit",
        "peer_down",
        "peer_down_wait",
        "peer_left_end",
        "timed_out",
        "comes_back",
        "coming_back",
        "back_from_silence",
        "away_quiet",
        "share_missing",
    }
)
# How the node reaches the others: once the table runs, a way in that keeps failing while
# another carries the table is no news (the log file keeps it; a stuck table says "waiting for").
PLAY_NOISE = frozenset({"connecting", "way_retry", "peer_up", "released"})


def node_rule(text: str) -> str | None:
    """The name of the rule that knows a node message (None: no rule does)."""
    for rule in RULES:
        if rule.pattern.search(text) is not None:
            return rule.name
    return None


def node_notice(text: str, lang: str) -> str:
    """What the screen shows for one node message ("" for nothing)."""
    for rule in RULES:
        match = rule.pattern.search(text)
        if match is not None:
            return rule.show(lang, match)
    _log_unknown(text)
    return printable(text, 200)


def _log_unknown(text: str) -> None:
    """An unknown message, logged once (the log file keeps every node line anyway)."""
    if text in _unknown_logged or len(_unknown_logged) >= UNKNOWN_LOGGED_MAX:
        return
    _unknown_logged.add(text)
    # DEBUG: the log file records it; stderr (line mode) already shows the message itself
    LOG.debug("node message without a translation (shown in English): %r", text[:300])


def table_full(text: str) -> bool:
    """Whether a node message is the refusal of a seat at a full table."""
    return _FULL.pattern.search(text) is not None
