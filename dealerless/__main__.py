"""``python -m dealerless``: the same as the ``dealerless`` command."""

from dealerless.client.cli import entry_point

if __name__ == "__main__":
    entry_point()
