"""From a :class:`TableSnapshot` to what the screen shows: pure functions, no prompt_toolkit
application needed (tests call them directly).

Text comes as prompt_toolkit "formatted text" (lists of ``(style, text)``); every style is a
``class:`` name so that :mod:`.views` can map it to colours or to a monochrome look. The log,
the result panel and the hand history are in :mod:`.results` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.model import InfoValue, TableSnapshot
from dealerless.client.tui.results import (
    chat_lines,
    event_lines,
    game_reason,
    hand_history,
    hand_reason,
    hand_result_lines,
    ledger_text,
    log_lines,
    new_results,
    summary,
)
from dealerless.client.tui.wording import (
    Look,
    action_text,
    card_style,
    card_text,
    cards_text,
    game_title,
    names_text,
    plain_name,
    seat_name,
    suit_text,
    team_name,
)
from dealerless.protocol.cards import Card, Suit
from dealerless.protocol.rules.base import Action, ActionKind

__all__ = [
    "ACTION_KEYS",
    "CHANGE_KEYS",
    "KIND_OF_KEY",
    "Look",
    "action_text",
    "actions",
    "away_panel",
    "card_text",
    "cards_text",
    "change_note",
    "change_refusal",
    "chat_lines",
    "countdown",
    "event_lines",
    "game_reason",
    "game_title",
    "hand",
    "hand_history",
    "hand_reason",
    "hand_result_lines",
    "header",
    "log_lines",
    "names_text",
    "new_results",
    "seat_key",
    "seat_name",
    "seats",
    "summary",
    "team_name",
    "trick",
]

Fragments = StyleAndTextTuples

# The key for each kind of move (cards are played by their number).
ACTION_KEYS: Mapping[ActionKind, str] = {
    ActionKind.KNOCK: "k",
    ActionKind.CALL: "c",
    ActionKind.FOLD: "f",
    ActionKind.RAISE: "r",
    ActionKind.BET: "b",
    ActionKind.PASS: "p",
    ActionKind.BID: "d",
    ActionKind.LAUNDRY: "l",
    ActionKind.TUPP_ATTEMPT: "u",
    ActionKind.TUPP: "t",
    ActionKind.CHECK: "x",
    ActionKind.ACCEPT: "a",
}
KIND_OF_KEY: Mapping[str, ActionKind] = {v: k for k, v in ACTION_KEYS.items()}

# The keys that ask for a seat change after this hand (the hand-by-hand games; asked first).
CHANGE_KEYS: Mapping[str, str] = {"w": "stand", "o": "sit-out"}


def change_refusal(snap: TableSnapshot, look: Look) -> str | None:
    """Why this seat cannot ask to stand up or sit out now (None: it may)."""
    lang = look.lang
    if snap.seat is None or snap.over:
        return tr(lang, "seatchange.over")
    if snap.changing:
        return tr(lang, "seatchange.between")
    if not snap.seat_changes:
        return tr(lang, "seatchange.fixed", game=game_title(lang, snap.game))
    if snap.change_wanted is not None:
        pending = tr(lang, f"seatchange.pending.{snap.change_wanted}")
        return tr(lang, "seatchange.already", pending=pending)
    return None


def seat_key(snap: TableSnapshot, look: Look, change: str) -> tuple[str | None, str | None]:
    """What the seat-change key of ``change`` ("stand" ``w``, "sit-out" ``o``) asks for now,
    to be confirmed, or else why nothing. Sitting out, ``o`` asks to come back ("back")."""
    lang = look.lang
    if not snap.sitting_out:
        why = change_refusal(snap, look)
        return (None, why) if why is not None else (change, None)
    if snap.over:
        return None, tr(lang, "seatchange.over")
    if change != "sit-out":
        return None, tr(lang, "seatchange.away")
    if snap.coming_back:
        pending = tr(lang, "seatchange.pending.back")
        return None, tr(lang, "seatchange.already", pending=pending)
    return "back", None


def change_note(snap: TableSnapshot, look: Look) -> Fragments:
    """The seat change this seat asked for, while it waits for the end of the hand (sitting
    out: that we asked to come back)."""
    if snap.over:
        return []
    if snap.coming_back:
        return [("class:note", tr(look.lang, "seatchange.pending.back") + "  ")]
    if snap.change_wanted is None:
        return []
    return [("class:note", tr(look.lang, f"seatchange.pending.{snap.change_wanted}") + "  ")]


def away_panel(snap: TableSnapshot, look: Look) -> Fragments:
    """Sitting out: what the table keeps for us, that it goes on, and the key that brings us
    back (or that we asked already)."""
    lang = look.lang
    chips = ledger_text(snap.away_ledger, snap.away_score, look)
    out: Fragments = [("class:note", tr(lang, "away.text", chips=chips))]
    if snap.coming_back:
        out.append(("class:dim", "  " + tr(lang, "seatchange.pending.back")))
    elif not snap.over:
        out.append(("class:key", "  o"))
        out.append(("class:action", " " + tr(lang, "away.key")))
    return out


# ------------------------------------------------------------------ table parts


def header(snap: TableSnapshot, look: Look) -> Fragments:
    out: Fragments = [("class:title", f" {game_title(look.lang, snap.game)} ")]
    if snap.hand_number:
        out.append(("class:header", " " + tr(look.lang, "hand.title", n=snap.hand_number)))
    for key, value in snap.info:
        out.append(("class:header", "  " + info_text(snap, key, value, look)))
    return out


def info_text(snap: TableSnapshot, key: str, value: InfoValue, look: Look) -> str:
    base, _, arg = key.partition(":")
    if base == "info.bet" and arg:
        label = tr(look.lang, "info.bet_of", name=plain_name(snap, int(arg), look))
    elif base == "info.team":
        label = tr(look.lang, "info.team", n=arg)
    else:
        label = tr(look.lang, base)
    if isinstance(value, Card):
        shown = card_text(value, look)
    elif isinstance(value, Suit):
        shown = suit_text(value, look)
    elif base == "info.taker" and isinstance(value, int):
        shown = plain_name(snap, value, look)
    elif base == "info.mode" and isinstance(value, str):
        shown = tr(look.lang, f"mode.{value}")
    else:
        shown = str(value)
    return tr(look.lang, "info.line", label=label, value=shown)


def seat_clock(snap: TableSnapshot, seat: int, now: float | None) -> int | None:
    """Seconds left on this seat's clock, if the table is waiting for it."""
    if now is None or snap.deadline is None or snap.over or snap.arbiter != seat:
        return None
    return max(0, int(snap.deadline - now + 0.999))


def seats(snap: TableSnapshot, look: Look, now: float | None = None) -> Fragments:
    """One line per seat: marker, name, score, chips in front, team, states, its clock."""
    lang = look.lang
    out: Fragments = []
    label = tr(lang, f"score.{snap.score_kind}")
    width = max(8, *(len(seat_name(snap, s, look)) for s in range(snap.players)))
    partner = (snap.seat + 2) % 4 if snap.teams and snap.seat is not None else None
    for s in range(snap.players):
        statuses = snap.statuses[s] if s < len(snap.statuses) else ()
        acting = "to_act" in statuses
        style = "class:seat.me" if s == snap.seat else "class:seat"
        if acting:
            style += " class:seat.acting"
        out.append(("class:seat.marker", " > " if acting else "   "))
        out.append((style, seat_name(snap, s, look).ljust(width)))
        if snap.teams:
            out.append(("class:seat.team", "  " + tr(lang, "info.team", n=snap.teams[s] + 1)))
        else:
            score = snap.scores[s] if s < len(snap.scores) else 0
            out.append(("class:seat.score", f"  {label} {score:>4}"))
        if s < len(snap.stacks):
            out.append(("class:seat.score", f"  {tr(lang, 'seat.stack')} {snap.stacks[s]:>4}"))
        words = [tr(lang, f"status.{k}") for k in statuses]
        if s == partner:
            words.insert(0, tr(lang, "seat.partner"))
        if s == snap.dealer and snap.hand_number:
            words.append(tr(lang, "seat.dealer"))
        if words:
            out.append(("class:seat.status", "  " + ", ".join(words)))
        left = seat_clock(snap, s, now)
        if left is not None:
            urgent = "class:countdown.urgent" if left <= 10 else "class:countdown"
            out.append((urgent, "  " + tr(lang, "seat.clock", seconds=left)))
        out.append(("", "\n"))
    return out


def _plays(snap: TableSnapshot, plays: Sequence[tuple[int, Card]], look: Look) -> Fragments:
    out: Fragments = []
    for seat, card in plays:
        out.append(("", "  " + plain_name(snap, seat, look) + " "))
        out.append((card_style(card), card_text(card, look)))
    return out


def label_text(look: Look, key: str, **values: object) -> str:
    """The text of ``key`` as a label, with its colon (French puts a space before it)."""
    return tr(look.lang, "label.colon", label=tr(look.lang, key, **values))


def trick(snap: TableSnapshot, look: Look) -> Fragments:
    """The cards on the table with who played them; when it is empty, the last trick."""
    out: Fragments = [("class:label", label_text(look, "panel.trick") + " ")]
    if snap.trick:
        out.append(
            ("class:dim", tr(look.lang, "trick.led", name=seat_name(snap, snap.leader, look)))
        )
        out.extend(_plays(snap, snap.trick, look))
    else:
        out.append(("class:dim", tr(look.lang, "trick.empty")))
    if snap.last_trick is not None and not snap.trick:
        plays, winner = snap.last_trick
        last = label_text(look, "trick.last", name=seat_name(snap, winner, look))
        out.append(("class:dim", "   " + last))
        out.extend(_plays(snap, plays, look))
    out.append(("", "\n"))
    return out


def hand(snap: TableSnapshot, look: Look, selected: int | None) -> Fragments:
    """The local hand, numbered; playable cards bright, the others dimmed in parentheses."""
    if snap.seat is None:  # an auditor (replay) sees no hand
        return [("", "")]
    out: Fragments = [("class:label", label_text(look, "panel.hand") + " ")]
    playable = snap.playable()
    if not snap.hand:
        out.append(("class:dim", tr(look.lang, "hand.empty")))
    for i, card in enumerate(snap.hand):
        can = card is not None and card in playable
        text = card_text(card, look)
        if playable and not can:
            text = f"({text})"
        style = card_style(card) + (" class:card.legal" if can else "")
        if playable and not can:
            style = "class:card.illegal"
        if selected == i:
            style += " class:card.selected"
            text = f">{text}<"
        out.append(("class:card.number", f" {i + 1}:"))
        out.append((style, text))
    out.append(("", "\n"))
    return out


def grouped_actions(snap: TableSnapshot) -> list[tuple[ActionKind, list[Action]]]:
    groups: dict[ActionKind, list[Action]] = {}
    for action in snap.others():
        groups.setdefault(action.kind, []).append(action)
    return list(groups.items())


def note_text(snap: TableSnapshot, key: str, values: Mapping[str, InfoValue], look: Look) -> str:
    """A note of the model (why the moves are what they are) in words."""
    shown: dict[str, object] = dict(values)
    seat = values.get("seat")
    shown["name"] = seat_name(snap, seat if isinstance(seat, int) else None, look)
    seats_ = values.get("seats")
    if isinstance(seats_, str):
        numbers = [int(x) for x in seats_.split(",") if x]
        shown["names"] = names_text(snap, numbers, look)
    return tr(look.lang, key, **shown)


def actions(
    snap: TableSnapshot, look: Look, chooser: Sequence[Action] | None = None, chosen: int = 0
) -> Fragments:
    """The moves this seat has now, with their keys (or a chooser among variants), and why
    they are what they are."""
    lang = look.lang
    out: Fragments = [("class:label", label_text(look, "panel.actions") + " ")]
    if chooser:
        out.append(
            ("class:dim", tr(lang, "actions.choose", what=tr(lang, f"act.{chooser[0].kind.value}")))
        )
        out.append(("", "\n "))
        for i, action in enumerate(chooser):
            style = "class:action.selected" if i == chosen else "class:action"
            key = f"{i + 1})" if i < 9 else "  "
            out.append(("class:key", f" {key}"))
            out.append((style, " " + action_text(action, look) + " "))
        out.append(("", "\n"))
        return out
    if snap.sitting_out:
        return [*out, *away_panel(snap, look), ("", "\n")]
    if not snap.legal:
        if snap.over:
            out.append(("class:dim", tr(lang, "end.game")))
        elif snap.changing:
            out.append(("class:dim", tr(lang, "actions.changing")))
        elif snap.arbiter is not None and snap.arbiter != snap.seat:
            out.append(
                ("class:dim", tr(lang, "actions.wait", names=seat_name(snap, snap.arbiter, look)))
            )
        else:
            out.append(("class:dim", tr(lang, "actions.none")))
    else:
        if not snap.my_turn:
            out.append(("class:dim", tr(lang, "actions.optional") + " "))
        if snap.playable():
            out.append(("class:dim", tr(lang, "actions.play")))
        for kind, group in grouped_actions(snap):
            out.append(("class:key", f"  {ACTION_KEYS[kind]}"))
            if len(group) == 1:
                out.append(("class:action", " " + action_text(group[0], look)))
            else:
                low = action_text(group[0], look, with_kind=False)
                high = action_text(group[-1], look, with_kind=False)
                out.append(("class:action", f" {tr(lang, f'act.{kind.value}')} ({low} .. {high})"))
    for key, values in snap.notes:
        out.append(("", "\n"))
        out.append(("class:note", " * " + note_text(snap, key, values, look)))
    out.append(("", "\n"))
    return out


def countdown(snap: TableSnapshot, look: Look, now: float) -> Fragments:
    if snap.deadline is None or snap.over or snap.arbiter is None:
        return [("class:dim", tr(look.lang, "keys.hint"))]
    seconds = max(0, int(snap.deadline - now + 0.999))
    style = "class:countdown.urgent" if seconds <= 10 else "class:countdown"
    name = seat_name(snap, snap.arbiter, look)
    return [
        (style, tr(look.lang, "deadline", seconds=seconds, name=name)),
        ("class:dim", "   " + tr(look.lang, "keys.hint")),
    ]
