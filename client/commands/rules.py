"""``dealerless rules [GAME]``: the games, their options and defaults."""

from __future__ import annotations

import argparse
import json
import sys

from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import GameSpec, game_names, game_spec

HELP = "list the games, their options and defaults"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", help="one game (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--lang", default=None, help="en, de, nl or fr (default: from the locale)")
    parser.add_argument("--ascii", action="store_true", help="suit letters instead of symbols")
    parser.add_argument(
        "--options-only", action="store_true", help="only the options, not the rule book"
    )


def _spec_json(spec: GameSpec) -> dict[str, object]:
    return {
        "game": spec.name,
        "title": spec.title,
        "players": [spec.min_players, spec.max_players],
        "score": spec.score_kind,
        "seeds": spec.seeds,
        "summary": spec.summary,
        "options": [
            {
                "name": o.name,
                "default": o.default,
                "description": o.description,
                **({"choices": list(o.choices)} if o.choices else {}),
                **({"minimum": o.minimum} if o.minimum is not None else {}),
                **({"maximum": o.maximum} if o.maximum is not None else {}),
            }
            for o in spec.options
        ],
    }


def _spec_text(spec: GameSpec) -> str:
    lines = [
        f"{spec.name}: {spec.title}",
        f"  {spec.min_players} to {spec.max_players} players; score: {spec.score_kind};"
        f" from {spec.seeds}",
        f"  {spec.summary}",
    ]
    if spec.options:
        lines.append("  options (--rule NAME=VALUE):")
        for o in spec.options:
            default = str(o.default).lower() if isinstance(o.default, bool) else str(o.default)
            extra = ""
            if o.choices:
                extra = f" [{' | '.join(o.choices)}]"
            elif o.minimum is not None or o.maximum is not None:
                lo = "" if o.minimum is None else str(o.minimum)
                hi = "" if o.maximum is None else str(o.maximum)
                extra = f" [{lo}..{hi}]"
            lines.append(f"    {o.name} = {default}{extra}")
            lines.append(f"        {o.description}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        names = [args.game] if args.game else game_names()
        specs = [game_spec(n) for n in names]
    except ConfigError as exc:
        print(f"dealerless rules: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([_spec_json(s) for s in specs], indent=2))
    elif args.options_only or not args.game:
        print("\n\n".join(_spec_text(s) for s in specs))
        if not args.game:
            print("\n(`dealerless rules GAME` shows the rules of one game: card order, a hand,")
            print(" the house rules and an example)")
    else:
        from dealerless.client.tui.i18n import detect_language
        from dealerless.client.tui.rules_book import rules_lines

        lang = detect_language(args.lang)
        print("\n".join(rules_lines(specs[0].name, lang, 78, unicode=not args.ascii)))
    return 0
