"""A small declarative schema facility for message bodies, and the registry of message kinds.

A schema is built from field types::

    JOIN = Map({
        "name": Text(max_len=32, min_len=1),
        "client": Opt(Str(max_len=64, charset=PRINTABLE_ASCII)),
        "invite": Opt(Bytes(max_len=64)),
    })
    register_kind("join", JOIN)

Field types: :class:`Int` (bounded), :class:`Bool`, :class:`Bytes` (exact or bounded length),
:class:`Str` (bounded length in code points, optional allowed charset), :class:`Text` (a
:class:`Str` refusing control and formatting characters), :class:`Enum` (one of some strings),
:class:`List` (of one item type, bounded length), :class:`Map` (fixed field names, nested),
:class:`Dict` (free string keys, one value type), :class:`Either` (the first alternative that
fits), :class:`Nil`, :class:`Custom` (a field type plus a validator function, e.g. one that calls
``Action.from_wire``), and :class:`Opt` to mark a :class:`Map` field optional.

A :class:`Map` refuses unknown fields; an optional field that is absent is simply missing (send
nothing rather than nil). Every check raises :class:`SchemaViolation` naming the path
(``body.cards[2]``), the expectation and what was received.
"""

from __future__ import annotations

import re
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dealerless.protocol.wire.codec import describe
from dealerless.protocol.wire.errors import SchemaViolation, UnknownKind

__all__ = [
    "DEFAULT_REGISTRY",
    "IDENT_CHARS",
    "PRINTABLE_ASCII",
    "Bool",
    "Bytes",
    "Custom",
    "Dict",
    "Either",
    "Enum",
    "Field",
    "Int",
    "KindRegistry",
    "List",
    "Map",
    "Nil",
    "Opt",
    "Str",
    "Text",
    "register_kind",
]

PRINTABLE_ASCII = "".join(chr(c) for c in range(0x20, 0x7F))
IDENT_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-_"
KIND_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}")


class Field(ABC):
    """One value's expected shape."""

    @abstractmethod
    def check(self, value: object, path: str) -> None:
        """Raise :class:`SchemaViolation` if ``value`` does not fit."""

    @abstractmethod
    def describe(self) -> str:
        """What this field expects, in words (used in error texts and documentation)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.describe()}>"


def _fail(path: str, field: Field | str, value: object) -> SchemaViolation:
    expected = field if isinstance(field, str) else field.describe()
    return SchemaViolation(path, expected, describe(value))


class Int(Field):
    """An integer in ``minimum..maximum`` (inclusive). Booleans are not integers here."""

    def __init__(self, minimum: int, maximum: int) -> None:
        if minimum > maximum:
            raise ValueError(f"Int: minimum {minimum} is above maximum {maximum}")
        self.minimum = minimum
        self.maximum = maximum

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise _fail(path, self, value)
        if not self.minimum <= value <= self.maximum:
            raise _fail(path, self, value)

    def describe(self) -> str:
        return f"int in {self.minimum}..{self.maximum}"


class Bool(Field):
    def check(self, value: object, path: str) -> None:
        if not isinstance(value, bool):
            raise _fail(path, self, value)

    def describe(self) -> str:
        return "bool"


class Nil(Field):
    def check(self, value: object, path: str) -> None:
        if value is not None:
            raise _fail(path, self, value)

    def describe(self) -> str:
        return "nil"


class Bytes(Field):
    """A byte string of exactly ``length`` bytes, or of ``min_len..max_len`` bytes."""

    def __init__(
        self, length: int | None = None, *, min_len: int = 0, max_len: int | None = None
    ) -> None:
        if length is not None:
            if max_len is not None or min_len:
                raise ValueError("Bytes: give either an exact length or min_len/max_len")
            min_len = max_len = length
        if max_len is None:
            raise ValueError("Bytes: a maximum length (or exact length) is required")
        if not 0 <= min_len <= max_len:
            raise ValueError(f"Bytes: bad length bounds {min_len}..{max_len}")
        self.min_len = min_len
        self.max_len = max_len

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, bytes) or not self.min_len <= len(value) <= self.max_len:
            raise _fail(path, self, value)

    def describe(self) -> str:
        if self.min_len == self.max_len:
            return f"bytes of length {self.min_len}"
        return f"bytes of length {self.min_len}..{self.max_len}"


class Str(Field):
    """A string of ``min_len..max_len`` code points; with ``charset``, only those characters."""

    def __init__(self, max_len: int, *, min_len: int = 0, charset: str | None = None) -> None:
        if not 0 <= min_len <= max_len:
            raise ValueError(f"Str: bad length bounds {min_len}..{max_len}")
        self.min_len = min_len
        self.max_len = max_len
        self.charset = frozenset(charset) if charset is not None else None

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, str) or not self.min_len <= len(value) <= self.max_len:
            raise _fail(path, self, value)
        bad = self._bad_char(value)
        if bad is not None:
            raise SchemaViolation(
                path,
                self.describe(),
                f"character {bad!r} (U+{ord(bad):04X}) at index {value.index(bad)}",
            )

    def _bad_char(self, value: str) -> str | None:
        if self.charset is None:
            return None
        return next((ch for ch in value if ch not in self.charset), None)

    def _charset_words(self) -> str:
        if self.charset is None:
            return ""
        if self.charset == frozenset(PRINTABLE_ASCII):
            return " of printable ASCII"
        return " of [" + "".join(sorted(self.charset)) + "]"

    def describe(self) -> str:
        return f"str of {self.min_len}..{self.max_len} chars{self._charset_words()}"


class Text(Str):
    """Human text (names, chat): any Unicode letters, marks, numbers, punctuation, symbols and
    spaces, but no control, formatting (including bidirectional overrides), surrogate,
    private-use or unassigned code points, and no line or paragraph separators."""

    _REFUSED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

    def __init__(self, max_len: int, *, min_len: int = 0) -> None:
        super().__init__(max_len, min_len=min_len)

    def _bad_char(self, value: str) -> str | None:
        return next((ch for ch in value if unicodedata.category(ch) in self._REFUSED), None)

    def describe(self) -> str:
        return f"text of {self.min_len}..{self.max_len} chars without control characters"


class Enum(Field):
    """One of a fixed set of strings."""

    def __init__(self, *choices: str) -> None:
        if not choices:
            raise ValueError("Enum: at least one choice is required")
        self.choices = tuple(choices)

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, str) or value not in self.choices:
            raise _fail(path, self, value)

    def describe(self) -> str:
        return "one of " + ", ".join(repr(c) for c in self.choices)


class List(Field):
    """An array of ``min_len..max_len`` items, each fitting ``item``; ``unique`` refuses repeats."""

    def __init__(
        self, item: Field, *, max_len: int, min_len: int = 0, unique: bool = False
    ) -> None:
        if not 0 <= min_len <= max_len:
            raise ValueError(f"List: bad length bounds {min_len}..{max_len}")
        self.item = item
        self.min_len = min_len
        self.max_len = max_len
        self.unique = unique

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, list) or not self.min_len <= len(value) <= self.max_len:
            raise _fail(path, self, value)
        for i, item in enumerate(value):
            self.item.check(item, f"{path}[{i}]")
        if self.unique:
            seen: set[object] = set()
            for i, item in enumerate(value):
                key = repr(item)
                if key in seen:
                    raise SchemaViolation(
                        f"{path}[{i}]", "no repeated items", f"a repeat of {describe(item)}"
                    )
                seen.add(key)

    def describe(self) -> str:
        extra = ", no repeats" if self.unique else ""
        return f"array of {self.min_len}..{self.max_len} x ({self.item.describe()}){extra}"


class Opt(Field):
    """Marks a :class:`Map` field optional (it may be absent; if present it must fit)."""

    def __init__(self, inner: Field) -> None:
        self.inner = inner

    def check(self, value: object, path: str) -> None:
        self.inner.check(value, path)

    def describe(self) -> str:
        return f"optional {self.inner.describe()}"


class Map(Field):
    """A map with these field names only; fields wrapped in :class:`Opt` may be absent."""

    def __init__(self, fields: Mapping[str, Field]) -> None:
        for name in fields:
            if not isinstance(name, str):
                raise ValueError(f"Map: field names must be strings, got {name!r}")
        self.fields = dict(fields)
        self.required = frozenset(n for n, f in self.fields.items() if not isinstance(f, Opt))

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, dict):
            raise _fail(path, "map", value)
        unknown = sorted(str(k) for k in value if k not in self.fields)
        if unknown:
            raise SchemaViolation(
                path,
                "only the fields " + ", ".join(sorted(self.fields)) if self.fields else "no fields",
                "unknown field(s) " + ", ".join(repr(u) for u in unknown),
            )
        missing = sorted(self.required - set(value))
        if missing:
            raise SchemaViolation(
                f"{path}.{missing[0]}", self.fields[missing[0]].describe(), "nothing (missing)"
            )
        for name, item in value.items():
            self.fields[name].check(item, f"{path}.{name}")

    def describe(self) -> str:
        return "map {" + ", ".join(f"{n}: {f.describe()}" for n, f in self.fields.items()) + "}"


class Dict(Field):
    """A map with free keys (each fitting ``key``) and values fitting ``value``."""

    def __init__(self, key: Str, value: Field, *, max_len: int) -> None:
        self.key = key
        self.value = value
        self.max_len = max_len

    def check(self, value: object, path: str) -> None:
        if not isinstance(value, dict) or len(value) > self.max_len:
            raise _fail(path, self, value)
        for k, v in value.items():
            self.key.check(k, f"{path} key")
            self.value.check(v, f"{path}.{k}")

    def describe(self) -> str:
        return f"map of at most {self.max_len} ({self.key.describe()}) -> ({self.value.describe()})"


class Either(Field):
    """A value fitting any one of the alternatives."""

    def __init__(self, *alternatives: Field) -> None:
        if not alternatives:
            raise ValueError("Either: at least one alternative is required")
        self.alternatives = alternatives

    def check(self, value: object, path: str) -> None:
        for alt in self.alternatives:
            try:
                alt.check(value, path)
            except SchemaViolation:
                continue
            return
        raise _fail(path, self, value)

    def describe(self) -> str:
        return " or ".join(f"({a.describe()})" for a in self.alternatives)


class Custom(Field):
    """``inner``, then a validator for what a declarative type cannot say (a game action, a
    curve point). The validator raises ``ValueError`` with the reason; it sees only values that
    already fit ``inner`` and must not raise anything else for them."""

    def __init__(self, inner: Field, validator: Callable[[Any], object], description: str) -> None:
        self.inner = inner
        self.validator = validator
        self.description = description

    def check(self, value: object, path: str) -> None:
        self.inner.check(value, path)
        try:
            self.validator(value)
        except ValueError as exc:
            raise SchemaViolation(path, self.description, f"{describe(value)}: {exc}") from None

    def describe(self) -> str:
        return f"{self.inner.describe()}, {self.description}"


# --- the registry of kinds ----------------------------------------------------------------------


class KindRegistry:
    """Message kinds and their body schemas. Decoding refuses kinds not registered here."""

    def __init__(self) -> None:
        self._kinds: dict[str, Map] = {}
        self._descriptions: dict[str, str] = {}

    def register(self, name: str, schema: Map, *, description: str = "") -> None:
        """Declare a kind. Raises ``ValueError`` for a bad name or a name already taken."""
        if not isinstance(name, str) or not KIND_NAME.fullmatch(name):
            raise ValueError(
                f"kind name {name!r} must be 1..32 chars of a-z, 0-9 and '-', starting with a "
                "letter"
            )
        if not isinstance(schema, Map):
            raise ValueError(f"the body schema of kind {name!r} must be a Map")
        if name in self._kinds:
            raise ValueError(f"kind {name!r} is already registered")
        self._kinds[name] = schema
        self._descriptions[name] = description

    def schema(self, name: str) -> Map:
        """The body schema of a kind; raises :class:`UnknownKind`."""
        try:
            return self._kinds[name]
        except KeyError:
            shown = name if len(name) <= 40 else name[:37] + "..."
            raise UnknownKind(f"kind {shown!r} is not registered") from None

    def description(self, name: str) -> str:
        self.schema(name)
        return self._descriptions[name]

    def check_body(self, kind: str, body: object) -> None:
        """Raise :class:`UnknownKind` or :class:`SchemaViolation` (path ``body...``)."""
        self.schema(kind).check(body, "body")

    def copy(self) -> KindRegistry:
        """An independent registry holding the same kinds (to add kinds in tests)."""
        other = KindRegistry()
        other._kinds = dict(self._kinds)
        other._descriptions = dict(self._descriptions)
        return other

    def __contains__(self, name: object) -> bool:
        return name in self._kinds

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._kinds))

    def __len__(self) -> int:
        return len(self._kinds)


DEFAULT_REGISTRY = KindRegistry()


def register_kind(
    name: str,
    schema: Map,
    *,
    description: str = "",
    registry: KindRegistry = DEFAULT_REGISTRY,
) -> None:
    """Declare a message kind and its body schema in the (default) registry."""
    registry.register(name, schema, description=description)
