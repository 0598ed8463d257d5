from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from node_cluster import Cluster


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.stop()
