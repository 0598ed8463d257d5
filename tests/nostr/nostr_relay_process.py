"""The relay subprocess of the tests lives with the bench that uses it too."""

from dealerless.client.bench.nostr_relay import RelayProcess, free_port
from dealerless.client.bench.rust_relay import RustRelayProcess

__all__ = ["RelayProcess", "RustRelayProcess", "free_port"]
