"""Arguments and helpers shared by the host, join, resume and relay commands."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from dealerless.node.options import NodeOptions
from dealerless.node.portable import user_name

if TYPE_CHECKING:
    from dealerless.node.identity import Identity

__all__ = [
    "add_common",
    "add_direct",
    "add_floor",
    "load_identity_or_say",
    "node_options",
    "read_invite_code",
    "write_private",
]


def add_common(parser: argparse.ArgumentParser, *, seat: bool = True) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        default=None,
        help="data directory (default: $DEALERLESS_HOME, else the platform's user data dir)",
    )
    if not seat:
        return
    parser.add_argument("--bot", action="store_true", help="let a bot play this seat, headless")
    parser.add_argument("--transcript", metavar="PATH", default="", help="transcript file")
    parser.add_argument(
        "--linger",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="after the game, wait at most this long for peers to fetch the last records",
    )
    parser.add_argument("--event-log", default="", help=argparse.SUPPRESS)
    change = parser.add_mutually_exclusive_group()
    change.add_argument(
        "--stand-after-hand",
        type=_hand_number,
        metavar="N",
        help="hand-by-hand games: stand up after hand N (taking our chips)",
    )
    change.add_argument(
        "--sit-out-after-hand",
        type=_hand_number,
        metavar="N",
        help="hand-by-hand games: sit out after hand N (our chips are kept)",
    )
    parser.add_argument(
        "--back-after-hand",
        type=_hand_number,
        metavar="N",
        help="hand-by-hand games: sitting out, follow the table and come back once it has "
        "played hand N (our kept chips with us)",
    )
    parser.add_argument(
        "--buy-in",
        type=_chips,
        metavar="CHIPS",
        help="joining a running table: sit down with this many chips (default: the maximum)",
    )


def _hand_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a hand number") from None
    if not 1 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError("a hand number is 1..1000000")
    return value


def _chips(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of chips") from None
    if not 0 <= value <= 10**9:
        raise argparse.ArgumentTypeError("a buy-in is 0..1000000000 chips")
    return value


def _stun_list(text: str) -> str:
    from dealerless.node.stun_servers import parse_stun_servers

    try:
        parse_stun_servers(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_direct(parser: argparse.ArgumentParser) -> None:
    """Direct links between seats (spec/transport.md, Direct links): the STUN servers that
    tell a seat its public address, and the way to keep every frame on the relays."""
    parser.add_argument(
        "--stun",
        type=_stun_list,
        default=None,
        metavar="HOST:PORT,...",
        help="STUN servers that tell this seat its public address for direct links "
        "(default: stun.servers in the settings file, else the shipped list)",
    )
    parser.add_argument(
        "--relays-only",
        action="store_true",
        help="no direct links: other seats never learn this machine's addresses (every frame "
        "goes through the relays; also direct.punch = false in the settings file)",
    )


def add_floor(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--min-step-timeout",
        type=float,
        default=NodeOptions.min_step_timeout_ms / 1000,
        metavar="SECONDS",
        help="refuse a table whose step timeout is shorter (default %(default)g; lower it only "
        "for bot tables and tests)",
    )


def node_options(args: argparse.Namespace) -> NodeOptions:
    floor = getattr(args, "min_step_timeout", None)
    change: tuple[str, int] | None = None
    if getattr(args, "stand_after_hand", None) is not None:
        change = ("stand", args.stand_after_hand)
    elif getattr(args, "sit_out_after_hand", None) is not None:
        change = ("sit-out", args.sit_out_after_hand)
    options = NodeOptions(
        linger=args.linger,
        change_after=change,
        buy_in=getattr(args, "buy_in", None),
        back_after=getattr(args, "back_after_hand", None),
    )
    if floor is not None:
        options.min_step_timeout_ms = max(0, round(floor * 1000))
    days = getattr(args, "nostr_expiration_days", None)
    if isinstance(days, float):
        options.nostr_expiration_days = days
    stun = getattr(args, "stun", None)
    if isinstance(stun, str):
        options.stun_servers = tuple(s.strip() for s in stun.split(",") if s.strip())
    if getattr(args, "relays_only", False) is True:
        options.punch = False
    return options


def read_invite_code(code: str | None, invite_file: str) -> str:
    """The invite code from the argument, ``-`` (stdin) or a file; ValueError saying why not.
    A code on the command line is visible to every user of this machine (``ps``): scripts
    and local bot processes pass it on stdin or in a 0600 file instead."""
    if invite_file:
        try:
            return Path(invite_file).read_text().strip()
        except OSError as exc:
            raise ValueError(f"cannot read the invite file: {exc}") from None
    if code is None or code == "-":
        import sys

        line = sys.stdin.readline(4096).strip()
        if not line:
            raise ValueError("no invite code: give one, or pipe it in with CODE '-'")
        return line
    return code


def write_private(path: str, text: str) -> None:
    """Write ``text`` to ``path`` atomically, readable by its owner only (0600)."""
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)  # an older file of that name keeps its mode otherwise
    os.replace(tmp, path)


def load_identity_or_say(home: str | None) -> tuple[Identity, Path] | None:
    # Here, not at the top: the key's cryptography is not needed to parse (or --help) a command.
    import logging

    from dealerless.node.identity import IdentityError, load_or_create_identity, resolve_home

    log = logging.getLogger("dealerless.node")

    try:
        identity, created = load_or_create_identity(home)
    except IdentityError as exc:
        log.error("dealerless: %s", exc)
        return None
    if created:  # stderr and the log: stdout is the invite line's (spec/node.md)
        log.info("created a new identity %s in %s", identity.fingerprint, identity.path)
    return identity, resolve_home(home)


def default_name() -> str:
    return user_name()
