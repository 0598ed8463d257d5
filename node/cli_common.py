"""Arguments and helpers shared by the host, join, resume and relay commands."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from dealerless.node.identity import Identity, IdentityError, load_or_create_identity, resolve_home
from dealerless.node.portable import user_name
from dealerless.node.seat import NodeOptions

__all__ = ["add_common", "load_identity_or_say", "node_options"]

_LOG = logging.getLogger("dealerless.node")


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


def node_options(args: argparse.Namespace) -> NodeOptions:
    return NodeOptions(linger=args.linger)


def load_identity_or_say(home: str | None) -> tuple[Identity, Path] | None:
    try:
        identity, created = load_or_create_identity(home)
    except IdentityError as exc:
        _LOG.error("dealerless: %s", exc)
        return None
    if created:  # stderr and the log: stdout is the invite line's (spec/node.md)
        _LOG.info("created a new identity %s in %s", identity.fingerprint, identity.path)
    return identity, resolve_home(home)


def default_name() -> str:
    return user_name()
