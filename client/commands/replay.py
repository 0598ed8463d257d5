"""``dealerless replay FILE``: verify a saved game's transcript again and step through it."""

from __future__ import annotations

import argparse
import sys

from dealerless.client.commands.games import add_home, resolve_game_file
from dealerless.client.tui.i18n import LANGUAGES, detect_language, tr

HELP = "re-verify a saved game (transcript file) and step through it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", help="a transcript file, or the number of a game in `dealerless games`"
    )
    add_home(parser)
    parser.add_argument(
        "--plain", action="store_true", help="print the game as text (for scripts) and exit"
    )
    parser.add_argument("--lang", choices=LANGUAGES, default=None, help="en, de, nl or fr")
    parser.add_argument("--ascii", action="store_true", help="suit letters instead of symbols")
    parser.add_argument("--mono", action="store_true", help="no colours")


def plain_text(replay: object, lang: str, unicode: bool) -> list[str]:
    from dealerless.client.tui import presenter as P
    from dealerless.client.tui.replay import Replay

    assert isinstance(replay, Replay)
    look = P.Look(lang, unicode)
    final = replay.snapshots[-1]
    names = P.names_text(final, range(final.players), look)
    title = P.game_title(lang, final.game)
    steps = len(replay.snapshots) - 1  # moves and deals, as the screen steps through them
    lines = [tr(lang, "replay.header", title=title, names=names, n=steps)]
    lines.extend(P.log_lines(final, look))
    lines.append("")
    lines.extend(P.summary(final, look, final.results[-1] if final.results else None))
    if replay.verified:
        lines.append(tr(lang, "replay.ok"))
    else:
        lines.append(tr(lang, "replay.bad", reason=replay.problem))
    return lines


def run(args: argparse.Namespace) -> int:
    from dealerless.client.tui.replay import ReplayError, ReplaySession, load_replay

    lang = detect_language(args.lang)
    try:
        args.file = resolve_game_file(args.file, getattr(args, "home", None))
    except ValueError as exc:
        print(f"dealerless replay: {exc}", file=sys.stderr)
        return 2
    try:
        replay = load_replay(args.file)
    except ReplayError as exc:
        print(f"dealerless replay: {args.file}: {exc}", file=sys.stderr)
        return 2
    if args.plain:
        for line in plain_text(replay, lang, not args.ascii):
            print(line)
        return 0 if replay.verified else 1
    from dealerless.client.logs import screen_mode
    from dealerless.client.tui.app import TableApp

    session = ReplaySession(replay)
    app = TableApp(session, lang=lang, unicode=not args.ascii, mono=args.mono, replay=session)
    with screen_mode():
        code = app.run()
    return code if replay.verified else 1
