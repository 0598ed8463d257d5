"""``dealerless relays [URL ...]``: ask Nostr relays whether they can carry a table (issue 21).

Each relay gets one NIP-11 read and three small test events, one of each kind a table sends
(node/nostr/probe.py); one line per relay says what it answered. Exit 0 when at least one relay
is usable, 1 when none is, 2 for bad input."""

from __future__ import annotations

import argparse
import json
import sys

import trio

from dealerless.client.config import load_config
from dealerless.node.nostr.defaults import CANDIDATES, MAX_RELAYS, relay_url_problem
from dealerless.node.nostr.probe import RelayReport, choose, probe_all

HELP = "ask Nostr relays whether they can carry a table: limits, test events, echo time"
MAX_TIMEOUT = 60.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "urls",
        nargs="*",
        metavar="URL",
        help="ws:// or wss:// relays, at most 8 (default: the settings file's nostr.relays, "
        "else the shipped candidates)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=8.0,
        metavar="SECONDS",
        help="the most one relay may take (default %(default)s; they are asked at once)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--home",
        metavar="DIR",
        default=None,
        help="data directory, for its settings file (default: $DEALERLESS_HOME, else the "
        "platform's)",
    )


def input_problem(urls: list[str], timeout: float) -> str:
    if len(urls) > MAX_RELAYS:
        return f"at most {MAX_RELAYS} relays at a time, got {len(urls)}"
    for url in urls:
        problem = relay_url_problem(url)
        if problem:
            return problem
    if not 0 < timeout <= MAX_TIMEOUT:
        return f"--timeout must be more than 0 and at most {MAX_TIMEOUT:g} seconds"
    return ""


def line(report: RelayReport) -> str:
    """One line for people: what the relay is, what NIP-11 says, what each kind got."""
    if not report.reachable:
        return f"{report.url}  unreachable: {report.error}"
    state = "usable" if report.usable else "NOT usable"
    echo = "-" if report.echo_ms is None else f"{report.echo_ms:.0f} ms"
    limits = report.limits
    if report.nip11_error:
        nip11 = "none"
    else:
        flags = ("auth_required", "payment_required", "restricted_writes")
        nip11 = f"max_content {limits.max_content}, min_pow {limits.min_pow}"
        nip11 += "".join(f", {f}" for f in flags if getattr(limits, f))
    kinds = "; ".join(f"{k.kind} {k.describe()}" for k in report.kinds)
    extras = "".join(
        (" AUTH" if report.auth_asked else "", f" pow {report.pow}" if report.pow else "")
    )
    text = f"{report.url}  {state}  echo {echo}{extras}  NIP-11: {nip11}  {kinds}"
    return f"{text}  ({report.error})" if report.error else text


def run(args: argparse.Namespace) -> int:
    urls: list[str] = list(dict.fromkeys(args.urls))
    problem = input_problem(urls, args.timeout)
    if problem:
        print(f"dealerless relays: {problem}", file=sys.stderr)
        return 2
    if not urls:
        urls = load_config(args.home).nostr_relays or list(CANDIDATES)
    reports = trio.run(probe_all, urls, args.timeout)
    best = choose(reports, len(reports))
    if args.json:
        document = {"relays": [r.to_json() for r in reports], "usable": best}
        print(json.dumps(document, indent=1))
    else:
        for report in reports:
            print(line(report))
        print(f"{len(best)} of {len(reports)} usable", file=sys.stderr)
    return 0 if best else 1
