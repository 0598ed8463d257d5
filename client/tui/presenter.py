"""From a :class:`TableSnapshot` to what the screen shows: pure functions, no prompt_toolkit
application needed (tests call them directly).

Text comes as prompt_toolkit "formatted text" (lists of ``(style, text)``); every style is a
``class:`` name so that :mod:`.views` can map it to colours or to a monochrome look.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.model import InfoValue, TableSnapshot
from dealerless.protocol.cards import Card, Suit
from dealerless.protocol.rules.base import Action, ActionKind, HandResult, Outcome
from dealerless.protocol.rules.reasons import GameEnd, HandEnd
from dealerless.protocol.table.events import (
    ActionApplied,
    CardsDealt,
    CardsShown,
    GameOver,
    HandEnded,
    HandSigned,
    HandStarted,
    TableEvent,
    TimeoutVoted,
    Violation,
)

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


@dataclass(frozen=True)
class Look:
    """How to draw: language, suit symbols or letters."""

    lang: str = "en"
    unicode: bool = True


def card_text(card: Card | None, look: Look) -> str:
    return "??" if card is None else card.pretty(look.unicode)


def card_style(card: Card | None) -> str:
    if card is None:
        return "class:card.hidden"
    return "class:card.red" if card.suit in (Suit.HEARTS, Suit.DIAMONDS) else "class:card.black"


def suit_text(suit: Suit, look: Look) -> str:
    return suit.symbol if look.unicode else suit.letter


def cards_text(indices: Sequence[int] | Sequence[Card], look: Look) -> str:
    return " ".join(
        card_text(c if isinstance(c, Card) else Card.from_index(c), look) for c in indices
    )


def seat_name(snap: TableSnapshot, seat: int | None, look: Look) -> str:
    if seat is None:
        return tr(look.lang, "who.table")
    if not 0 <= seat < len(snap.names):
        return f"seat {seat}"
    name = snap.names[seat]
    return f"{name} ({tr(look.lang, 'seat.you')})" if seat == snap.seat else name


def names_text(snap: TableSnapshot, seats: Sequence[int], look: Look) -> str:
    if not seats:
        return tr(look.lang, "who.nobody")
    return ", ".join(seat_name(snap, s, look) for s in seats)


def action_text(action: Action, look: Look, *, with_kind: bool = True) -> str:
    """A move in plain words, without the seat: 'knock', 'bid ♥', 'raise 2', 'play 7♣'."""
    parts = [tr(look.lang, f"act.{action.kind.value}")] if with_kind else []
    if action.card is not None and action.kind is ActionKind.PLAY:
        parts.append(card_text(action.card, look))
    if action.cards:
        parts.append("[" + cards_text(action.cards, look) + "]")
    if action.card is not None and action.kind is not ActionKind.PLAY:
        parts.append("-> " + card_text(action.card, look))
    if action.suit is not None:
        parts.append(suit_text(action.suit, look))
    if action.amount is not None:
        parts.append(str(action.amount))
    return " ".join(parts)


# ------------------------------------------------------------------ table parts


def header(snap: TableSnapshot, look: Look) -> Fragments:
    out: Fragments = [("class:title", f" {snap.title} ")]
    if snap.hand_number:
        out.append(("class:header", " " + tr(look.lang, "hand.title", n=snap.hand_number)))
    for key, value in snap.info:
        out.append(("class:header", "  " + info_text(snap, key, value, look)))
    return out


def info_text(snap: TableSnapshot, key: str, value: InfoValue, look: Look) -> str:
    base, _, arg = key.partition(":")
    if base == "info.bet" and arg:
        label = f"{seat_name(snap, int(arg), look)} {tr(look.lang, 'status.bet')}"
    elif base == "info.team":
        label = tr(look.lang, "info.team", n=arg)
    else:
        label = tr(look.lang, base)
    if isinstance(value, Card):
        shown = card_text(value, look)
    elif isinstance(value, Suit):
        shown = suit_text(value, look)
    elif base == "info.taker" and isinstance(value, int):
        shown = seat_name(snap, value, look)
    else:
        shown = str(value)
    return f"{label}: {shown}"


def seats(snap: TableSnapshot, look: Look) -> Fragments:
    """One line per seat: marker, name, score, states, dealer."""
    out: Fragments = []
    label = tr(look.lang, f"score.{snap.score_kind}")
    width = max(8, *(len(seat_name(snap, s, look)) for s in range(snap.players)))
    for s in range(snap.players):
        statuses = snap.statuses[s] if s < len(snap.statuses) else ()
        acting = "to_act" in statuses
        style = "class:seat.me" if s == snap.seat else "class:seat"
        if acting:
            style += " class:seat.acting"
        out.append(("class:seat.marker", " > " if acting else "   "))
        out.append((style, seat_name(snap, s, look).ljust(width)))
        score = snap.scores[s] if s < len(snap.scores) else 0
        out.append(("class:seat.score", f"  {label} {score:>4}"))
        if s < len(snap.stacks):
            out.append(("class:seat.score", f"  {tr(look.lang, 'seat.stack')} {snap.stacks[s]:>4}"))
        words = [tr(look.lang, f"status.{k}") for k in statuses]
        if s == snap.dealer and snap.hand_number:
            words.append(tr(look.lang, "seat.dealer"))
        if words:
            out.append(("class:seat.status", "  " + ", ".join(words)))
        out.append(("", "\n"))
    return out


def trick(snap: TableSnapshot, look: Look) -> Fragments:
    out: Fragments = [("class:label", tr(look.lang, "panel.trick") + ": ")]
    if snap.trick:
        out.append(
            ("class:dim", tr(look.lang, "trick.led", name=seat_name(snap, snap.leader, look)))
        )
        for seat, card in snap.trick:
            out.append(("", "  " + snap.names[seat] + " "))
            out.append((card_style(card), card_text(card, look)))
    else:
        out.append(("class:dim", tr(look.lang, "trick.empty")))
    if snap.last_trick is not None and not snap.trick:
        plays, winner = snap.last_trick
        out.append(
            ("class:dim", "   " + tr(look.lang, "trick.last", name=seat_name(snap, winner, look)))
        )
        out.append(("class:dim", ": " + " ".join(card_text(c, look) for _, c in plays)))
    out.append(("", "\n"))
    return out


def hand(snap: TableSnapshot, look: Look, selected: int | None) -> Fragments:
    """The local hand, numbered; playable cards bright, the others dimmed in parentheses."""
    if snap.seat is None:  # an auditor (replay) sees no hand
        return [("", "")]
    out: Fragments = [("class:label", tr(look.lang, "panel.hand") + ": ")]
    playable = snap.playable()
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


def actions(
    snap: TableSnapshot, look: Look, chooser: Sequence[Action] | None = None, chosen: int = 0
) -> Fragments:
    """The moves this seat has now, with their keys (or a chooser among variants)."""
    lang = look.lang
    out: Fragments = [("class:label", tr(lang, "panel.actions") + ": ")]
    if chooser:
        out.append(
            ("class:dim", tr(lang, "actions.choose", what=tr(lang, f"act.{chooser[0].kind.value}")))
        )
        out.append(("", "\n "))
        for i, action in enumerate(chooser):
            style = "class:action.selected" if i == chosen else "class:action"
            key = str(i + 1) if i < 9 else " "
            out.append(("class:key", f" {key}"))
            out.append((style, " " + action_text(action, look, with_kind=False) + " "))
        out.append(("", "\n"))
        return out
    if not snap.legal:
        if snap.over:
            out.append(("class:dim", tr(lang, "end.game")))
        elif snap.arbiter is not None and snap.arbiter != snap.seat:
            out.append(
                ("class:dim", tr(lang, "actions.wait", names=seat_name(snap, snap.arbiter, look)))
            )
        else:
            out.append(("class:dim", tr(lang, "actions.none")))
        out.append(("", "\n"))
        return out
    if not snap.my_turn:
        out.append(("class:dim", tr(lang, "actions.optional") + " "))
    if snap.playable():
        out.append(("class:dim", tr(lang, "actions.play")))
    for kind, group in grouped_actions(snap):
        out.append(("class:key", f"  {ACTION_KEYS[kind]}"))
        if len(group) == 1:
            out.append(("class:action", " " + action_text(group[0], look)))
        else:
            variants = action_text(group[0], look, with_kind=False)
            if len(group) > 1:
                variants += " .. " + action_text(group[-1], look, with_kind=False)
            out.append(("class:action", f" {tr(lang, f'act.{kind.value}')} ({variants})"))
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


# ------------------------------------------------------------------ the log


def event_lines(snap: TableSnapshot, event: TableEvent, look: Look) -> list[str]:
    """An event in plain words ([] for the bookkeeping the player does not need)."""
    lang = look.lang
    if isinstance(event, HandStarted):
        return [
            tr(lang, "log.hand_started", n=event.hand, dealer=seat_name(snap, event.dealer, look))
        ]
    if isinstance(event, CardsDealt):
        return [tr(lang, "log.dealt", cards=cards_text([c for _, c in event.cards], look))]
    if isinstance(event, CardsShown):
        cards = cards_text([c for _, c in event.cards], look)
        if event.seat is None:
            return [tr(lang, "log.turned", cards=cards)]
        return [tr(lang, "log.shown", who=seat_name(snap, event.seat, look), cards=cards)]
    if isinstance(event, ActionApplied):
        a = event.action
        text = tr(lang, "log.action", who=seat_name(snap, a.seat, look), what=action_text(a, look))
        if event.by_timeout:
            text += tr(lang, "log.timeout")
        lines = [text]
        for r in event.rules_events:
            if r.kind in ("trick", "trick_won"):
                n = r.data.get("number", r.data.get("trick", ""))
                lines.append(tr(lang, "log.trick", who=seat_name(snap, r.seat, look), n=n))
        return lines
    if isinstance(event, HandEnded):
        return hand_result_lines(snap, event.result, look, aborted=event.aborted)
    if isinstance(event, HandSigned):
        return [tr(lang, "log.signed", n=event.hand)]
    if isinstance(event, GameOver):
        return [
            tr(
                lang,
                "log.game_over",
                winners=names_text(snap, event.outcome.winners, look),
                reason=game_reason(event.outcome, look),
            )
        ]
    if isinstance(event, Violation):
        return [
            tr(lang, "log.violation", who=seat_name(snap, event.culprit, look), reason=event.reason)
        ]
    if isinstance(event, TimeoutVoted):
        return [tr(lang, "log.timeout_vote", who=seat_name(snap, event.silent, look))]
    return []


def hand_reason(snap: TableSnapshot, result: HandResult, look: Look) -> str:
    """Why the hand ended, in the screen's language (the English text for an unknown code)."""
    lang, code, details = look.lang, result.code, result.details
    if code == HandEnd.VOIDED:
        return tr(lang, "reason.voided", why=result.note or result.reason)
    if code in (HandEnd.CONTRACT_MADE, HandEnd.CONTRACT_FAILED):
        text = tr(lang, f"reason.{code}")
        if details.get("solo_capot_seat") is not None:
            text += tr(lang, "reason.solo", who=seat_name(snap, details["solo_capot_seat"], look))
        elif details.get("capot_team") is not None:
            text += tr(lang, "reason.capot", team=details["capot_team"])
        return text
    return tr(lang, f"reason.{code}") if code in set(HandEnd) else result.reason


def game_reason(outcome: Outcome, look: Look) -> str:
    """Why the game ended, in the screen's language."""
    if outcome.code == GameEnd.TARGET_REACHED and outcome.winners:
        first = outcome.winners[0]
        points = outcome.standings[first]
        return tr(look.lang, "reason.target_reached", team=first % 2, points=points)
    if outcome.code in set(GameEnd):
        return tr(look.lang, f"reason.{outcome.code}")
    return outcome.reason


def hand_result_lines(
    snap: TableSnapshot, result: HandResult, look: Look, *, aborted: bool = False
) -> list[str]:
    lang = look.lang
    if aborted:
        why = result.note or result.reason
        first = tr(lang, "log.aborted", n=result.hand_number, reason=why)
    else:
        first = tr(
            lang,
            "log.hand_ended",
            n=result.hand_number,
            winners=names_text(snap, result.winners, look),
            reason=hand_reason(snap, result, look),
        )
    deltas = ", ".join(
        f"{snap.names[s]} {d:+d}" for s, d in enumerate(result.deltas) if d and s < len(snap.names)
    )
    return [first] + ([tr(lang, "log.deltas", deltas=deltas)] if deltas else [])


def log_lines(snap: TableSnapshot, look: Look) -> list[str]:
    lines: list[str] = []
    for event in snap.log:
        lines.extend(event_lines(snap, event, look))
    for error in snap.errors:
        internal = error.startswith("internal error")
        lines.append(error if internal else tr(look.lang, "log.error", reason=error))
    return lines


def chat_lines(snap: TableSnapshot, look: Look) -> list[str]:
    return [tr(look.lang, "log.chat", who=seat_name(snap, s, look), text=t) for s, t in snap.chat]


# ------------------------------------------------------------------ end of a hand / game


def summary(snap: TableSnapshot, look: Look, result: HandResult | None) -> list[str]:
    """The end-of-hand (or end-of-game) panel: who won what and why, standings, proofs."""
    lang = look.lang
    lines: list[str] = []
    if snap.over and snap.outcome is not None:
        lines.append(tr(lang, "end.game"))
        lines.append(tr(lang, "end.winners", names=names_text(snap, snap.outcome.winners, look)))
        lines.append(tr(lang, "end.reason", reason=game_reason(snap.outcome, look)))
    elif result is not None:
        lines.append(tr(lang, "end.hand", n=result.hand_number))
        lines.append(tr(lang, "end.winners", names=names_text(snap, result.winners, look)))
        lines.append(tr(lang, "end.reason", reason=hand_reason(snap, result, look)))
        lines.extend(hand_result_lines(snap, result, look)[1:])
    lines.append("")
    lines.append(tr(lang, "end.standings") + f" ({tr(lang, f'score.{snap.score_kind}')}):")
    for s in range(snap.players):
        lines.append(f"  {seat_name(snap, s, look):<16} {snap.scores[s]:>6}")
    lines.append("")
    if result is not None and not snap.over:
        signed = any(isinstance(e, HandSigned) and e.hand == result.hand_number for e in snap.log)
        lines.append(tr(lang, "end.signed" if signed else "end.unsigned"))
    if snap.violations:
        text = "; ".join(
            f"{seat_name(snap, v.culprit, look)}: {v.reason} ({len(v.evidence)} signed messages)"
            for v in snap.violations
        )
        lines.append(tr(lang, "end.cheats", text=text))
    else:
        lines.append(tr(lang, "end.proofs_ok"))
    return lines
