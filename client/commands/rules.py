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
    else:
        print("\n\n".join(_spec_text(s) for s in specs))
    return 0
