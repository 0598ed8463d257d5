"""The NAT lab fixture (``nat_lab``) for the tests of this folder."""

from natlab import nat_lab  # noqa: F401 - a fixture, found by pytest here
