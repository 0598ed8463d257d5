"""The rules viewer's text: one short rule book per game and language, shipped inside the
package (``client/tui/rules/GAME.LANG.md``, package data), with the card order and a worked
example, followed by the table's house-rule options with their translated names.

spec/rules/ holds the full rule-by-rule mapping for implementers; these files are the player's
summary of the same rules (spec/rules/*.md link to them). :func:`rules_lines` wraps them to the
width of the screen at word boundaries.
"""

from __future__ import annotations

import textwrap
from importlib import resources

from dealerless.client.tui.i18n import LANGUAGES, tr
from dealerless.protocol.rules.base import OptionSpec, OptionValue
from dealerless.protocol.rules.registry import game_spec

# Limit, No Limit and Pot Limit Tuppen share one rule book.
BOOK_OF_GAME = {
    "tuppen": "tuppen",
    "limit-tuppen": "limit-tuppen",
    "no-limit-tuppen": "limit-tuppen",
    "pot-limit-tuppen": "limit-tuppen",
    "pottuppen": "pottuppen",
    "belote": "belote",
}


def rules_source(game: str, lang: str) -> str:
    """The rule book of ``game`` in ``lang`` (English if there is none in that language)."""
    book = BOOK_OF_GAME[game]
    folder = resources.files("dealerless.client.tui") / "rules"
    for code in (lang, "en"):
        if code in LANGUAGES:
            entry = folder / f"{book}.{code}.md"
            if entry.is_file():
                return entry.read_text(encoding="utf-8")
    raise FileNotFoundError(f"no rule book for {game}")


def value_text(lang: str, value: OptionValue) -> str:
    """An option value as a player reads it: yes/no, a translated choice, a number."""
    if isinstance(value, bool):
        return tr(lang, "settings.yes" if value else "settings.no")
    if isinstance(value, str):
        key = f"value.{value}"
        text = tr(lang, key)
        return value if text == key else text
    return str(value)


def option_name(lang: str, option: OptionSpec) -> str:
    key = f"rule.{option.name}"
    text = tr(lang, key)
    return option.name if text == key else text


def _wrap(text: str, width: int, indent: str = "", first: str = "") -> list[str]:
    return textwrap.wrap(
        text,
        width=max(20, width),
        initial_indent=first or indent,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [""]


def markdown_lines(source: str, width: int) -> list[str]:
    """The book's light markdown as text lines no wider than ``width`` (except verbatim lines):
    headings, paragraphs re-wrapped at spaces, bullets with a hanging indent, indented lines
    kept as they are (the card order)."""
    out: list[str] = []
    paragraph: list[str] = []
    bullet = False

    def flush() -> None:
        nonlocal paragraph, bullet
        if paragraph:
            text = " ".join(paragraph)
            if bullet:
                out.extend(_wrap(text[2:], width, indent="    ", first="  - "))
            else:
                out.extend(_wrap(text, width))
        paragraph, bullet = [], False

    for raw in source.splitlines():
        line = raw.rstrip()
        if not line:
            flush()
            out.append("")
        elif line.startswith("#"):
            flush()
            title = line.lstrip("#").strip()
            out.append(title.upper() if line.startswith("# ") else title)
        elif line.startswith("    "):
            flush()
            out.append(line)
        elif line.startswith("- "):
            flush()
            paragraph, bullet = [line], True
        else:
            paragraph.append(line.strip())
    flush()
    while out and not out[-1]:
        out.pop()
    return out


_SUIT_LETTERS = str.maketrans({"♣": "C", "♦": "D", "♥": "H", "♠": "S"})


def rules_lines(game: str, lang: str, width: int = 78, *, unicode: bool = True) -> list[str]:
    """What the rules viewer shows for ``game``: the rule book, the number of players and the
    house rules of this game with their defaults (suit letters instead of symbols unless
    ``unicode``)."""
    spec = game_spec(game)
    source = rules_source(game, lang)
    if not unicode:
        source = source.translate(_SUIT_LETTERS)
    lines = markdown_lines(source, width)
    lines.append("")
    lines.append(tr(lang, "rules.players", low=spec.min_players, high=spec.max_players))
    if spec.options:
        lines.append("")
        lines.append(tr(lang, "rules.options"))
        for option in spec.options:
            text = tr(
                lang,
                "rules.option",
                name=option_name(lang, option),
                value=value_text(lang, option.default),
                option=option.name,
            )
            lines.extend(_wrap(text, width, indent="      ", first="  "))
    lines.append("")
    lines.append(tr(lang, "rules.more", game=game))
    return lines
