"""The node builds the deck's generator tables before the table is ready, not in its first hand."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
from dealerless.protocol.crypto import generators
from dealerless.node.app import warm_up
assert not generators.g_table().built and not generators.h_table().built
warm_up()
print(generators.g_table().built, generators.h_table().built)
"""


def test_warm_up_builds_the_window_tables() -> None:
    # A fresh interpreter: in this one other tests may have built the tables already.
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


def test_a_built_table_multiplies_like_the_generic_path() -> None:
    from dealerless.protocol.crypto.generators import g, h_table

    table = h_table()
    table.build()
    table.build()  # idempotent
    assert table.built
    for k in (1, 2, 255, 256, 2**200 + 12345):
        assert table.mul(k) == table.point * k
    assert table.mul(0).is_identity and g() * 3 == g() + g() + g()
