"""NIP-11: a relay's information document (``GET`` with ``Accept: application/nostr+json``),
read for the limits we must respect. Best effort: a relay without one gets the defaults."""

from __future__ import annotations

import json
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

import h11
import trio

__all__ = ["RelayLimits", "fetch_limits", "parse_limits"]

MAX_DOCUMENT = 64 * 1024
DEFAULT_MAX_CONTENT = 32 * 1024
ENVELOPE = 1024  # what an EVENT message carries beside its content (JSON, id, key, sig, tags)


@dataclass(frozen=True)
class RelayLimits:
    max_content: int = DEFAULT_MAX_CONTENT  # characters of event content we send
    max_subscriptions: int = 0  # 0: not stated
    max_limit: int = 0
    auth_required: bool = False
    payment_required: bool = False
    restricted_writes: bool = False
    min_pow: int = 0  # NIP-13 difficulty asked of every event


def _positive(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def parse_limits(document: object) -> RelayLimits:
    if not isinstance(document, dict):
        return RelayLimits()
    limitation = document.get("limitation")
    if not isinstance(limitation, dict):
        return RelayLimits()
    max_content = DEFAULT_MAX_CONTENT
    message = _positive(limitation.get("max_message_length"))
    if message:
        max_content = min(max_content, max(0, message - ENVELOPE))
    content = _positive(limitation.get("max_content_length"))
    if content:
        max_content = min(max_content, content)
    return RelayLimits(
        max_content=max_content,
        max_subscriptions=_positive(limitation.get("max_subscriptions")),
        max_limit=_positive(limitation.get("max_limit")),
        auth_required=limitation.get("auth_required") is True,
        payment_required=limitation.get("payment_required") is True,
        restricted_writes=limitation.get("restricted_writes") is True,
        min_pow=min(_positive(limitation.get("min_pow_difficulty")), 256),
    )


async def _get(url: str) -> bytes:
    parts = urlsplit(url)
    secure = parts.scheme == "wss"
    host = parts.hostname or ""
    port = parts.port or (443 if secure else 80)
    stream: trio.abc.Stream = await trio.open_tcp_stream(host, port)
    if secure:
        stream = trio.SSLStream(stream, ssl.create_default_context(), server_hostname=host)
    try:
        conn = h11.Connection(h11.CLIENT)
        target = parts.path or "/"
        request = h11.Request(
            method="GET",
            target=target,
            headers=[
                ("Host", parts.netloc),
                ("Accept", "application/nostr+json"),
                ("Connection", "close"),
            ],
        )
        await stream.send_all(conn.send(request) + conn.send(h11.EndOfMessage()))
        body = b""
        status = 0
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(bytes(await stream.receive_some(16384)))
                continue
            if isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                body += event.data
                if len(body) > MAX_DOCUMENT:
                    raise ValueError("the information document is too big")
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                break
        if status != 200:
            raise ValueError(f"HTTP status {status}")
        return body
    finally:
        await trio.aclose_forcefully(stream)


async def fetch_limits(url: str, timeout: float = 5.0) -> tuple[RelayLimits, str]:
    """The relay's limits and, when there is no usable document, why (for the user)."""
    try:
        with trio.fail_after(timeout):
            body = await _get(url)
        return parse_limits(json.loads(body)), ""
    except trio.TooSlowError:
        return RelayLimits(), "no information document within the time"
    except (OSError, ValueError, h11.ProtocolError, trio.BrokenResourceError) as exc:
        return RelayLimits(), f"no information document ({exc})"
