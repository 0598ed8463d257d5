"""For every test: a data directory of its own (no test reads or writes the user's settings,
store or log file), and the CLI's log handlers removed afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dealerless.client.logs import reset_logging


@pytest.fixture(autouse=True)
def _own_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    home: Path = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("DEALERLESS_HOME", str(home))
    # No port mapping asked of this machine's gateway (the NAT lab asks its own routers).
    monkeypatch.setenv("DEALERLESS_NO_PORTMAP", "1")
    yield
    reset_logging()
