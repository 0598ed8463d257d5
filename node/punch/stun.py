"""A small STUN Binding client (RFC 8489, formerly RFC 5389) over TCP.

It asks a STUN server which address and port a connection from our local port arrives from:
our public mapping, when we sit behind a NAT. Only what that needs: a Binding request with no
attributes, and a strict reader of the answer. A response is taken only if everything checks:
the size (at most :data:`MAX_MESSAGE` bytes, the length field a multiple of 4 and equal to
what arrived), the magic cookie, the transaction id we chose (12 random bytes from
:mod:`secrets`), the message type, every attribute's bounds, the address
family and length of the mapped address, and the FINGERPRINT where the server sends one.

Over TCP the query leaves from the very local port the punch will use (SO_REUSEADDR and
SO_REUSEPORT), so the mapping the server reports is the one a home router with an
endpoint-independent mapping gives that port towards anyone.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import struct
import zlib
from dataclasses import dataclass

import trio

__all__ = [
    "BINDING_REQUEST",
    "BINDING_SUCCESS",
    "MAGIC_COOKIE",
    "MAX_MESSAGE",
    "StunError",
    "binding_request",
    "bound_tcp_socket",
    "parse_binding_response",
    "stun_tcp",
]

MAGIC_COOKIE = 0x2112A442
BINDING_REQUEST = 0x0001
BINDING_SUCCESS = 0x0101
BINDING_ERROR = 0x0111
HEADER = 20
# A Binding answer carries a handful of addresses and a software name: a few hundred bytes.
# Anything longer is not an answer we asked for (and is not read into memory).
MAX_MESSAGE = 1024

ATTR_MAPPED_ADDRESS = 0x0001
ATTR_USERNAME = 0x0006
ATTR_MESSAGE_INTEGRITY = 0x0008
ATTR_ERROR_CODE = 0x0009
ATTR_UNKNOWN_ATTRIBUTES = 0x000A
ATTR_REALM = 0x0014
ATTR_NONCE = 0x0015
ATTR_XOR_MAPPED_ADDRESS = 0x0020
ATTR_MESSAGE_INTEGRITY_SHA256 = 0x001C
ATTR_FINGERPRINT = 0x8028
FINGERPRINT_XOR = 0x5354554E
# Comprehension-required attributes (type < 0x8000) a Binding answer may carry; any other one
# makes the answer unusable (RFC 8489 §6.3.3).
KNOWN_REQUIRED = frozenset(
    {
        ATTR_MAPPED_ADDRESS,
        ATTR_USERNAME,
        ATTR_MESSAGE_INTEGRITY,
        ATTR_ERROR_CODE,
        ATTR_UNKNOWN_ATTRIBUTES,
        ATTR_REALM,
        ATTR_NONCE,
        ATTR_XOR_MAPPED_ADDRESS,
        ATTR_MESSAGE_INTEGRITY_SHA256,
    }
)


class StunError(Exception):
    """No usable answer from a STUN server; the message says why."""


@dataclass(frozen=True)
class Request:
    transaction_id: bytes  # 12 bytes
    data: bytes


def binding_request() -> Request:
    """A Binding request with a fresh random transaction id."""
    transaction_id = secrets.token_bytes(12)
    header = struct.pack("!HHI", BINDING_REQUEST, 0, MAGIC_COOKIE) + transaction_id
    return Request(transaction_id, header)


def _address(value: bytes, xor: bool, transaction_id: bytes) -> tuple[str, int]:
    if len(value) < 4 or value[0] != 0:
        raise StunError("malformed mapped address")
    family = value[1]
    (port,) = struct.unpack("!H", value[2:4])
    raw = value[4:]
    if family == 0x01:
        if len(raw) != 4:
            raise StunError("an IPv4 mapped address must be 4 bytes")
        mask = struct.pack("!I", MAGIC_COOKIE)
    elif family == 0x02:
        if len(raw) != 16:
            raise StunError("an IPv6 mapped address must be 16 bytes")
        mask = struct.pack("!I", MAGIC_COOKIE) + transaction_id
    else:
        raise StunError(f"unknown address family 0x{family:02x}")
    if xor:
        port ^= MAGIC_COOKIE >> 16
        raw = bytes(a ^ b for a, b in zip(raw, mask, strict=True))
    if port == 0:
        raise StunError("mapped port 0")
    return str(ipaddress.ip_address(raw)), port


def parse_binding_response(data: bytes, transaction_id: bytes) -> tuple[str, int]:
    """The (address, port) a Binding success response reports; StunError on anything else."""
    if len(data) > MAX_MESSAGE:
        raise StunError(f"answer of {len(data)} bytes is longer than {MAX_MESSAGE}")
    if len(data) < HEADER:
        raise StunError(f"truncated answer: {len(data)} bytes, a STUN header is {HEADER}")
    msg_type, length, cookie = struct.unpack("!HHI", data[:8])
    if msg_type & 0xC000:
        raise StunError("not a STUN message (the first two bits are not zero)")
    if cookie != MAGIC_COOKIE:
        raise StunError(f"bad magic cookie 0x{cookie:08x}")
    if length % 4 or HEADER + length != len(data):
        raise StunError(f"length field {length} does not match the {len(data)} bytes received")
    if not secrets.compare_digest(data[8:20], transaction_id):
        raise StunError("answer to another transaction (transaction id differs)")
    if msg_type == BINDING_ERROR:
        raise StunError("the server answered with a Binding error")
    if msg_type != BINDING_SUCCESS:
        raise StunError(f"unexpected message type 0x{msg_type:04x}")
    xor_mapped: tuple[str, int] | None = None
    mapped: tuple[str, int] | None = None
    offset = HEADER
    while offset < len(data):
        if offset + 4 > len(data):
            raise StunError("truncated attribute header")
        attr_type, attr_len = struct.unpack("!HH", data[offset : offset + 4])
        start = offset + 4
        end = start + attr_len
        if end > len(data):
            raise StunError(f"attribute 0x{attr_type:04x} runs past the end of the answer")
        value = data[start:end]
        if attr_type == ATTR_FINGERPRINT:
            if attr_len != 4 or end + ((4 - attr_len % 4) % 4) != len(data):
                raise StunError("FINGERPRINT must be the last attribute, 4 bytes")
            # The CRC covers the message up to the attribute, with the length as sent.
            (crc,) = struct.unpack("!I", value)
            if zlib.crc32(data[:offset]) ^ FINGERPRINT_XOR != crc:
                raise StunError("FINGERPRINT does not match")
        elif attr_type == ATTR_XOR_MAPPED_ADDRESS and xor_mapped is None:
            xor_mapped = _address(value, True, transaction_id)
        elif attr_type == ATTR_MAPPED_ADDRESS and mapped is None:
            mapped = _address(value, False, transaction_id)
        elif attr_type < 0x8000 and attr_type not in KNOWN_REQUIRED:
            raise StunError(f"unknown comprehension-required attribute 0x{attr_type:04x}")
        offset = end + ((4 - attr_len % 4) % 4)
    # XOR-MAPPED-ADDRESS is what RFC 8489 servers send; MAPPED-ADDRESS only old ones (and some
    # middleboxes rewrite it, which is why the XOR form exists).
    found = xor_mapped or mapped
    if found is None:
        raise StunError("the answer carries no mapped address")
    return found


async def bound_tcp_socket(family: int, port: int) -> trio.socket.SocketType:
    """A TCP socket bound to ``port`` on every local address of ``family``, shareable with the
    other sockets of the punch (SO_REUSEADDR + SO_REUSEPORT: all of them leave from the same
    local port, which is the point)."""
    sock = trio.socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # Every local address: the punch's port must be reachable on whichever one the
        # route picks (the LAN address, a global IPv6 address).
        await sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", port))  # noqa: S104
    except BaseException:
        sock.close()
        raise
    return sock


async def _read_exactly(stream: trio.SocketStream, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = await stream.receive_some(size - len(data))
        if not chunk:
            raise StunError(f"the server closed the connection after {len(data)} bytes")
        data += chunk
    return data


async def stun_tcp(
    server: tuple[str, int], local_port: int, timeout: float = 3.0
) -> tuple[str, int]:
    """Our (address, port) as ``server`` (an IP literal and port) sees a TCP connection from
    ``local_port``. StunError when there is no usable answer within ``timeout`` seconds."""
    host, port = server
    family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    request = binding_request()
    try:
        with trio.fail_after(timeout):
            sock = await bound_tcp_socket(family, local_port)
            try:
                await sock.connect((host, port))
            except BaseException:
                sock.close()
                raise
            stream = trio.SocketStream(sock)
            try:
                await stream.send_all(request.data)
                header = await _read_exactly(stream, HEADER)
                (length,) = struct.unpack("!H", header[2:4])
                if HEADER + length > MAX_MESSAGE:  # refuse before reading it
                    raise StunError(f"answer announces {HEADER + length} bytes, over {MAX_MESSAGE}")
                body = await _read_exactly(stream, length)
            finally:
                await trio.aclose_forcefully(stream)
    except trio.TooSlowError:
        raise StunError(f"no answer from {host}:{port} within {timeout} s") from None
    except OSError as exc:
        raise StunError(f"cannot reach {host}:{port}: {exc.strerror or exc}") from None
    except trio.BrokenResourceError as exc:
        raise StunError(f"connection to {host}:{port} lost: {exc}") from None
    return parse_binding_response(header + body, request.transaction_id)
