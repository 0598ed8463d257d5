"""Canonical, strict msgpack: one value has exactly one byte form, and decoding refuses anything
outside a small, bounded data model.

The data model (what :func:`pack` accepts and :func:`unpack` returns):

* ``None``, ``bool``, ``int`` in ``[limits.min_int, limits.max_int]`` (default signed 64-bit),
* ``str`` (valid UTF-8), ``bytes``,
* ``list`` (``tuple`` is accepted by :func:`pack` and encoded as an array),
* ``dict`` whose keys are all ``str``.

No floats, no extension types (timestamps included), no byte-string or integer map keys.

Canonical encoding (what :func:`pack` produces and :func:`unpack` insists on):

* every integer, string, binary, array and map header is the shortest msgpack form that can hold
  it (positive fixint/uint8/16/32/64, negative fixint/int8/16/32/64; fixstr/str8/16/32;
  bin8/16/32; fixarray/array16/32; fixmap/map16/32);
* ``str`` values use the msgpack *str* family, ``bytes`` values the *bin* family;
* map entries are sorted by key, comparing the keys' UTF-8 bytes (the same order as comparing the
  Python strings code point by code point); a key may appear only once.

:func:`unpack` enforces this by decoding and re-encoding: if the bytes differ from the re-encoded
value, the input is refused with :class:`NonCanonical`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack

from dealerless.protocol.wire.errors import (
    DuplicateKey,
    MalformedMessage,
    NonCanonical,
    TooLarge,
)

__all__ = ["DEFAULT_LIMITS", "Limits", "describe", "pack", "unpack"]


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds applied while decoding (and encoding). All lengths are per item.

    ``max_depth`` counts nested containers: a flat array has depth 1, an array holding a map
    has depth 2. The envelope itself uses two levels (envelope array, body map).
    """

    max_message_bytes: int = 64 * 1024
    max_depth: int = 16
    max_str_bytes: int = 4 * 1024
    max_bin_bytes: int = 64 * 1024
    max_array_len: int = 4096
    max_map_len: int = 256
    min_int: int = -(2**63)
    max_int: int = 2**63 - 1


DEFAULT_LIMITS = Limits()


class _Pairs(list[tuple[Any, Any]]):
    """What the unpacker builds for a map: the key/value pairs in wire order, so duplicate and
    out-of-order keys can be reported with their path."""


class _Ext:
    __slots__ = ("code",)

    def __init__(self, code: int) -> None:
        self.code = code


def _ext_hook(code: int, data: bytes) -> _Ext:
    return _Ext(code)


def describe(value: object) -> str:
    """A short description of a value's type (and size) for error texts."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return f"bool {value!r}"
    if isinstance(value, int):
        text = str(value) if abs(value) < 10**30 else f"a {value.bit_length()}-bit integer"
        return f"int {text}"
    if isinstance(value, float):
        return f"float {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"str {shown!r} ({len(value)} chars)"
    if isinstance(value, bytes | bytearray | memoryview):
        return f"bytes of length {len(value)}"
    if isinstance(value, list | tuple):
        return f"array of length {len(value)}"
    if isinstance(value, dict):
        return f"map of {len(value)} entries"
    if isinstance(value, _Ext):
        return f"extension type {value.code}"
    return type(value).__name__


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


# --- encoding -----------------------------------------------------------------------------------


def pack(value: object, limits: Limits = DEFAULT_LIMITS, *, path: str = "value") -> bytes:
    """The canonical msgpack encoding of ``value``; raises :class:`MalformedMessage` (naming the
    path) for anything outside the data model or the limits."""
    return msgpack.packb(_normalise(value, limits, path, 0), use_bin_type=True)  # type: ignore[no-any-return]


def _normalise(value: object, limits: Limits, path: str, depth: int) -> object:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not limits.min_int <= value <= limits.max_int:
            raise MalformedMessage(
                f"{path}: integer out of range {limits.min_int}..{limits.max_int}, "
                f"got {describe(value)}"
            )
        return int(value)
    if isinstance(value, str):
        try:
            n = len(value.encode("utf-8"))
        except UnicodeEncodeError:
            raise MalformedMessage(f"{path}: string is not encodable as UTF-8") from None
        if n > limits.max_str_bytes:
            raise MalformedMessage(
                f"{path}: string of {n} bytes exceeds the limit of {limits.max_str_bytes}"
            )
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value)
        if len(raw) > limits.max_bin_bytes:
            raise MalformedMessage(
                f"{path}: bytes of length {len(raw)} exceed the limit of {limits.max_bin_bytes}"
            )
        return raw
    if isinstance(value, list | tuple | dict):
        if depth + 1 > limits.max_depth:
            raise MalformedMessage(f"{path}: nesting deeper than {limits.max_depth} levels")
        if isinstance(value, dict):
            if len(value) > limits.max_map_len:
                raise MalformedMessage(
                    f"{path}: map of {len(value)} entries exceeds the limit of {limits.max_map_len}"
                )
            for key in value:
                if not isinstance(key, str):
                    raise MalformedMessage(f"{path}: map keys must be strings, got {describe(key)}")
            return {
                k: _normalise(value[k], limits, _child(path, k), depth + 1) for k in sorted(value)
            }
        if len(value) > limits.max_array_len:
            raise MalformedMessage(
                f"{path}: array of length {len(value)} exceeds the limit of {limits.max_array_len}"
            )
        return [_normalise(v, limits, _child(path, i), depth + 1) for i, v in enumerate(value)]
    raise MalformedMessage(f"{path}: type {describe(value)} is not allowed")


# --- decoding -----------------------------------------------------------------------------------


def unpack(
    data: bytes,
    limits: Limits = DEFAULT_LIMITS,
    *,
    path: str = "value",
    max_bytes: int | None = None,
) -> Any:
    """Strictly decode one canonical msgpack value that fills ``data`` exactly.

    Raises :class:`TooLarge` when ``data`` is longer than ``max_bytes`` (default
    ``limits.max_message_bytes``), :class:`DuplicateKey` / :class:`NonCanonical` /
    :class:`MalformedMessage` for everything else. Never raises anything that is not a
    :class:`MessageError` for any input bytes.
    """
    if not isinstance(data, bytes):
        raise MalformedMessage(f"{path}: expected bytes, got {type(data).__name__}")
    cap = limits.max_message_bytes if max_bytes is None else max_bytes
    if len(data) > cap:
        raise TooLarge(f"{path}: {len(data)} bytes exceeds the limit of {cap} bytes")
    if not data:
        raise MalformedMessage(f"{path}: empty input")
    try:
        raw = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=False,  # keys are checked (with their path) by _check
            object_pairs_hook=_Pairs,
            ext_hook=_ext_hook,
            max_str_len=limits.max_str_bytes,
            max_bin_len=limits.max_bin_bytes,
            max_array_len=limits.max_array_len,
            max_map_len=limits.max_map_len,
            max_ext_len=len(data),
        )
    except msgpack.ExtraData:
        raise MalformedMessage(f"{path}: trailing bytes after the msgpack value") from None
    except msgpack.StackError:
        raise MalformedMessage(f"{path}: nesting deeper than the decoder's stack") from None
    except msgpack.FormatError:
        raise MalformedMessage(f"{path}: invalid msgpack (reserved type byte 0xc1)") from None
    except UnicodeDecodeError as exc:
        raise MalformedMessage(f"{path}: a string is not valid UTF-8 ({exc.reason})") from None
    except Exception as exc:  # msgpack reports truncation and limit breaches as ValueError
        text = str(exc) or type(exc).__name__
        if "incomplete input" in text:
            text = "truncated msgpack data"
        raise MalformedMessage(f"{path}: {text}") from None
    value = _check(raw, limits, path, 0)
    again = msgpack.packb(value, use_bin_type=True)
    if again != data:
        at = next(
            (i for i, (a, b) in enumerate(zip(again, data, strict=False)) if a != b),
            min(len(again), len(data)),
        )
        raise NonCanonical(
            f"{path}: not the canonical encoding (first differing byte at offset {at}; "
            f"canonical form is {len(again)} bytes, received {len(data)})"
        )
    return value


def _check(value: object, limits: Limits, path: str, depth: int) -> object:
    if value is None or isinstance(value, bool | str | bytes):
        return value
    if isinstance(value, int):
        if not limits.min_int <= value <= limits.max_int:
            raise MalformedMessage(
                f"{path}: integer out of range {limits.min_int}..{limits.max_int}, "
                f"got {describe(value)}"
            )
        return value
    if isinstance(value, list):
        if depth + 1 > limits.max_depth:
            raise MalformedMessage(f"{path}: nesting deeper than {limits.max_depth} levels")
        if isinstance(value, _Pairs):
            out: dict[str, object] = {}
            previous: str | None = None
            for key, item in value:
                if not isinstance(key, str):
                    raise MalformedMessage(f"{path}: map keys must be strings, got {describe(key)}")
                if previous is not None:
                    if key == previous or key in out:
                        raise DuplicateKey(f"{path}: duplicate map key {key!r}")
                    if key < previous:
                        raise NonCanonical(
                            f"{path}: map keys out of order ({key!r} after {previous!r}); "
                            "keys must be sorted by their UTF-8 bytes"
                        )
                out[key] = _check(item, limits, _child(path, key), depth + 1)
                previous = key
            return out
        return [_check(v, limits, _child(path, i), depth + 1) for i, v in enumerate(value)]
    if isinstance(value, float):
        raise MalformedMessage(f"{path}: floats are not allowed, got {describe(value)}")
    if isinstance(value, _Ext | msgpack.ExtType | msgpack.Timestamp):
        code = value.code if isinstance(value, _Ext | msgpack.ExtType) else -1
        raise MalformedMessage(f"{path}: extension types are not allowed, got type {code}")
    raise MalformedMessage(f"{path}: type {describe(value)} is not allowed")
