"""The message layer of the table protocol (sans-IO): identity keys, canonical strict msgpack,
the signed envelope, body schemas and the kind registry. :mod:`dealerless.protocol.messages`
re-exports the public API."""

from dealerless.protocol.wire import kinds as _kinds  # noqa: F401  (registers generic kinds)
