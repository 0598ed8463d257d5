"""Why a typed invite code is refused (node/invite.py's InviteError, English), in the screen's
words: the start screen's join line says it in the player's language.

Each kind the player can act on has its own text; the technical rest (a field of the code that
does not decode) is one text asking for the code again, and the English detail goes to the log.
"""

from __future__ import annotations

import logging
import re

from dealerless.client.tui.i18n import tr
from dealerless.client.tui.safe_text import printable

_LOG = logging.getLogger("dealerless.client")

# (English pattern, key); the first that matches says it.
_KINDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), key)
    for pattern, key in (
        (r"^an invite code is at most (?P<n>\d+) characters", "invite.too_long"),
        (r"^this is an old invite code|was made by an older dealerless", "invite.old"),
        (r"was made by a newer dealerless|^invite format \d+ is not supported", "invite.newer"),
        (r"^an invite code starts with '(?P<prefix>[^']*)'", "invite.prefix"),
        (r"^the invite code is damaged or cut short", "invite.damaged"),
        (r"^the invite code has characters", "invite.characters"),
        (r"names no game this version knows|holds a game this version cannot play", "invite.game"),
    )
)


def invite_text(problem: str, lang: str) -> str:
    """``problem`` (an InviteError's text) in ``lang``."""
    for pattern, key in _KINDS:
        match = pattern.search(problem)
        if match is not None:
            values = {name: printable(value, 20) for name, value in match.groupdict().items()}
            return tr(lang, key, **values)
    _LOG.debug("invite code refused: %s", problem[:300])
    return tr(lang, "invite.invalid")
