import sys
from pathlib import Path

# The process-cluster helper of tests/node serves the kill sweep here too.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "node"))
from node_cluster import cluster  # noqa: F401 - the fixture
