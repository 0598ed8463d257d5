"""Start-up (issue 27): `dealerless play --help` and the top-level help load no networking,
no cryptography, no codec and no table machine; those come when a game starts. What a
command imports is checked here, not how long it takes (that is `dealerless bench cli`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = (
    "trio",
    "cryptography",
    "msgpack",
    "prompt_toolkit",
    "dealerless.protocol.table",
    "dealerless.protocol.crypto",
    "dealerless.node.seat",
    "dealerless.node.identity",
)

PROBE = """
import json, sys
from dealerless.client.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith(tuple(HEAVY)))), file=sys.stderr)
"""


def heavy_after(*argv: str) -> list[str]:
    code = f"HEAVY = {HEAVY!r}\n{PROBE}"
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True
    )
    found: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return found


@pytest.mark.parametrize("argv", [("--help",), ("play", "--help")])
def test_a_help_loads_nothing_heavy(argv: tuple[str, ...]) -> None:
    assert heavy_after(*argv) == []


def test_the_probe_sees_heavy_modules_where_a_command_needs_them() -> None:
    # `host --help` still builds its parser next to the networking it runs: the probe must
    # see that, or the test above proves nothing.
    assert "trio" in heavy_after("host", "--help")
