"""No invitee can crowd out another over Nostr (issue 22): one invitee announces many fresh
identities (each a valid announcement with its own signature) and a stranger without the token
posts junk on the table's tag, after the host's announcement and before a joiner comes, so the
newest 64 announcements a joiner asks for hold none of the host's. The joiner still sits down
within 10 s and the game completes: the host announces itself again when a new identity
announces, and what arrives live no flood can push out of view. On the code before, the joiner
looped on "the host has not announced itself" for 60 s.

Real processes: rust-nostr's relay (it applies each filter's `limit` on its own, as strfry and
most public relays do; the `nostr-relay` package merges the filters of a REQ under one limit
and so hides the attack), the host and the joiner as `dealerless` processes; the attacker
writes to the relay over a websocket like any client."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable

import msgpack
import pytest
import trio
import trio_websocket
from node_cluster import Cluster, cluster, wait_for  # noqa: F401 - the fixture
from nostr_cluster import host_on_nostr
from nostr_relay_process import RustRelayProcess

from dealerless.node.identity import Identity
from dealerless.node.invite import Invite
from dealerless.node.nostr.event import NostrKey
from dealerless.node.nostr.fragments import cut
from dealerless.node.nostr.pool import KIND_ANNOUNCE, KIND_FRAME, announce_statement
from dealerless.node.nostr.table_crypto import TableKeys

StartRust = Callable[..., RustRelayProcess]
SIT_DOWN_WITHIN = 10.0


def flood_events(invite: Invite, identities: int, junk: int) -> list[dict[str, object]]:
    """``identities`` valid announcements of fresh identities (an invitee: it holds the
    token), then ``junk`` events on the table's tag from a stranger's key (no token)."""
    keys = TableKeys(invite.token, invite.table_id)
    tags = (("t", keys.tag),)
    events = []
    for _ in range(identities):
        who, nkey = Identity.generate(), NostrKey()
        statement = announce_statement(invite.table_id, nkey.public)
        body = msgpack.packb({"a": who.public_key, "s": who.sign(statement)}, use_bin_type=True)
        for plain, bucket in cut(body, 32_000):
            content = keys.seal(plain, nkey.pubkey, KIND_ANNOUNCE, bucket)
            events.append(nkey.sign(KIND_ANNOUNCE, tags, content).to_json())
    stranger = NostrKey()
    for i in range(junk):
        kind = KIND_ANNOUNCE if i % 2 else KIND_FRAME
        events.append(stranger.sign(kind, tags, secrets.token_urlsafe(300)).to_json())
    return events


async def publish(url: str, events: list[dict[str, object]]) -> int:
    """Write every event and wait for the relay's answers; how many it accepted."""
    accepted = 0
    async with trio_websocket.open_websocket_url(url) as ws:
        for start in range(0, len(events), 50):  # a window, as a client writing fast would
            window = events[start : start + 50]
            for event in window:
                await ws.send_message(json.dumps(["EVENT", event]))
            answered = 0
            with trio.fail_after(30):
                while answered < len(window):
                    message = json.loads(await ws.get_message())
                    if message[0] == "OK":
                        answered += 1
                        accepted += bool(message[2])
    return accepted


async def stored(url: str, query: dict[str, object]) -> int:
    """How many stored events the relay returns for ``query``."""
    count = 0
    async with trio_websocket.open_websocket_url(url) as ws:
        await ws.send_message(json.dumps(["REQ", "q", query]))
        with trio.fail_after(10):
            while json.loads(message := await ws.get_message())[0] != "EOSE":
                count += json.loads(message)[0] == "EVENT"
    return count


@pytest.mark.parametrize("identities", [70, 1000])
def test_a_flood_of_identities_and_junk_does_not_keep_a_joiner_out(
    cluster: Cluster,  # noqa: F811 - the fixture
    rust_relays: StartRust,
    identities: int,
) -> None:
    relay = rust_relays(rate_per_minute=0)
    host_on_nostr(cluster, "limit-tuppen", 2, [relay.url], rules=("hands=1",))
    invite = Invite.decode(cluster.invite_code)
    tag = TableKeys(invite.token, invite.table_id).tag
    wait_for(
        lambda: trio.run(stored, relay.url, {"kinds": [KIND_ANNOUNCE], "#t": [tag]}) > 0,
        30,
        "the host's announcement on the relay",
        [cluster.procs["seat0"]],
    )
    events = flood_events(invite, identities, junk=200)
    accepted = trio.run(publish, relay.url, events)
    assert accepted >= identities, f"the relay took only {accepted} of the flood"
    start = time.monotonic()
    cluster.join(1)
    wait_for(
        lambda: cluster.said(1, "table ready"),
        SIT_DOWN_WITHIN,
        f"the joiner seated within {SIT_DOWN_WITHIN:.0f} s of a flood of {identities}",
        list(cluster.procs.values()),
    )
    seated = time.monotonic() - start
    codes = cluster.wait(["seat0", "seat1"], 120)
    assert codes == {"seat0": 0, "seat1": 0}, cluster.tail()
    cluster.check_identical([0, 1])
    print(f"{identities} fresh identities + 200 junk: seated after {seated:.1f} s")
