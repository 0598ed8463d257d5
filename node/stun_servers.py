"""The STUN servers a seat asks for its public address: the shipped list and the parser of
``--stun HOST:PORT,...`` / ``stun.servers``. Only the standard library: the command line
checks the option before anything heavy is loaded (see node/punch for the rest)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["DEFAULT_STUN_SERVERS", "MAX_STUN_SERVERS", "parse_stun_servers"]

MAX_STUN_SERVERS = 8
# Public STUN servers that answer Binding requests over TCP (the punch is TCP). Overridable:
# `--stun HOST:PORT,...`, `stun.servers` in the config file.
DEFAULT_STUN_SERVERS: tuple[str, ...] = (
    "stun.cloudflare.com:3478",
    "stun.nextcloud.com:443",
    "stun.sipgate.net:3478",
)


def parse_stun_servers(text: str | Sequence[str]) -> list[tuple[str, int]]:
    """``"HOST:PORT,HOST:PORT"`` (or a list of ``HOST:PORT``) -> [(host, port)], ValueError
    saying what is wrong. ``[v6]:PORT`` for IPv6 literals; the port defaults to 3478."""
    items = text.split(",") if isinstance(text, str) else list(text)
    servers: list[tuple[str, int]] = []
    for item in items:
        item = item.strip()
        if not item:
            continue
        if item.startswith("["):
            host, sep, rest = item[1:].partition("]")
            if not sep or (rest and not rest.startswith(":")):
                raise ValueError(f"bad STUN server {item!r}: expected [IPv6]:PORT")
            port_text = rest[1:]
        elif item.count(":") > 1:
            raise ValueError(f"bad STUN server {item!r}: write an IPv6 address as [ADDR]:PORT")
        else:
            host, _, port_text = item.partition(":")
        if not host or len(host) > 253 or any(c.isspace() for c in host):
            raise ValueError(f"bad STUN server {item!r}: no host name")
        try:
            port = int(port_text) if port_text else 3478
        except ValueError:
            raise ValueError(f"bad STUN server {item!r}: port is not a number") from None
        if not 1 <= port <= 65535:
            raise ValueError(f"bad STUN server {item!r}: port out of range")
        servers.append((host, port))
    if len(servers) > MAX_STUN_SERVERS:
        raise ValueError(f"at most {MAX_STUN_SERVERS} STUN servers")
    return servers
