from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
import trio
import trio.testing
from transport_helpers import _relay, both, channel_pair, flip, frame

from dealerless.node.identity import Identity
from dealerless.node.transport import (
    ChannelClosed,
    ChannelError,
    FrameError,
    IdleTimeout,
    SecureChannel,
    TransportConfig,
    accept,
    open_tcp_channel,
)
from dealerless.node.transport.cipher import MAX_NONCE, CipherState, DecryptError, NonceExhausted

# frames relayed initiator -> responder: 0 = msg1, 1 = msg3, 2.. = records


async def _pair_through(
    mutate: Callable[[str, int, bytes], Sequence[bytes | None]],
    nursery: trio.Nursery,
    config: TransportConfig | None = None,
) -> tuple[SecureChannel, SecureChannel]:
    a, relay_a = trio.testing.memory_stream_pair()
    relay_b, b = trio.testing.memory_stream_pair()
    log: list[tuple[str, int, bytes]] = []
    nursery.start_soon(_relay, relay_a, relay_b, "i2r", mutate, log)
    nursery.start_soon(_relay, relay_b, relay_a, "r2i", mutate, log)
    oi, orr = await both(
        a, b, Identity.generate(), Identity.generate(), config_i=config, config_r=config
    )
    return oi.unwrap(), orr.unwrap()


async def test_messages_flow_both_ways_across_rekeys() -> None:
    ci, cr = await channel_pair(TransportConfig(rekey_interval=3))
    for n in range(20):
        await ci.send(b"i%d" % n)
        await cr.send(b"r%d" % n)
    for n in range(20):
        assert await cr.receive() == b"i%d" % n
        assert await ci.receive() == b"r%d" % n
    assert ci._send_cipher.nonce == 20


async def test_message_size_limit() -> None:
    config = TransportConfig(max_frame_size=1024)
    ci, cr = await channel_pair(config)
    assert ci.max_message_size == 1024 - 17
    await ci.send(b"m" * ci.max_message_size)
    assert await cr.receive() == b"m" * ci.max_message_size
    with pytest.raises(FrameError, match="exceeds the maximum of 1007 bytes"):
        await ci.send(b"m" * (ci.max_message_size + 1))
    await ci.send(b"still fine")  # a refused send does not break the channel
    assert await cr.receive() == b"still fine"
    await ci.send(b"")  # empty messages are fine
    assert await cr.receive() == b""


def _at(
    index: int, action: Callable[[bytes], Sequence[bytes | None]]
) -> Callable[[str, int, bytes], Sequence[bytes | None]]:
    def mutate(d: str, i: int, body: bytes) -> Sequence[bytes | None]:
        if d == "i2r" and i == index:
            return action(body)
        return [frame(body)]

    return mutate


async def _expect_broken(cr: SecureChannel, ci: SecureChannel, message: str, good: int = 0) -> None:
    for n in range(good):
        assert await cr.receive() == b"msg%d" % n
    with pytest.raises(ChannelError, match=message):
        await cr.receive()
    assert cr.closed
    with pytest.raises(ChannelError, match=message):  # the error sticks
        await cr.receive()
    with pytest.raises(ChannelError, match=message):
        await cr.send(b"x")
    with pytest.raises(ChannelError, match="connection lost"):  # and the peer notices
        await ci.receive()


async def _send_three(ci: SecureChannel) -> None:
    for n in range(3):
        await ci.send(b"msg%d" % n)


async def test_tampered_frame_is_rejected() -> None:
    async with trio.open_nursery() as nursery:
        ci, cr = await _pair_through(_at(3, lambda body: [frame(flip(body, 5))]), nursery)
        await _send_three(ci)
        await _expect_broken(cr, ci, "frame 1 from peer failed authentication", good=1)
        nursery.cancel_scope.cancel()


async def test_tampered_tag_is_rejected() -> None:
    async with trio.open_nursery() as nursery:
        ci, cr = await _pair_through(_at(2, lambda body: [frame(flip(body, -1))]), nursery)
        await _send_three(ci)
        await _expect_broken(cr, ci, "frame 0 from peer failed authentication")
        nursery.cancel_scope.cancel()


async def test_replayed_frame_is_rejected() -> None:
    async with trio.open_nursery() as nursery:
        ci, cr = await _pair_through(_at(2, lambda body: [frame(body), frame(body)]), nursery)
        await _send_three(ci)
        await _expect_broken(cr, ci, "frame 1 from peer failed authentication", good=1)
        nursery.cancel_scope.cancel()


async def test_reordered_frames_are_rejected() -> None:
    held: list[bytes] = []

    def mutate(d: str, i: int, body: bytes) -> Sequence[bytes | None]:
        if d == "i2r" and i == 2:
            held.append(body)
            return []
        if d == "i2r" and i == 3:
            return [frame(body), frame(held[0])]
        return [frame(body)]

    async with trio.open_nursery() as nursery:
        ci, cr = await _pair_through(mutate, nursery)
        await _send_three(ci)
        await _expect_broken(cr, ci, "frame 0 from peer failed authentication")
        nursery.cancel_scope.cancel()


async def test_dropped_frame_is_detected() -> None:
    async with trio.open_nursery() as nursery:
        ci, cr = await _pair_through(_at(2, lambda body: []), nursery)
        await _send_three(ci)
        await _expect_broken(cr, ci, "frame 0 from peer failed authentication")
        nursery.cancel_scope.cancel()


async def test_truncated_frame_is_rejected() -> None:
    async with trio.open_nursery() as nursery:
        ci, cr = await _pair_through(_at(3, lambda body: [frame(body)[:-3], None]), nursery)
        await _send_three(ci)
        assert await cr.receive() == b"msg0"
        with pytest.raises(ChannelError, match="truncated frame"):
            await cr.receive()
        nursery.cancel_scope.cancel()


async def test_short_frame_is_rejected() -> None:
    async with trio.open_nursery() as nursery:
        ci, cr = await _pair_through(_at(2, lambda body: [frame(body[:10])]), nursery)
        await _send_three(ci)
        await _expect_broken(cr, ci, "malformed frame 0 from peer: 10 bytes is too short")
        nursery.cancel_scope.cancel()


async def test_oversized_frame_is_rejected() -> None:
    oversized = (2048).to_bytes(4, "big") + bytes(2048)
    async with trio.open_nursery() as nursery:
        ci, cr = await _pair_through(
            _at(2, lambda body: [oversized]), nursery, TransportConfig(max_frame_size=1024)
        )
        await _send_three(ci)
        await _expect_broken(cr, ci, "oversized frame: header announces 2048 bytes")
        nursery.cancel_scope.cancel()


async def test_orderly_close() -> None:
    ci, cr = await channel_pair()
    await ci.send(b"last words")
    await ci.aclose("game over")
    assert await cr.receive() == b"last words"
    with pytest.raises(ChannelClosed, match="peer closed the channel: game over"):
        await cr.receive()
    with pytest.raises(ChannelClosed, match="closed locally"):
        await ci.send(b"too late")
    await ci.aclose()  # idempotent
    await cr.aclose()


async def test_local_close_wakes_a_blocked_receiver() -> None:
    ci, _cr = await channel_pair()
    async with trio.open_nursery() as nursery:

        async def close_soon() -> None:
            await trio.sleep(1)
            await ci.aclose()

        nursery.start_soon(close_soon)
        with pytest.raises(ChannelClosed, match="closed locally"):
            await ci.receive()


async def test_peer_vanishing_without_close_is_an_error() -> None:
    a, b = trio.testing.memory_stream_pair()
    oi, orr = await both(a, b, Identity.generate(), Identity.generate())
    cr = orr.unwrap()
    oi.unwrap()
    await a.aclose()  # the raw stream dies, no close record
    with pytest.raises(ChannelError, match="without closing"):
        await cr.receive()


async def test_concurrent_receive_is_refused() -> None:
    ci, cr = await channel_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(cr.receive)
        await trio.testing.wait_all_tasks_blocked()
        with pytest.raises(trio.BusyResourceError):
            await cr.receive()
        await ci.send(b"x")


KEEPALIVE = TransportConfig(keepalive_interval=5.0, idle_timeout=15.0)


async def test_keepalives_keep_an_idle_link_alive() -> None:
    ci, cr = await channel_pair(KEEPALIVE)
    got: list[bytes] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ci.receive)  # each side listens, and so sends keepalives
        nursery.start_soon(lambda: _collect(cr, got))
        await trio.sleep(1000)  # no application data for 1000 s (mock clock)
        await ci.send(b"still there?")
        await trio.testing.wait_all_tasks_blocked()
        assert got == [b"still there?"]
        assert ci._recv_cipher.nonce >= 1000 / 5 - 2  # keepalives from the responder
        nursery.cancel_scope.cancel()


async def _collect(channel: SecureChannel, out: list[bytes]) -> None:
    out.append(await channel.receive())


async def test_idle_timeout_closes_a_dead_link() -> None:
    ci, cr = await channel_pair(KEEPALIVE)
    start = trio.current_time()
    # the initiator never listens, so it never sends keepalives: a dead peer for cr
    with pytest.raises(IdleTimeout, match=r"nothing received from .* for 15\.0 s"):
        await cr.receive()
    assert trio.current_time() - start == pytest.approx(15.0)
    with pytest.raises(ChannelError):
        await ci.receive()


async def test_keepalive_loop_for_a_node_that_does_not_listen() -> None:
    ci, cr = await channel_pair(KEEPALIVE)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ci.keepalive_loop)
        with trio.move_on_after(500):
            await cr.receive()
        assert not cr.closed
        nursery.cancel_scope.cancel()


async def test_cancelled_receive_does_not_break_the_channel() -> None:
    ci, cr = await channel_pair(KEEPALIVE)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ci.keepalive_loop)
        for _ in range(100):  # cancelled receives at every phase of the keepalive cycle
            with trio.move_on_after(0.7):
                await cr.receive()
        assert not cr.closed
        await ci.send(b"after all that")
        assert await cr.receive() == b"after all that"
        nursery.cancel_scope.cancel()


async def test_send_timeout_on_a_peer_that_stops_reading() -> None:
    a, b = trio.testing.lockstep_stream_pair()
    config = TransportConfig(send_timeout=3.0)
    oi, _orr = await both(
        a, b, Identity.generate(), Identity.generate(), config_i=config, config_r=config
    )
    ci = oi.unwrap()
    with pytest.raises(ChannelError, match=r"timed out after 3\.0 s"):
        await ci.send(b"nobody reads this")
    assert ci.closed


def test_cipher_counter_hard_stop() -> None:
    key = bytes(range(32))
    sender = CipherState(key, nonce=MAX_NONCE)
    receiver = CipherState(key, nonce=MAX_NONCE)
    assert receiver.decrypt(sender.encrypt(b"last")) == b"last"
    with pytest.raises(NonceExhausted):
        sender.encrypt(b"one too many")
    with pytest.raises(NonceExhausted):
        receiver.decrypt(bytes(17))


def test_rekey_changes_the_key_in_lockstep() -> None:
    key = bytes(32)
    plain, rekeyed = CipherState(key), CipherState(key, rekey_interval=2)
    out_plain = [plain.encrypt(b"same") for _ in range(4)]
    out_rekeyed = [rekeyed.encrypt(b"same") for _ in range(4)]
    assert out_plain[:2] == out_rekeyed[:2]
    assert out_plain[2] != out_rekeyed[2]
    receiver = CipherState(key, rekey_interval=2)
    assert [receiver.decrypt(c) for c in out_rekeyed] == [b"same"] * 4
    with pytest.raises(DecryptError):
        CipherState(key, rekey_interval=2).decrypt(out_rekeyed[1])  # wrong counter


async def test_channel_refuses_to_wrap_the_counter() -> None:
    ci, _cr = await channel_pair()
    ci._send_cipher.nonce = MAX_NONCE + 1
    with pytest.raises(ChannelError, match="exhausted"):
        await ci.send(b"x")


@pytest.mark.real_clock
async def test_real_tcp_loopback() -> None:
    alice, bob = Identity.generate(), Identity.generate()
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    accepted: list[SecureChannel] = []

    async def serve_one() -> None:
        stream = await listeners[0].accept()
        channel = await accept(stream, bob)
        accepted.append(channel)
        msg = await channel.receive()
        await channel.send(msg.upper())
        with pytest.raises(ChannelClosed, match="bye"):
            await channel.receive()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve_one)
            channel = await open_tcp_channel("127.0.0.1", port, alice, bob.fingerprint)
            assert channel.peer_id == bob.peer_id
            await channel.send(b"over tcp " * 10000)
            assert await channel.receive() == b"OVER TCP " * 10000
            await channel.aclose("bye")
    assert accepted[0].peer_id == alice.peer_id
    await listeners[0].aclose()
