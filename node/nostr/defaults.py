"""The public Nostr relays a table uses when the host names none (``--nostr`` and the settings
file's ``nostr.relays`` override them). An invite refers to one of these by its index, which
keeps the code short; any other relay travels as its URL.

``DEFAULT_RELAYS`` is every relay ever shipped, so that old invites still decode; a relay that
went away stays in it, listed in ``RETIRED``, and is never chosen again. ``CANDIDATES`` are the
ones ``dealerless host`` asks (node/nostr/probe.py) before it picks three for a table;
``DEFAULT_SET`` is what a table uses when asking is not possible (no answer from any)."""

from __future__ import annotations

__all__ = [
    "CANDIDATES",
    "DEFAULT_RELAYS",
    "DEFAULT_SET",
    "MAX_RELAYS",
    "RETIRED",
    "parse_relay_list",
    "relay_url_problem",
    "relays_from_wire",
    "relays_to_wire",
]

# Well-known, long-running, free relays that accept events of unknown kinds from anyone.
# Never reorder or remove: invites carry indexes into this list (append only). At most 8
# entries keep the bit set of a default code in one msgpack byte after its marker.
DEFAULT_RELAYS: tuple[str, ...] = (
    "wss://relay.damus.io",
    "wss://nos.lol",
    "wss://relay.primal.net",
    "wss://relay.nostr.band",  # retired: gone since early 2026
    "wss://nostr.mom",
    "wss://offchain.pub",
    "wss://relay.snort.social",
    "wss://nostr-pub.wellorder.net",
)
RETIRED: frozenset[str] = frozenset({"wss://relay.nostr.band"})
CANDIDATES: tuple[str, ...] = tuple(u for u in DEFAULT_RELAYS if u not in RETIRED)
# The set shipped first, less what retired: a table's relays when none could be asked.
DEFAULT_SET: tuple[str, ...] = tuple(u for u in DEFAULT_RELAYS[:5] if u not in RETIRED)
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


def relays_to_wire(urls: tuple[str, ...]) -> int | list[int | str]:
    """Only default relays: one small integer, bit i for relay i of the shipped list (the
    default code stays short); otherwise a list of indexes and URLs."""
    if all(u in DEFAULT_RELAYS for u in urls):
        return sum(1 << DEFAULT_RELAYS.index(u) for u in urls)
    return [DEFAULT_RELAYS.index(u) if u in DEFAULT_RELAYS else u for u in urls]


def relays_from_wire(value: object) -> tuple[str, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 < value < 1 << len(DEFAULT_RELAYS):
            raise ValueError(
                f"no such set of default relays ({value}: an invite of a newer version?)"
            )
        return tuple(u for i, u in enumerate(DEFAULT_RELAYS) if value >> i & 1)
    if not isinstance(value, list) or len(value) > MAX_RELAYS:
        raise ValueError(f"not a list of at most {MAX_RELAYS} relays")
    urls = []
    for item in value:
        if isinstance(item, int) and not isinstance(item, bool):
            if not 0 <= item < len(DEFAULT_RELAYS):
                raise ValueError(f"no default relay number {item} (an invite of a newer version?)")
            urls.append(DEFAULT_RELAYS[item])
        elif isinstance(item, str) and not relay_url_problem(item):
            urls.append(item)
        else:
            raise ValueError(f"bad relay {str(item)[:40]!r}")
    return tuple(dict.fromkeys(urls))
