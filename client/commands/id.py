"""``dealerless id``: show this node's identity (creating it on first run).

Prints the fingerprint (what a joiner compares with the invite) and the key file path.
"""

from __future__ import annotations

import argparse
import json
import sys

from dealerless.node.identity import IdentityError, load_or_create_identity

HELP = "show this node's identity fingerprint and key file (created on first run)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        default=None,
        help="data directory (default: $DEALERLESS_HOME, else the platform's user data dir)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    try:
        identity, created = load_or_create_identity(args.home)
    except IdentityError as exc:
        print(f"dealerless id: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(
            json.dumps(
                {
                    "fingerprint": identity.fingerprint,
                    "public_key": identity.public_key.hex(),
                    "key_file": str(identity.path),
                    "created": created,
                }
            )
        )
        return 0
    if created:
        print(f"created a new identity in {identity.path}", file=sys.stderr)
    print(f"fingerprint: {identity.fingerprint}")
    print(f"key file:    {identity.path}")
    return 0
