"""A table configuration that cannot be played is refused with a message a person can act on:
what is wrong and the allowed range, in the units the command line takes (seconds)."""

from __future__ import annotations

import pytest

from dealerless.protocol.messages import IdentityKey
from dealerless.protocol.rules.base import ConfigError
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import SeatInfo, TableConfig

GAME = make_config("tuppen", 2)


def seats(*keys: IdentityKey) -> tuple[SeatInfo, ...]:
    return tuple(SeatInfo(f"p{i}", k.peer_id.raw) for i, k in enumerate(keys))


def test_a_good_configuration_is_taken() -> None:
    config = TableConfig(
        bytes(16), GAME, seats(IdentityKey.generate(), IdentityKey.generate()), 60_000
    )
    assert config.step_timeout_ms == 60_000


# covers: P-1
@pytest.mark.parametrize("step_ms", [0, 99, 86_400_001])
def test_a_step_timeout_out_of_range_is_said_in_seconds(step_ms: int) -> None:
    two = seats(IdentityKey.generate(), IdentityKey.generate())
    with pytest.raises(ConfigError) as caught:
        TableConfig(bytes(16), GAME, two, step_ms)
    assert f"the time per step must be 0.1..86400 seconds, got {step_ms / 1000:g}" == str(
        caught.value
    )


# covers: P-1
def test_two_seats_with_one_key_are_refused() -> None:
    key = IdentityKey.generate()
    with pytest.raises(ConfigError, match="two seats have the same identity key"):
        TableConfig(bytes(16), GAME, seats(key, key), 60_000)
