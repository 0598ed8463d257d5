"""TCP hole punching: both seats dial each other at once, then the secure channel's handshake.

Why TCP simultaneous open rather than QUIC: the path must end in the existing authenticated
handshake and channel (spec/transport.md), which run over any reliable stream; TCP is that
stream in every kernel, reliable and congestion-controlled with no library of ours, and it
punches as often as QUIC does when both sides dial at a synchronized time (Trautwein et al.,
2025). QUIC would need a second handshake and a second channel format beside ours, and a
router that drops UDP would leave it nothing.

Every socket of a punch leaves from the one local port whose public mapping STUN reported
(SO_REUSEADDR + SO_REUSEPORT). Each side connects to every peer candidate of a family it has;
when the two SYNs cross, each router has already seen its own side's SYN go out, so it takes
the other's for the answer (simultaneous open, RFC 9293 §3.5). Each candidate pair is dialled
``attempts`` times, ``spacing`` seconds apart from ``start_at`` (the kernel resends a SYN after
1 s within an attempt). On the first TCP connection that opens, the seat with the lower
identity key runs the handshake as initiator; the peer must prove ``peer_key`` (a wrong key is
refused by the handshake itself). Since two candidate pairs can both open, the initiator
nominates one: its first message on the chosen channel is :data:`NOMINATE`; the other side
keeps the channel on which that arrives and answers :data:`NOMINATED` (only then does the
initiator know that its key was accepted: its handshake ends one message before the
responder's); both close the others. The whole punch is bounded:
at ``start_at + attempts * spacing + handshake_timeout`` it gives up and returns None.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import trio

from ..identity import Identity
from ..transport import (
    ChannelError,
    HandshakeError,
    SecureChannel,
    TransportConfig,
    accept,
    connect,
)
from .candidates import Candidate
from .message import CandidateOffer, MessageRefused, PunchGo, open_message, seal_candidates
from .message import seal_punch as _seal_punch
from .stun import bound_tcp_socket

__all__ = [
    "NOMINATE",
    "PUNCH_TRANSPORT",
    "PunchReport",
    "PunchSchedule",
    "punch",
    "punch_prologue",
    "rendezvous",
]

NOMINATE = b"dealerless-punch/1 use this path"
NOMINATED = b"dealerless-punch/1 path taken"
# A punched path keeps itself open: a keepalive record after 10 s without traffic refreshes
# the routers' mappings (home routers forget idle TCP mappings after minutes at the least).
PUNCH_TRANSPORT = TransportConfig(handshake_timeout=5.0, keepalive_interval=10.0, idle_timeout=35.0)


def punch_prologue(table_id: bytes) -> bytes:
    """Hashed into the handshake: a punched channel belongs to this table only."""
    return b"dealerless/punch/v1\x00" + table_id


@dataclass(frozen=True)
class PunchSchedule:
    attempts: int = 3
    spacing: float = 2.0  # seconds between two dials of one candidate pair
    connect_timeout: float = 1.8  # one dial's wait for the SYN's answer (< spacing)

    def __post_init__(self) -> None:
        if not 1 <= self.attempts <= 10 or not 0 < self.connect_timeout <= self.spacing <= 30:
            raise ValueError("a punch makes 1..10 attempts, connect_timeout <= spacing <= 30 s")


@dataclass
class PunchReport:
    """What a punch did: for the log and the table status ("direct (punched)", ...)."""

    dials: int = 0
    opened: list[str] = field(default_factory=list)  # candidate pairs whose TCP opened
    errors: list[str] = field(default_factory=list)
    path: Candidate | None = None  # the peer candidate of the channel kept


class _State:
    def __init__(self, initiator: bool) -> None:
        self.initiator = initiator
        self.winner: SecureChannel | None = None
        self.winner_candidate: Candidate | None = None
        self.done = trio.Event()
        self.nominating = trio.Lock()
        self.active = 0  # handshakes and nominations under way


async def punch(
    my_identity: Identity,
    peer_key: bytes,
    my_candidates: Sequence[Candidate],
    peer_candidates: Sequence[Candidate],
    start_at: float,
    *,
    local_port: int,
    table_id: bytes = b"",
    schedule: PunchSchedule = PunchSchedule(),
    config: TransportConfig = PUNCH_TRANSPORT,
    report: PunchReport | None = None,
) -> SecureChannel | None:
    """A secure channel to ``peer_key`` over a punched TCP path, or None within the bound.

    ``start_at`` is a time on this process's Trio clock (see :func:`rendezvous`);
    ``local_port`` is the port ``my_candidates`` were gathered for. The caller keeps the
    channel alive by always having a task in ``receive`` or running ``keepalive_loop``.
    """
    report = report if report is not None else PunchReport()
    if len(peer_key) != 32 or peer_key == my_identity.public_key:
        raise ValueError("peer_key must be another seat's 32-byte identity key")
    families = {c.family for c in my_candidates}
    targets = [c for c in peer_candidates if c.family in families]
    config = dataclasses.replace(config, prologue=config.prologue + punch_prologue(table_id))
    if not targets:
        report.errors.append("no peer candidate of an address family we have")
        return None
    state = _State(initiator=my_identity.public_key < peer_key)
    deadline = start_at + schedule.attempts * schedule.spacing + config.handshake_timeout
    with trio.move_on_at(deadline):
        async with trio.open_nursery() as nursery:
            for family in families:
                await nursery.start(
                    _listen, my_identity, peer_key, family, local_port, peer_candidates,
                    config, state, report,
                )  # fmt: skip
            nursery.start_soon(_give_up, start_at + schedule.attempts * schedule.spacing, state)
            for target in targets:
                nursery.start_soon(
                    _dial_pair, my_identity, peer_key, target, start_at, local_port,
                    schedule, config, state, report,
                )  # fmt: skip
            await state.done.wait()
            nursery.cancel_scope.cancel()
    report.path = state.winner_candidate
    return state.winner


async def _dial_pair(
    identity: Identity,
    peer_key: bytes,
    target: Candidate,
    start_at: float,
    local_port: int,
    schedule: PunchSchedule,
    config: TransportConfig,
    state: _State,
    report: PunchReport,
) -> None:
    """Dial one peer candidate ``attempts`` times; hand an authenticated channel to ``state``."""
    for attempt in range(schedule.attempts):
        await trio.sleep_until(start_at + attempt * schedule.spacing)
        try:
            sock = await bound_tcp_socket(target.family, local_port)
        except OSError as exc:
            report.errors.append(f"{target}: cannot bind port {local_port}: {exc}")
            return
        report.dials += 1
        try:
            with trio.move_on_after(schedule.connect_timeout) as scope:
                await sock.connect((target.address, target.port))
        except OSError as exc:
            sock.close()
            # Refused (the peer's socket was not there yet) or unreachable: the next attempt.
            if attempt == schedule.attempts - 1:
                report.errors.append(f"{target}: {exc.strerror or exc}")
            continue
        except BaseException:
            sock.close()
            raise
        if scope.cancelled_caught:
            sock.close()
            if attempt == schedule.attempts - 1:
                report.errors.append(f"{target}: no answer to {schedule.attempts} dials")
            continue
        report.opened.append(str(target))
        await _authenticate(trio.SocketStream(sock), identity, peer_key, target, config, state,
                            report)  # fmt: skip
        return


async def _give_up(dials_end: float, state: _State) -> None:
    """After the last dial, stop as soon as no handshake is under way (the deadline of
    ``punch`` bounds the handshakes themselves)."""
    await trio.sleep_until(dials_end)
    while state.active:
        await trio.sleep(0.05)
    state.done.set()


MAX_INBOUND = 8  # connections accepted during one punch (an open port invites strangers)


async def _listen(
    identity: Identity,
    peer_key: bytes,
    family: int,
    local_port: int,
    peer_candidates: Sequence[Candidate],
    config: TransportConfig,
    state: _State,
    report: PunchReport,
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Also accept on the punch's port: where nothing filters inbound (the same LAN, one
    machine, an open IPv6 firewall) the peer's SYN may arrive before ours left, and would be
    refused with no listener. On the same 4-tuple the kernel prefers our dialling socket, so
    a crossed SYN still makes a simultaneous open."""
    try:
        sock = await bound_tcp_socket(family, local_port)
        sock.listen(MAX_INBOUND)
    except OSError as exc:
        report.errors.append(f"cannot listen on port {local_port}: {exc}")
        task_status.started()
        return
    listener = trio.SocketListener(sock)
    task_status.started()
    async with listener, trio.open_nursery() as nursery:
        for _ in range(MAX_INBOUND):
            stream = await listener.accept()
            address, port = stream.socket.getpeername()[:2]
            known = [c for c in peer_candidates if (c.address, c.port) == (address, port)]
            label = known[0] if known else f"inbound from {address}:{port}"
            report.opened.append(str(label))
            nursery.start_soon(
                _authenticate, stream, identity, peer_key, label, config, state, report
            )


async def _authenticate(
    stream: trio.SocketStream,
    identity: Identity,
    peer_key: bytes,
    target: Candidate | str,
    config: TransportConfig,
    state: _State,
    report: PunchReport,
) -> None:
    """The existing handshake on an opened path, then the nomination (see the module doc)."""
    state.active += 1
    try:
        await _authenticate_counted(stream, identity, peer_key, target, config, state, report)
    finally:
        state.active -= 1


async def _authenticate_counted(
    stream: trio.SocketStream,
    identity: Identity,
    peer_key: bytes,
    target: Candidate | str,
    config: TransportConfig,
    state: _State,
    report: PunchReport,
) -> None:
    handshake = connect if state.initiator else accept
    try:
        channel = await handshake(stream, identity, peer_key, config=config)
    except HandshakeError as exc:
        report.errors.append(f"{target}: handshake refused: {exc}")
        return
    try:
        if state.initiator:
            # The initiator's handshake ends before the responder has checked its key: only
            # the responder's answer to the nomination says the path is good at both ends.
            async with state.nominating:
                if state.winner is None:
                    await channel.send(NOMINATE)
                    if await channel.receive() != NOMINATED:
                        raise ChannelError("the peer did not confirm the nomination")
                    state.winner = channel
                state.winner_candidate = target if isinstance(target, Candidate) else None
                state.done.set()
                return
        else:
            first = await channel.receive()
            if first == NOMINATE and state.winner is None:
                await channel.send(NOMINATED)
                state.winner = channel
                state.winner_candidate = target if isinstance(target, Candidate) else None
                state.done.set()
                return
    except ChannelError as exc:
        report.errors.append(f"{target}: {exc}")
    finally:
        if state.winner is not channel:
            await channel.aclose("another path was chosen")


Send = Callable[[bytes], Awaitable[None]]
Receive = Callable[[], Awaitable[bytes]]


def _now_ms() -> int:
    import time

    return int(time.time() * 1000)


async def rendezvous(
    identity: Identity,
    peer_key: bytes,
    my_candidates: Sequence[Candidate],
    send: Send,
    receive: Receive,
    *,
    table_id: bytes = b"",
    timeout: float = 20.0,
    allow_loopback: bool = False,
) -> tuple[list[Candidate], float] | None:
    """Swap candidates with the peer over the table's rendezvous and agree when to dial.

    The schedule of libp2p's DCUtR: the seat with the lower key sends its ``cand``, the peer
    answers with its own, the first measures that round trip and sends ``punch``; it dials
    half a round trip later, the peer when ``punch`` arrives, so both SYNs leave at about the
    same moment. ``send``/``receive`` carry one message each way per call (the rendezvous is
    encrypted and may be slow); messages that do not open are dropped. Returns (the peer's
    candidates, start_at on the Trio clock), or None if the peer does not answer in time.
    """
    initiator = identity.public_key < peer_key

    async def next_message() -> CandidateOffer | PunchGo:
        while True:
            data = await receive()
            try:
                return open_message(data, table_id, peer_key, identity.public_key, _now_ms(),
                                    allow_loopback=allow_loopback)  # fmt: skip
            except MessageRefused:
                continue

    with trio.move_on_after(timeout):
        if initiator:
            offer, nonce = seal_candidates(
                identity, table_id, peer_key, list(my_candidates), _now_ms()
            )
            sent = trio.current_time()
            await send(offer)
            while True:
                answer = await next_message()
                if isinstance(answer, CandidateOffer):
                    break
            go_at = trio.current_time()
            rtt = go_at - sent
            await send(_seal_punch(identity, table_id, peer_key, answer.nonce))
            # The peer dials when `punch` reaches it: half a round trip after we sent it.
            return list(answer.candidates), go_at + rtt / 2
        while True:
            first = await next_message()
            if isinstance(first, CandidateOffer):
                break
        offer, nonce = seal_candidates(identity, table_id, peer_key, list(my_candidates), _now_ms())
        await send(offer)
        while True:
            go = await next_message()
            if isinstance(go, PunchGo) and go.nonce == nonce:
                return list(first.candidates), trio.current_time()
    return None
