"""Words shared by every part of the screen and by line mode: cards, seats by name, moves.

Everything here is translated through :mod:`.i18n` and never shows a Python repr; names and
other text from peers pass :func:`~.safe_text.printable`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.model import TableSnapshot
from dealerless.client.tui.safe_text import printable
from dealerless.protocol.cards import Card, Suit
from dealerless.protocol.rules.base import Action, ActionKind
from dealerless.protocol.rules.registry import game_names


@dataclass(frozen=True)
class Look:
    """How to draw: language, suit symbols or letters."""

    lang: str = "en"
    unicode: bool = True


# The names the programs give a player who chose none (node/portable.user_name's fallback and
# the settings' default "player"; `dealerless play`'s "you"): words, not names, so they are
# shown in the screen's language wherever a name is.
DEFAULT_NAMES: Mapping[str, str] = {"player": "name.player", "you": "seat.you"}


def person_name(lang: str, name: str, width: int = 24) -> str:
    """A player's name as the screen shows it: escaped, a default name translated."""
    key = DEFAULT_NAMES.get(name)
    return tr(lang, key) if key is not None else printable(name, width)


def game_title(lang: str, game: str) -> str:
    """A game's name in ``lang`` (the registry's titles are English); a game this version does
    not know (named by a peer or a newer version) as it is, escaped."""
    if game in game_names():
        return tr(lang, f"game.{game}")
    return printable(game, 30)


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


def plain_name(snap: TableSnapshot, seat: int | None, look: Look) -> str:
    """A seat's name as the others know it (no "(you)"); seats are counted from 1."""
    if seat is None:
        return tr(look.lang, "who.table")
    if not 0 <= seat < len(snap.names):
        return tr(look.lang, "who.seat", n=seat + 1)
    return person_name(look.lang, snap.names[seat]) or tr(look.lang, "who.seat", n=seat + 1)


def seat_name(snap: TableSnapshot, seat: int | None, look: Look) -> str:
    """A seat's name; the local seat is marked "(you)" unless its name already says so."""
    name = plain_name(snap, seat, look)
    if seat is not None and seat == snap.seat:
        you = tr(look.lang, "seat.you")
        if name.casefold() not in {you.casefold(), "you"}:
            return f"{name} ({you})"
    return name


def names_text(snap: TableSnapshot, seats: Sequence[int], look: Look) -> str:
    if not seats:
        return tr(look.lang, "who.nobody")
    return ", ".join(seat_name(snap, s, look) for s in seats)


def team_name(snap: TableSnapshot, team: int, look: Look) -> str:
    """Belote: "team 2 (bob, dee)"; teams are counted from 1 as in the header."""
    members = [s for s in range(snap.players) if s % 2 == team]
    names = ", ".join(plain_name(snap, s, look) for s in members)
    return tr(look.lang, "team.name", n=team + 1, names=names)


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
