"""Direct links between seats behind home routers: candidates, STUN, TCP hole punching.

The table's rendezvous (Nostr relays, the hub, a direct link) introduces two seats; this
package finds a direct path between them and opens the existing secure channel over it::

    port = pick_port()
    gathered = await gather_candidates(port, parse_stun_servers(servers))
    agreed = await rendezvous(identity, peer_key, gathered.candidates, send, receive,
                              table_id=table_id)
    if agreed is not None:
        peer_candidates, start_at = agreed
        channel = await punch(identity, peer_key, gathered.candidates, peer_candidates,
                              start_at, local_port=port, table_id=table_id)

``channel`` is a :class:`~dealerless.node.transport.SecureChannel` with the peer proven to
hold ``peer_key``, or None: then the pair stays on the relays. See spec/transport.md.
"""

from __future__ import annotations

from .candidates import (
    DEFAULT_STUN_SERVERS,
    Candidate,
    Gathered,
    gather_candidates,
    local_addresses,
    parse_stun_servers,
    pick_port,
)
from .message import (
    CandidateOffer,
    MessageRefused,
    PunchGo,
    open_message,
    seal_candidates,
    seal_punch,
)
from .punch import NOMINATE, PUNCH_TRANSPORT, PunchReport, PunchSchedule, punch, rendezvous
from .stun import StunError, parse_binding_response, stun_tcp

__all__ = [
    "DEFAULT_STUN_SERVERS",
    "NOMINATE",
    "PUNCH_TRANSPORT",
    "Candidate",
    "CandidateOffer",
    "Gathered",
    "MessageRefused",
    "PunchGo",
    "PunchReport",
    "PunchSchedule",
    "StunError",
    "gather_candidates",
    "local_addresses",
    "open_message",
    "parse_binding_response",
    "parse_stun_servers",
    "pick_port",
    "punch",
    "rendezvous",
    "seal_candidates",
    "seal_punch",
    "stun_tcp",
]
