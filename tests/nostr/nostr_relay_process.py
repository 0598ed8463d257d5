"""The relay subprocess of the tests lives with the bench that uses it too."""

from dealerless.client.bench.nostr_relay import RelayProcess, free_port

__all__ = ["RelayProcess", "free_port"]
