"""``dealerless bench TARGET``: speed measurements (never timed unit tests).

Each target lives in ``dealerless.client.bench.<target>`` and defines ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util

HELP = "measure speed and robustness: cli, crypto, hand, end, relay, fuzz, soak, bots"
TARGETS = ("cli", "crypto", "hand", "end", "relay", "fuzz", "soak", "bots")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="target", metavar="TARGET", required=True)
    for name in TARGETS:
        module_name = f"dealerless.client.bench.{name}"
        if importlib.util.find_spec(module_name) is None:
            continue
        module = importlib.import_module(module_name)
        cmd = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        cmd.set_defaults(_bench_run=module.run)


def run(args: argparse.Namespace) -> int:
    code: int = args._bench_run(args)
    return code
