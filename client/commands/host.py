"""``dealerless host``: create a table, print its invite code, and play a seat at it."""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from dealerless.client.bots.driver import BotDriver
from dealerless.client.commands.play import (
    add_level_argument,
    add_screen_arguments,
    dealerless_command,
    line_driver,
    line_say,
    plain_mode,
    run_on_screen,
    screen_node_options,
)
from dealerless.client.config import apply_config
from dealerless.node.app import EventLog, host_table, logged_say, stderr_say
from dealerless.node.cli_common import (
    add_common,
    default_name,
    load_identity_or_say,
    node_options,
    write_private,
)
from dealerless.node.identity import Identity, normalize_fingerprint
from dealerless.node.invite import Invite
from dealerless.node.local_game import BotJoiners
from dealerless.node.nostr.defaults import CANDIDATES, DEFAULT_SET, parse_relay_list
from dealerless.node.nostr.probe import choose, probe_all
from dealerless.node.options import NodeOptions
from dealerless.node.store import TableMeta
from dealerless.node.table_ways import is_private_address
from dealerless.node.wire import parse_address
from dealerless.protocol.rules.base import ConfigError, GameConfig
from dealerless.protocol.rules.registry import game_names, make_config, parse_rule_args
from dealerless.protocol.table.config import MAX_STEP_TIMEOUT_MS, MIN_STEP_TIMEOUT_MS

HELP = "create a table, show the invite code for the other players, and play a seat"
TABLE_RELAYS = 3  # relays a table meets on when the host chose them by asking
ASK_RELAYS_S = 6.0  # the most asking them may delay the table (they are asked at once)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        required=True,
        choices=game_names(),
        metavar="GAME",
        help=f"one of: {', '.join(game_names())}",
    )
    parser.add_argument("--seats", type=int, required=True, metavar="N", help="number of seats")
    parser.add_argument(
        "--bots",
        type=int,
        default=0,
        metavar="N",
        help="bots fill N of the seats (each a node process of its own that joins with the "
        "invite once the table is ready); the others are for people (default 0)",
    )
    add_level_argument(parser, "the level of the bots that fill seats (--bots)")
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a house-rule option; see `dealerless rules GAME`",
    )
    parser.add_argument(
        "--listen",
        default=None,
        metavar="HOST:PORT",
        help="listen for direct links here (without --nostr: the only way in); with no "
        "transport flag at all the table is on the default Nostr relays and listens on "
        "0.0.0.0:0 for the LAN",
    )
    parser.add_argument(
        "--nostr",
        default="",
        metavar="URL,URL,...",
        help="meet the players on these Nostr relays (ws:// or wss://) instead of the default ones",
    )
    parser.add_argument(
        "--lan-only",
        action="store_true",
        help="no internet relays: listen on 0.0.0.0:0 for players on this network only",
    )
    parser.add_argument(
        "--advertise",
        default="",
        metavar="HOST",
        help="address to put in the invite (default: the listen address)",
    )
    parser.add_argument(
        "--relay",
        default="",
        metavar="HOST:PORT",
        help="meet the players at this relay instead of listening",
    )
    parser.add_argument(
        "--relay-fingerprint",
        default="",
        metavar="FP",
        help="the relay's fingerprint (printed by the relay): the host and every joiner "
        "(through the invite) refuse a relay with another key",
    )
    parser.add_argument("--name", default="", help="your name at the table")
    parser.add_argument(
        "--invite-file", default="", metavar="PATH", help="also write the invite code to this file"
    )
    parser.add_argument(
        "--step-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="a seat silent this long at its step is timed out "
        "(default: time_per_move of the settings file, 120)",
    )
    add_common(parser)
    add_screen_arguments(parser)


def run(args: argparse.Namespace) -> int:
    config = apply_config(args)
    try:
        game = make_config(args.game, args.seats, parse_rule_args(args.game, args.rule))
        listen = parse_address(args.listen or "0.0.0.0:0")
        relay = parse_address(args.relay) if args.relay else None
        nostr, direct = choose_transports(args, config.nostr_relays)
        if not 0 <= args.bots < args.seats:
            raise ValueError(f"--bots must be 0..{args.seats - 1} (the seats but ours)")
        step_timeout_ms = round(args.step_timeout * 1000)
        if not MIN_STEP_TIMEOUT_MS <= step_timeout_ms <= MAX_STEP_TIMEOUT_MS:
            raise ValueError(
                f"--step-timeout must be {MIN_STEP_TIMEOUT_MS / 1000:g}.."
                f"{MAX_STEP_TIMEOUT_MS // 1000} seconds, got {args.step_timeout:g}"
            )
        relay_fingerprint = ""
        if args.relay_fingerprint:
            relay_fingerprint = normalize_fingerprint(args.relay_fingerprint)
    except (ConfigError, ValueError) as exc:
        print(f"dealerless host: {exc}", file=sys.stderr)
        return 2
    loaded = load_identity_or_say(args.home)
    if loaded is None:
        return 1
    identity, home = loaded
    if shipped_relays(args, config.nostr_relays):
        nostr = ask_relays(stderr_say())
    log = EventLog(args.event_log) if args.event_log else None
    if not args.bot and not plain_mode(args):
        try:
            return _full_screen(
                args,
                identity,
                home,
                game,
                listen,
                relay,
                relay_fingerprint,
                step_timeout_ms,
                log,
                nostr,
                direct,
            )
        finally:
            if log is not None:
                log.close()
    say = stderr_say()

    def ready(meta: TableMeta) -> None:
        print(meta.invite, flush=True)
        write_invite(args, meta)
        say(f"table {meta.table_id[:12]}; your fingerprint {identity.fingerprint}")
        say(f"ways in: {ways_in(meta)}")
        warning = private_only_warning(meta)
        if warning:
            say(warning)
        say(f"give the invite code above to the other {meta.seats - 1} player(s)")

    bots = _bot_seats(args, home, step_timeout_ms)

    def ready_with_bots(meta: TableMeta) -> None:
        bots.start(meta)
        ready(meta)

    try:
        return trio.run(
            lambda: _with_bots(
                bots,
                host_table(
                    identity,
                    home,
                    game,
                    name=args.name or default_name(),
                    listen=listen,
                    advertise=args.advertise,
                    relay=relay,
                    relay_fingerprint=relay_fingerprint,
                    bot=args.bot,
                    bot_driver=BotDriver,
                    transcript=args.transcript,
                    step_timeout_ms=step_timeout_ms,
                    driver=None if args.bot else line_driver(args),
                    say=say if args.bot else line_say(args, say),
                    log=log,
                    options=node_options(args),
                    on_ready=ready_with_bots,
                    nostr=nostr,
                    direct=direct,
                ),
            )
        )
    finally:
        if log is not None:
            log.close()


def choose_transports(
    args: argparse.Namespace, configured: list[str] | None = None
) -> tuple[list[str], bool]:
    """(Nostr relays, listen for direct links?) from the flags. No transport flag at all: the
    settings file's relays (``nostr.relays``; empty: the shipped defaults) and a LAN listener;
    ``--lan-only`` or ``--listen`` alone: direct only; ``--nostr`` alone: Nostr only, those
    relays; ``--relay``: that relay (and Nostr if asked). Flags override the file."""
    if args.lan_only and (args.nostr or args.relay):
        raise ValueError("--lan-only cannot be combined with --nostr or --relay")
    nostr = parse_relay_list(args.nostr) if args.nostr else []
    if args.relay:
        return nostr, False
    if args.lan_only or args.listen is not None:
        return nostr, True
    if nostr:
        return nostr, False
    if configured:
        try:
            return parse_relay_list(",".join(configured)), True
        except ValueError as exc:
            raise ValueError(f"the settings file's nostr.relays: {exc}") from None
    return list(DEFAULT_SET), True


def shipped_relays(args: argparse.Namespace, configured: list[str] | None = None) -> bool:
    """No transport flag and no relays in the settings file: the shipped ones, to be asked."""
    flags = args.nostr or args.relay or args.lan_only or args.listen is not None
    return not flags and not configured


def ask_relays(say: Callable[[str], None], timeout: float = ASK_RELAYS_S) -> list[str]:
    """The fastest shipped candidates that carry all three kinds of a table's events; when
    none does (no internet, say), the shipped set as before, each relay's answer named: the
    table can still be joined on this network."""
    reports = trio.run(probe_all, CANDIDATES, timeout, TABLE_RELAYS)
    chosen = choose(reports, TABLE_RELAYS)
    if chosen:
        say(f"Nostr relays chosen by asking {len(CANDIDATES)}: {', '.join(chosen)}")
        return chosen
    say("no Nostr relay carried our test events; the table uses the shipped ones all the same")
    say("(players on this network can join directly); what each relay answered:")
    for report in reports:
        say(f"  {report.summary()}")
    return list(DEFAULT_SET)


def ways_in(meta: TableMeta) -> str:
    ways = []
    if meta.nostr:
        ways.append(f"Nostr ({', '.join(meta.nostr)})")
    if meta.relay:
        ways.append(f"relay {meta.address}:{meta.port}")
    elif meta.direct:
        private = " (private: this network only)" if is_private_address(meta.address) else ""
        ways.append(f"direct {meta.address}:{meta.port}{private}")
    return "; ".join(ways)


def private_only_warning(meta: TableMeta) -> str:
    if meta.nostr or meta.relay or not is_private_address(meta.address):
        return ""
    return (
        f"note: the only way in is {meta.address}, a private address: only players on this "
        "network can join. For players elsewhere host without --listen/--lan-only (Nostr "
        "relays) or with --nostr URL,... or --relay HOST:PORT"
    )


def write_invite(args: argparse.Namespace, meta: TableMeta) -> None:
    if args.invite_file:  # the code holds the join token: 0600
        write_private(args.invite_file, meta.invite + "\n")


def _full_screen(
    args: argparse.Namespace,
    identity: Identity,
    home: Path,
    game: GameConfig,
    listen: tuple[str, int],
    relay: tuple[str, int] | None,
    relay_fingerprint: str,
    step_timeout_ms: int,
    log: EventLog | None,
    nostr: list[str],
    direct: bool,
) -> int:
    """The lobby (invite code, who has joined), then the table screen; after the game, as
    often as the player chooses a rematch (r), the same again at the rematch's table: its
    invite derives from the last one (node/invite.py ``Invite.rematch``), so the others join
    it by pressing r too, and it keeps the last one's ways in (the same relays, the same port
    when it is free) for the invite they derive to reach it."""
    from dealerless.client.tui.node_session import DriverSession, LobbyState

    name = args.name or default_name()
    token: bytes | None = None
    while True:
        options = screen_node_options(args)
        session = DriverSession(
            options=options,
            lobby=LobbyState(
                role="host",
                name=name,
                game=game.game,
                seats=game.players,
                fingerprint=identity.fingerprint,
                rematch=token is not None,
            ),
        )
        bots = _bot_seats(args, home, step_timeout_ms)
        hosted: list[TableMeta] = []

        def ready(
            meta: TableMeta,
            bots: BotJoiners = bots,
            session: DriverSession = session,
            hosted: list[TableMeta] = hosted,
        ) -> None:
            hosted.append(meta)
            write_invite(args, meta)
            bots.start(meta)
            session.on_ready(meta)

        async def node_main(
            session: DriverSession = session,
            options: NodeOptions = options,
            bots: BotJoiners = bots,
            ready: Callable[[TableMeta], None] = ready,
            token: bytes | None = token,
            listen: tuple[str, int] = listen,
            nostr: list[str] = nostr,
        ) -> int:
            return await _with_bots(
                bots,
                host_table(
                    identity,
                    home,
                    game,
                    name=name,
                    listen=listen,
                    advertise=args.advertise,
                    relay=relay,
                    relay_fingerprint=relay_fingerprint,
                    transcript=args.transcript,
                    step_timeout_ms=step_timeout_ms,
                    driver=session,
                    say=logged_say(session.say),
                    log=log,
                    options=options,
                    on_ready=ready,
                    nostr=nostr,
                    direct=direct,
                    token=token,
                ),
            )

        code = run_on_screen(session, node_main, args, data_dir=home, rematch=True)
        if not session.rematch or not hosted:
            return code
        last = Invite.decode(hosted[-1].invite)
        token = last.rematch().token
        nostr = list(last.nostr)
        if last.direct and relay is None:
            listen = (listen[0], free_or_any(listen[0], last.direct[0][1]))


def free_or_any(host: str, port: int) -> int:
    """``port`` if we can listen on it again (the rematch's invite, derived by the others,
    names it), else 0: any port (the joiners then reach us over the relays only)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return 0
    return port


def _bot_seats(args: argparse.Namespace, home: Path, step_timeout_ms: int) -> BotJoiners:
    """The bots that fill ``--bots`` seats: their keys and copies of the table in our home."""
    return BotJoiners(
        dealerless_command(), args.bots, level=args.level, step_timeout_ms=step_timeout_ms,
        player_home=home,
    )  # fmt: skip


async def _with_bots(bots: BotJoiners, hosting: Awaitable[int]) -> int:
    """Host the table; then wait for the bots that filled seats (killed if we left early). A
    bot that failed fails the table's exit code too."""
    if bots.count == 0:
        return await hosting  # no bot processes to wait for or kill
    finished = False
    try:
        code = await hosting
        finished = True
    finally:
        bot_codes = await bots.stop(finished)
    if finished and code == 0:
        bots.forget_kept()
    return 1 if code == 0 and any(c != 0 for c in bot_codes) else code
