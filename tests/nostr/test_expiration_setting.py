"""NIP-40: how long a table's stored events stay on the relays is a setting
(``nostr.expiration_days``, 7 by default) that reaches every stored event a seat sends."""

from __future__ import annotations

import argparse
import secrets
import time
from pathlib import Path

import pytest
import trio

from dealerless.client.commands.config import apply_setting
from dealerless.client.config import (
    Config,
    ConfigFileError,
    apply_config,
    config_path,
    save_config,
)
from dealerless.node.cli_common import node_options
from dealerless.node.identity import Identity
from dealerless.node.nostr.pool import KIND_ANNOUNCE, KIND_CHATTER, KIND_FRAME, RelayPool
from dealerless.node.nostr.table_crypto import TableKeys


def test_the_setting_is_checked_and_reaches_the_node_options(tmp_path: Path) -> None:
    config = apply_setting(Config(), "nostr.expiration_days=2.5")
    assert config.nostr_expiration_days == 2.5
    for bad in ("0", "-1", "400", "soon"):
        with pytest.raises(ConfigFileError, match="expiration_days"):
            apply_setting(Config(), f"nostr.expiration_days={bad}")
    save_config(config, config_path(tmp_path))
    args = argparse.Namespace(home=str(tmp_path), name="", linger=1.0)
    apply_config(args)
    assert node_options(args).nostr_expiration_days == 2.5


def test_stored_events_expire_and_ephemeral_ones_carry_no_expiration() -> None:
    async def main() -> None:
        table = secrets.token_bytes(16)
        keys = TableKeys(secrets.token_bytes(16), table)
        pool = RelayPool(["ws://127.0.0.1:1"], keys, Identity.generate(), table, expiration_days=2)
        now = time.time()
        for kind in (KIND_FRAME, KIND_ANNOUNCE):
            (event,) = pool._seal(kind, b"body", 32_000, 0)
            (when,) = event.tag_values("expiration")
            assert abs(int(when) - (now + 2 * 86400)) < 60
        (chatter,) = pool._seal(KIND_CHATTER, b"body", 32_000, 0)
        assert chatter.tag_values("expiration") == []

    trio.run(main)
