"""Pieces of the node's notices in the screen's words (client/tui/node_text.py): who a notice
names, a way in, a host's refusal, a number.

A host's refusal travels as the host's own words (a peer, maybe of another version): the
reasons this version's hosts give are translated, any other is shown escaped.
"""

from __future__ import annotations

import re

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.safe_text import printable
from dealerless.client.tui.wording import person_name
from dealerless.node.notices import Param, Who

__all__ = [
    "buy_in_text",
    "change_word",
    "host_refused",
    "names_text",
    "number",
    "way_text",
    "who_text",
]


def who_text(who: Param | None, lang: str) -> str:
    """Someone a notice names, as the screen names them: by name, never by a seat number
    counted from 0; an invalid key as "an unknown player"."""
    if not isinstance(who, Who):
        return printable(str(who or "?"), 40)
    if who.seat is not None or who.name is not None:
        return person_name(lang, who.name or "", 40)
    if who.fingerprint is not None:
        return person_name(lang, who.fingerprint, 40)
    if who.invalid:
        return tr(lang, "node.invalid_key")
    return person_name(lang, "?", 40)


def names_text(who: Param | None, lang: str) -> str:
    """Several people (a tuple of :class:`Who`), by name: ``ann, cy``."""
    if isinstance(who, tuple):
        return ", ".join(who_text(w, lang) for w in who)
    return who_text(who, lang)


def number(value: Param | None, digits: int | None = None) -> str:
    """A count or a time as the node wrote it (``digits``: after the point, for a time)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return printable(str(value if value is not None else ""), 20)
    if digits is None:
        return str(value)
    return f"{value:.{digits}f}"


def way_text(kind: str, where: str, label: str, lang: str) -> str:
    """A way in (``direct``/``relay`` with an address, ``nostr`` with a number of relays)."""
    if kind in ("direct", "relay"):
        return tr(lang, f"node.way_{kind}", address=printable(where, 60))
    if kind == "nostr":
        return (
            tr(lang, "node.way_nostr_one") if where == "1" else tr(lang, "node.way_nostr", n=where)
        )
    if kind == "links":  # the seats' direct links (node/table_ways.py)
        return tr(lang, "node.way_direct", address="links")
    return printable(label, 60)


def change_word(change: str, lang: str) -> str:
    """``stand`` / ``sit out`` / ``sit-out`` (as the node writes a seat change) in the screen's
    words."""
    return tr(lang, "change.sit-out" if change.startswith("sit") else "change.stand")


_REFUSED = {
    "the table is full": "node.refused_full",
    "no valid proof of the invite's token": "node.refused_proof",
    "the table is full and enough players wait for a seat": "node.refused_waiting_full",
    "this table is finished: its game is over": "node.table_finished",
}


def host_refused(lang: str, reason: str) -> str:
    """Why the host refused us a seat (its own words: node/join_handshake.py, seat_changes.py)."""
    key = _REFUSED.get(reason)
    if key is not None:
        return tr(lang, key)
    if reason.startswith("buy-in refused: "):
        return tr(lang, "node.refused_buy_in", why=buy_in_text(reason[16:], lang))
    return tr(lang, "node.host_refused", reason=printable(reason, 120))  # the host's own words


def buy_in_text(reason: str, lang: str) -> str:
    """Why the rules refuse a buy-in (protocol/rules: newcomer_ledger, as the host sent it),
    in the screen's words."""
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
