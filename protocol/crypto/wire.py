"""Strict decoding helpers for msgpack-friendly payloads (dicts of bytes / ints / lists)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import DecodeError
from .group import Point, decode_point, decode_scalar


def expect_fields(data: object, what: str, fields: tuple[str, ...]) -> Mapping[str, Any]:
    """``data`` must be a dict with exactly the keys ``fields``."""
    if not isinstance(data, Mapping):
        raise DecodeError(f"{what}: expected a map, got {type(data).__name__}")
    keys = set(data.keys())
    if keys != set(fields):
        missing = sorted(set(fields) - keys)
        extra = sorted(str(k) for k in keys - set(fields))
        raise DecodeError(f"{what}: bad fields (missing {missing}, unexpected {extra})")
    return data


def get_int(data: Mapping[str, Any], key: str, what: str, lo: int, hi: int) -> int:
    v = data[key]
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise DecodeError(f"{what}.{key}: expected an int in {lo}..{hi}, got {v!r}")
    return v


def get_bytes(data: Mapping[str, Any], key: str, what: str, length: int) -> bytes:
    v = data[key]
    if not isinstance(v, bytes | bytearray) or len(v) != length:
        raise DecodeError(f"{what}.{key}: expected {length} bytes")
    return bytes(v)


def get_list(data: Mapping[str, Any], key: str, what: str, length: int | None = None) -> list[Any]:
    v = data[key]
    if not isinstance(v, list | tuple):
        raise DecodeError(f"{what}.{key}: expected a list")
    if length is not None and len(v) != length:
        raise DecodeError(f"{what}.{key}: expected {length} items, got {len(v)}")
    return list(v)


def get_point(data: Mapping[str, Any], key: str, what: str) -> Point:
    return decode_point(data[key], f"{what}.{key}")


def get_scalar(data: Mapping[str, Any], key: str, what: str) -> int:
    return decode_scalar(data[key], f"{what}.{key}")


def points_list(items: list[Any], what: str) -> list[Point]:
    return [decode_point(b, f"{what}[{i}]") for i, b in enumerate(items)]


def scalars_list(items: list[Any], what: str) -> list[int]:
    return [decode_scalar(b, f"{what}[{i}]") for i, b in enumerate(items)]
