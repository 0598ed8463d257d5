"""A joiner's hello always fits a hub's lobby message (4,096 bytes, node/hub_state.py): the
name in it is cut to the 40 characters a host keeps, so a long name cannot get its hellos
dropped at the hub."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from dealerless.node.app import meta_for_invite
from dealerless.node.hub_state import HubLimits
from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.seat import SeatNode
from dealerless.node.store import TableStore
from dealerless.node.wire import encode, seal
from dealerless.protocol.rules.registry import make_config


def test_a_hello_with_a_very_long_name_fits_the_lobby_limit(tmp_path: Path) -> None:
    host, me = Identity.generate(), Identity.generate()
    invite = Invite.create(host.public_key, make_config("tuppen", 2, {}), 60_000,
                           token=secrets.token_bytes(16))  # fmt: skip
    meta = meta_for_invite(invite, name="é" * 5000, bot=True, transcript="")
    meta.host_key = host.public_key.hex()
    store = TableStore(tmp_path, invite.table_id)
    store.save_meta(meta)
    node = SeatNode(me, store, meta, connector=None, driver=None)  # type: ignore[arg-type]
    sent: list[dict[str, Any]] = []
    node.queue_signed = lambda payload, to=None: sent.append(payload)  # type: ignore[method-assign]
    node.now = lambda: 0.0  # type: ignore[method-assign]
    node.handshake.hello(node.messages.peers_up)
    assert sent and sent[0]["name"] == "é" * 40
    wire = encode(
        {"t": "send", "to": host.public_key, "data": encode(seal(me, invite.table_id, sent[0]))}
    )
    assert len(wire) <= HubLimits().lobby_message, len(wire)
