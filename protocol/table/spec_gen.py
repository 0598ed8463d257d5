"""The generated parts of spec/protocol.md: the state machine and the message kinds.

``python -m dealerless.protocol.table.spec_gen --write spec/protocol.md`` refreshes the blocks
between ``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->``; a test fails when the
document and the code disagree.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from dealerless.protocol.table.kinds import SIDE_KINDS, TABLE_REGISTRY
from dealerless.protocol.table.steps import transition_table_markdown

PAYLOADS = {
    "key-commit": "`commit`: KeyCommit (spec/crypto.md)",
    "key-reveal": "`reveal`: KeyReveal with a Schnorr proof",
    "shuffle": "`shuffle`: ShuffleMessage (deck + Terelius-Wikström proof)",
    "shares": "`batch`: ShareBatchMessage, this seat's shares of every position it owes in "
    "the round (ascending) under one proof (spec/crypto.md §7.1)",
    "reveal": "`batch`: the owner's ShareBatchMessage (step `open`) of the positions asked",
    "action": "`open`: the owner's ShareMessage for a played hidden card; `nonmember`: one "
    "NonMembershipMessage per other hidden card when the play has a forbidden set",
}


def kinds_markdown() -> str:
    lines = [
        "| kind | chain element | body | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for name in TABLE_REGISTRY:
        body = TABLE_REGISTRY.schema(name).describe().replace("|", "\\|")
        if name in PAYLOADS:
            body += "; " + PAYLOADS[name]
        chain = "no (side message)" if name in SIDE_KINDS or name in ("join", "leave") else "yes"
        lines.append(f"| `{name}` | {chain} | {body} | {TABLE_REGISTRY.description(name)} |")
    return "\n".join(lines)


SECTIONS = {"transitions": transition_table_markdown, "kinds": kinds_markdown}


def render(document: str) -> str:
    for name, make in SECTIONS.items():
        pattern = re.compile(
            rf"(<!-- generated:{name} -->\n)(?:.*?\n)?(<!-- /generated:{name} -->)", re.DOTALL
        )
        if not pattern.search(document):
            raise ValueError(f"the document has no generated:{name} block")
        match = pattern.search(document)
        assert match is not None
        replacement = match.group(1) + make() + "\n" + match.group(2)
        document = document[: match.start()] + replacement + document[match.end() :]
    return document


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", metavar="FILE", help="refresh the generated blocks in FILE")
    args = parser.parse_args()
    if args.write:
        path = Path(args.write)
        path.write_text(render(path.read_text()))
    else:
        for name, make in SECTIONS.items():
            print(f"<!-- generated:{name} -->\n{make()}\n<!-- /generated:{name} -->\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
