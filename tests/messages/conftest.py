from __future__ import annotations

import pytest
from msg_helpers import SAMPLE

from dealerless.protocol.messages import DEFAULT_REGISTRY, IdentityKey, KindRegistry


@pytest.fixture(scope="session")
def registry() -> KindRegistry:
    reg = DEFAULT_REGISTRY.copy()
    reg.register("sample", SAMPLE)
    return reg


@pytest.fixture(scope="session")
def key() -> IdentityKey:
    return IdentityKey.from_private_bytes(bytes(range(32)))


@pytest.fixture(scope="session")
def other_key() -> IdentityKey:
    return IdentityKey.from_private_bytes(bytes(range(1, 33)))
