"""``dealerless bench cli``: how long the command line takes to start, as a ratio to the bare
interpreter in the same run (``python -c pass``), so the figure does not depend on the machine.

Measures ``python -m dealerless --help`` (the top-level help: no command module is imported),
``python -m dealerless play --help`` (one command's parser) and ``--version``; each the median
wall-clock time of ``--rounds`` fresh processes. Both helps must stay within 3x (issue 27:
the play path imports no networking, cryptography or table machine until a game starts).
Python's bytecode cache counts: with ``PYTHONDONTWRITEBYTECODE`` set (and no cache written
before) every module is compiled again in every process, so the report says whether it is on.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HELP = "start-up time of `dealerless --help` against `python -c pass` (ratio, one run)"
TARGET_HELP_RATIO = 3.0
HELD = ("dealerless --help", "dealerless play --help")  # both within TARGET_HELP_RATIO

CASES: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    "dealerless --help": ["-m", "dealerless", "--help"],
    "dealerless --version": ["-m", "dealerless", "--version"],
    "dealerless play --help": ["-m", "dealerless", "play", "--help"],
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, default=15, help="processes per case (median)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _seconds(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(  # noqa: S603 - our own interpreter and module
        [sys.executable, *argv], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - started


def measure(rounds: int) -> dict[str, float]:
    """Median seconds per case; the cases are interleaved so that a busy moment of the machine
    falls on all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(rounds):
        for name, argv in CASES.items():
            times[name].append(_seconds(argv))
    return {name: statistics.median(values) for name, values in times.items()}


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.rounds <= 1000:
        print(f"dealerless bench cli: --rounds must be 1..1000, got {args.rounds}", file=sys.stderr)
        return 2
    medians = measure(args.rounds)
    base = medians["python -c pass"]
    ratios = {name: value / base for name, value in medians.items()}
    ok = all(ratios[name] <= TARGET_HELP_RATIO for name in HELD)
    cache = "off (PYTHONDONTWRITEBYTECODE)" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "on"
    if args.json:
        doc = {
            "rounds": args.rounds,
            "seconds": {k: round(v, 4) for k, v in medians.items()},
            "ratio_to_python": {k: round(v, 2) for k, v in ratios.items()},
            "target_help_ratio": TARGET_HELP_RATIO,
            "held": list(HELD),
            "bytecode_cache": cache,
            "ok": ok,
        }
        print(json.dumps(doc, indent=1))
    else:
        for name, value in medians.items():
            print(f"{name:<24} {value * 1000:7.1f} ms  x{ratios[name]:.2f}")
        for name in HELD:
            verdict = "within" if ratios[name] <= TARGET_HELP_RATIO else "OVER"
            print(f"{name} is x{ratios[name]:.2f} of python -c pass ({verdict} x3)")
        print(f"bytecode cache: {cache}")
    return 0 if ok else 1
