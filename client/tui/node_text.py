"""The node's notices (node/notices.py: a code and its data) as the screen words them.

Every code a node can report has a rule in :data:`RULES`: it is translated, with seats by
name, or dropped where the screen already shows the same thing from the table's own events
(the reason is next to the rule). Details a person cannot act on (an exception's text, a
file's parse error) stay in the log file, where every node line is recorded in English
(``node.app.logged_say``); the screen says so. Free text from elsewhere (a peer's reason, a
relay's answer) is escaped. A notice no rule knows (a code of a newer version) or plain text
(``text``) is shown in its English, escaped, and logged once (DEBUG, into the log file) so it
can be found and given a rule (tests/tui/test_node_messages.py keeps the rules complete).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.node_words import (
    buy_in_text,
    change_word,
    host_refused,
    names_text,
    number,
    way_text,
    who_text,
)
from dealerless.client.tui.safe_text import printable
from dealerless.client.tui.wording import game_title
from dealerless.node.notices import Notice, Params, english

__all__ = [
    "PLAY_NOISE",
    "RULES",
    "TABLE_NEWS",
    "buy_in_text",
    "node_notice",
    "table_full",
    "verified_clean",
    "who_text",
]

LOG = logging.getLogger("dealerless.client.node_text")
UNKNOWN_LOGGED_MAX = 200  # bounded: a chatty peer cannot grow the set without end
_unknown_logged: set[str] = set()

Show = Callable[[str, Params], str]  # (language, the notice's params) -> what the screen shows


def _say(key: str) -> Show:
    """A notice shown as one fixed text."""
    return lambda lg, p: tr(lg, key)


def _drop(lang: str, params: Params) -> str:
    return ""


def _name(key: str, **more: str) -> Show:
    """A notice about someone (its ``who``), with more params copied as they are (numbers)."""
    return lambda lg, p: tr(
        lg, key, name=who_text(p.get("who"), lg), **{k: number(p.get(v)) for k, v in more.items()}
    )


def _numbers(key: str, **names: str) -> Show:
    """A notice with numbers only: ``names`` maps the text's fields to the notice's params."""
    return lambda lg, p: tr(lg, key, **{k: number(p.get(v)) for k, v in names.items()})


def _seconds(key: str, digits: int = 0, field: str = "seconds") -> Show:
    return lambda lg, p: tr(lg, key, **{field: number(p.get("seconds"), digits)})


def _transcript(lang: str, p: Params) -> str:
    if not p.get("verified"):
        return tr(lang, "node.not_verified")
    if p.get("violations"):
        return tr(
            lang, "node.verified_violations", n=number(p.get("records")), v=number(p["violations"])
        )
    return tr(lang, "node.verified", n=number(p.get("records")))


def _resumed(lang: str, p: Params) -> str:
    stored, hand = number(p.get("stored")), number(p.get("hand"))
    if p.get("peers"):
        text = tr(lang, "node.resumed_peers", n=stored, m=number(p["peers"]), hand=hand)
    else:
        text = tr(lang, "node.resumed", n=stored, hand=hand)
    return text + (tr(lang, "node.resumed_wait") if p.get("hold") else "")


def _cheating(lang: str, p: Params) -> str:
    count, more = p.get("count"), p.get("more")
    total = (count if isinstance(count, int) else 0) + (more if isinstance(more, int) else 0)
    return tr(lang, "node.cheating", names=names_text(p.get("culprits"), lang), n=total)


def _ready(lang: str, p: Params) -> str:
    return tr(
        lang,
        "node.ready",
        game=game_title(lang, str(p.get("game", ""))),
        seats=number(p.get("seats")),
        name=who_text(p.get("who"), lang),
    )


def _finished(lang: str, p: Params) -> str:
    hands = p.get("hands")
    if isinstance(hands, int) and hands >= 0:
        return tr(lang, "node.table_finished_after", hands=hands)
    return tr(lang, "node.table_finished")


def _text(key: str, width: int, **fields: str) -> Show:
    """A notice whose params are free text (an address, a path, a relay's words): escaped."""
    return lambda lg, p: tr(
        lg, key, **{k: printable(str(p.get(v, "")), width) for k, v in fields.items()}
    )


def _way_retry(lang: str, p: Params) -> str:
    way = way_text(str(p.get("kind", "")), str(p.get("where", "")), str(p.get("way", "")), lang)
    return tr(lang, "node.way_retry", way=way, detail=printable(str(p.get("error", "")), 400))


def _relay_barred(lang: str, p: Params) -> str:
    return tr(
        lang,
        "node.relay_barred",
        url=printable(str(p.get("url", "")), 120),
        reason=printable(str(p.get("reason", "")), 200),
    )


def _hub_note(lang: str, p: Params) -> str:
    if p.get("kind") == "handshake":
        return tr(lang, "node.refused_connection")
    more = p.get("more")
    text = tr(lang, "node.hub_note", text=printable(str(p.get("text", "")), 300))
    return text + (tr(lang, "node.hub_note_more", n=more) if isinstance(more, int) and more else "")


def _relay_pinned(lang: str, p: Params) -> str:
    return tr(
        lang,
        "node.relay_pinned",
        address=printable(str(p.get("address", "")), 60),
        fingerprint=printable(str(p.get("fingerprint", "")), 40),
    )


def _no_resume(lang: str, p: Params) -> str:
    table = p.get("table")
    if table:
        return tr(lang, "node.no_resume_id", id=printable(str(table), 40))
    return tr(lang, "node.no_resume")


def _resuming(lang: str, p: Params) -> str:
    role = p.get("role")
    if role not in ("host", "join"):
        return _unknown(Notice("resuming", p))
    return tr(
        lang,
        f"node.resuming_{role}",
        id=printable(str(p.get("table", "")), 12),
        game=game_title(lang, str(p.get("game", ""))),
    )


def _free_text(lang: str, p: Params) -> str:
    """Plain text (an exception's own words): as it is, escaped; logged as untranslated."""
    return _unknown(Notice("text", p))


RULES: Mapping[str, Show] = {
    "text": _free_text,
    # ---- the table (node/seat.py, node/seat_report.py, node/seat_end.py, node/catch_up.py)
    "connected": _say("node.connected"),
    # the move log shows these from the table's own events (HandStarted, HandEnded, GameOver,
    # TimeoutVoted), with names and the reason in the screen's language
    "hand_starts": _drop,
    "hand_ended": _drop,
    "game_over": _drop,
    "vote": _drop,
    "transcript": _transcript,
    "waiting": lambda lg, p: tr(
        lg, "node.waiting", name=who_text(p.get("who"), lg), seconds=number(p.get("seconds"), 0)
    ),
    "link_lost": _say("node.link_lost"),
    "link_lost_after_end": _say("node.link_lost"),
    "retrying": _seconds("node.retrying", 1),
    "ready": _ready,
    "peer_records_bad": _say("node.peer_records_bad"),
    "resumed": _resumed,
    "share_damaged": _say("node.share_damaged"),
    "transcript_unusable": _say("node.transcript_unusable"),
    "outbox_full": _numbers("node.outbox_full", n="n"),
    "move_refused": _say("node.move_refused"),
    "share_missing": _numbers("node.share_missing", n="hand"),
    "timed_out": _name("node.timed_out", n="hand"),
    "damaged": _say("node.damaged"),
    # a rules violation is also in the move log (Violation), with the rules' reason
    "refused_from": _name("node.refused_from"),
    "auditor_failed": _say("node.auditor_failed"),
    "cheating": _cheating,
    "never_started": _say("node.never_started"),
    # ---- seats that change between hands (node/seat_report.py, node/seat_changes.py)
    # the move log shows these from the table's events (SeatsChanging, SegmentStarted)
    "seats_change": _drop,
    "goes_on": _drop,
    "goes_on_without_us": _drop,
    # sitting out: the table screen shows it (the sitting-out panel)
    "sit_out_following": _drop,
    "asked_change": lambda lg, p: tr(
        lg, "node.asked_change", change=change_word(str(p.get("change", "")), lg)
    ),
    "cannot_change": lambda lg, p: tr(
        lg, "node.cannot_change", change=change_word(str(p.get("change", "")), lg)
    ),
    "newcomer_waits": _name("node.newcomer_waits", chips="chips"),
    "newcomer_came": _name("node.newcomer_came"),
    "cannot_reform": _say("node.cannot_reform"),
    "next_host_wait": _numbers("node.next_host_wait", n="hand"),
    "segment_voided": _numbers("node.segment_voided", n="hand"),
    "newcomers_refused": _say("node.newcomers_refused"),
    "cannot_go_on_yet": _say("node.cannot_go_on_yet"),
    "cannot_go_on": _say("node.cannot_go_on"),
    "next_host_missing": _seconds("node.next_host_missing"),
    # coming back after a sit-out (node/seat_changes.py)
    "coming_back": _say("node.coming_back"),
    "away_quiet": _seconds("node.away_quiet"),
    "comes_back": _name("node.comes_back"),
    "back_from_silence": _say("node.back_from_silence"),
    "serving_others": _say("node.serving_others"),
    # ---- joining (node/join_handshake.py, node/seat_messages.py)
    "host_refused": lambda lg, p: host_refused(lg, str(p.get("reason", ""))),
    "config_refused": _say("node.config_refused"),
    "lobby_broken": _say("node.lobby_broken"),
    # the lobby screen lists who is at the table (LobbyView), with their fingerprints
    "at_table": _drop,
    "config_unreadable": _say("node.config_unreadable"),
    "newcomer_refused": _say("node.config_unreadable"),
    "config_bad_sig": _say("node.config_bad_sig"),
    "config_not_host": _say("node.config_not_host"),
    "unanswered": _seconds("node.unanswered"),
    "finished": _finished,
    "no_seat": _say("node.no_seat"),
    "seat_open_elsewhere": _text("node.seat_open_elsewhere", 12, table="table"),
    # a newcomer at a running table checks it from its start (node/arrival.py)
    "offer_unreadable": _say("node.offer_unproven"),
    "offer_unsigned": _say("node.offer_unproven"),
    "offer_wrong": _say("node.offer_unproven"),
    "offer_ignored": _name("node.offer_ignored"),
    "offer_checking": _name("node.offer_checking", hand="hand", n="records"),
    "offer_too_big": _name("node.offer_too_big"),
    "offer_stalled": _name("node.offer_stalled", got="got", n="records"),
    "offer_refused": _name("node.offer_refused"),
    "chain_checked": lambda lg, p: tr(
        lg,
        "node.chain_checked",
        n=number(p.get("records")),
        seconds=number(p.get("seconds"), 1),
    ),
    "joined": _name("node.joined", k="count", n="seats"),
    "bad_signature": _name("node.bad_signature"),
    "peer_up": _name("node.peer_up"),
    "peer_left_end": _name("node.peer_left_end"),
    "peer_quit": _name("node.peer_quit"),
    "peer_down_wait": lambda lg, p: tr(
        lg,
        "node.peer_down_wait",
        name=who_text(p.get("who"), lg),
        seconds=number(p.get("seconds"), 0),
    ),
    "peer_down": _name("node.peer_down"),
    "released": _say("node.released"),
    # how a move travels is the node's business: the log file has it
    "direct_up": _drop,
    "direct_refused": _drop,
    # ---- links and ways in (node/app.py, node/ways.py, node/links.py, node/hub.py)
    "no_way_works": _say("node.no_way_works"),
    "nothing_answered": _seconds("node.nothing_answered"),
    "wrong_host": _text("node.wrong_host", 60, address="address"),
    "not_invited_peer": _text("node.not_invited_peer", 60, address="address"),
    "pins_unreadable": _text("node.pins_bad", 120, path="path"),
    "pins_not_map": _text("node.pins_bad", 120, path="path"),
    "way_retry": _way_retry,
    # What each Nostr relay answered, in its own words: the person can act on it (another
    # relay, a club relay) and a bug report needs it.
    "no_relay": _text("node.no_relay", 800, states="states"),
    "no_relay_now": _text("node.no_relay_now", 800, states="states"),
    "relay_barred": _relay_barred,
    # The hub's notes (node/hub.py: its bounds at work): the detail stays as the hub wrote it,
    # inside a line in the screen's language; a failed handshake is said in its own words.
    "hub_note": _hub_note,
    "old_invite": _say("node.old_invite"),
    "cannot_listen": _text("node.cannot_listen", 60, address="address"),
    "no_way_in": _say("node.no_way_in"),
    "connecting": _text("node.connecting", 60, address="address"),
    "relay_pinned": _relay_pinned,
    "slow_invite": _numbers("node.slow_invite", n="step", floor="floor"),
    "invite_no_way": _say("node.invite_no_way"),
    "known_table": _say("node.known_table"),
    "stored_unusable": _say("node.stored_unusable"),
    "no_resume": _no_resume,
    "ambiguous": _text("node.ambiguous", 40, id="table"),
    "resuming": _resuming,
    "bot_failed": _text("node.bot_failed", 80, codes="codes"),
    # ---- the client's own (client/tui/lobby.py)
    "left_early": _say("node.left_early"),
}


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


def node_notice(said: Notice, lang: str) -> str:
    """What the screen shows for one node notice ("" for nothing)."""
    rule = RULES.get(said.code)
    if rule is None:
        return _unknown(said)
    return rule(lang, said.params)


def _unknown(said: Notice) -> str:
    """A notice without a rule (or plain text): its English, escaped; logged once (the log
    file keeps every node line anyway)."""
    text = english(said)
    if text not in _unknown_logged and len(_unknown_logged) < UNKNOWN_LOGGED_MAX:
        _unknown_logged.add(text)
        # DEBUG: the log file records it; stderr (line mode) already shows the message itself
        LOG.debug("node message without a translation (shown in English): %r", text[:300])
    return printable(text, 200)


def table_full(said: Notice) -> bool:
    """Whether a node notice is the refusal of a seat at a full table."""
    return said.code == "host_refused" and said.params.get("reason") == "the table is full"


def verified_clean(said: Notice) -> bool:
    """Whether a node notice says the transcript verified by replay, without violations."""
    params = said.params
    return said.code == "transcript" and bool(params.get("verified")) and not params["violations"]
