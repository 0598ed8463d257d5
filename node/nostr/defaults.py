"""The public Nostr relays a table uses when the host names none (``--nostr`` overrides them;
the config file of issue 15 will too). An invite refers to one of these by its index, which
keeps the code short; any other relay travels as its URL."""

from __future__ import annotations

__all__ = ["DEFAULT_RELAYS", "parse_relay_list", "relay_url_problem"]

# Well-known, long-running relays that accept events of unknown kinds from anyone. Never
# reorder: invites carry indexes into this list (append only).
DEFAULT_RELAYS: tuple[str, ...] = (
    "wss://relay.damus.io",
    "wss://nos.lol",
    "wss://relay.primal.net",
    "wss://relay.nostr.band",
    "wss://nostr.mom",
)
MAX_RELAYS = 8
MAX_URL = 200


def relay_url_problem(url: str) -> str:
    """Why ``url`` cannot be a relay address ("" when it can)."""
    if not url.startswith(("ws://", "wss://")):
        return f"{url!r} is not a websocket URL (ws://... or wss://...)"
    if len(url) > MAX_URL or any(c.isspace() for c in url):
        return f"{url[:40]!r}... is too long or has spaces"
    host = url.split("://", 1)[1].split("/", 1)[0]
    if not host:
        return f"{url!r} has no host"
    return ""


def parse_relay_list(text: str) -> list[str]:
    """``URL,URL,...`` -> the URLs; ValueError saying which one is wrong."""
    urls = [u.strip() for u in text.split(",") if u.strip()]
    if not urls:
        raise ValueError("--nostr needs at least one relay URL")
    if len(urls) > MAX_RELAYS:
        raise ValueError(f"at most {MAX_RELAYS} Nostr relays")
    for url in urls:
        problem = relay_url_problem(url)
        if problem:
            raise ValueError(problem)
    return list(dict.fromkeys(urls))
