from node_cluster import cluster  # noqa: F401 - the fixture of every test here
