"""English, German, Dutch and French texts of the terminal client.

``tr(lang, key, **values)`` looks a key up (falling back to English, then to the key itself);
:func:`detect_language` picks a language from ``--lang`` or the locale environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from dealerless.client.tui.texts_de import TEXTS as _DE
from dealerless.client.tui.texts_en import TEXTS as _EN
from dealerless.client.tui.texts_fr import TEXTS as _FR
from dealerless.client.tui.texts_nl import TEXTS as _NL

LANGUAGES = ("en", "de", "nl", "fr")

CATALOGS: Mapping[str, Mapping[str, str]] = {"en": _EN, "de": _DE, "nl": _NL, "fr": _FR}

# Keys that answer yes in the quit confirmation, per language (French: o for oui; n stays no).
YES_KEYS: Mapping[str, str] = {"en": "y", "de": "j", "nl": "j", "fr": "o"}


# Every (language, key) asked for that the language's table lacks: the screen then shows the
# English text (or the key). Tests render every screen and fail on anything in here.
MISSING: set[tuple[str, str]] = set()


def tr(lang: str, key: str, **values: object) -> str:
    """The text for ``key`` in ``lang`` with ``values`` filled in."""
    text = CATALOGS.get(lang, _EN).get(key)
    if text is None:
        MISSING.add((lang, key))
        text = _EN.get(key) or key
    return text.format(**values) if values else text


def detect_language(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """``explicit`` if it names a known language, else the locale (LC_ALL, LC_MESSAGES, LANG)."""
    if explicit:
        code = explicit.strip().lower()[:2]
        if code in CATALOGS:
            return code
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(var, "")
        code = value.strip().lower()[:2]
        if code in CATALOGS:
            return code
    return "en"
