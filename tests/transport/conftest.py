"""Run ``async def`` tests under ``trio.run`` (pytest-trio is not a dependency).

By default a test runs on ``trio.testing.MockClock(autojump_threshold=0)``: time only moves
when every task is blocked, so timeouts are exercised instantly and deterministically.
``@pytest.mark.real_clock`` runs it on the real clock instead (real sockets).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import pytest
import trio
import trio.testing


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "real_clock: run an async test on Trio's real clock")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    kwargs: dict[str, Any] = {
        name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames
    }
    clock = None
    if pyfuncitem.get_closest_marker("real_clock") is None:
        clock = trio.testing.MockClock(autojump_threshold=0)
    trio.run(functools.partial(pyfuncitem.obj, **kwargs), clock=clock)
    return True
