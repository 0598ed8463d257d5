"""The generators are written down (protocol/crypto/generator_points.py) so that no process
derives them at start-up; each must be exactly what RFC 9380 hash-to-curve gives for its
message and DST, or the shuffle's soundness argument (no known discrete-log relation between
them) no longer covers the points the product uses."""

from __future__ import annotations

from dealerless.protocol.crypto import generator_points as points
from dealerless.protocol.crypto import generators as gen


def test_every_written_point_is_its_hash_to_curve_output() -> None:
    assert gen.g() == gen.derive_g()
    assert gen.h() == gen.derive_h()
    assert len(points.H_I) == gen.MAX_SHUFFLE
    assert gen.shuffle_bases(gen.MAX_SHUFFLE) == tuple(
        gen.derive_h_i(i) for i in range(gen.MAX_SHUFFLE)
    )
    assert len(points.CARDS) == gen.DECK_SIZE
    assert gen.card_points() == tuple(gen.derive_card(i) for i in range(gen.DECK_SIZE))


def test_the_derivations_are_the_specs_messages() -> None:
    # derive_* must hash the spec's messages (spec/crypto.md §2), not merely agree with the
    # written points: a wrong message in both would pass the test above.
    from dealerless.protocol.crypto.h2c import hash_to_curve

    assert gen.derive_h_i(5) == hash_to_curve(b"h_i:\x00\x05", gen.GEN_DST)
    assert gen.derive_card(31) == hash_to_curve(b"card:\x1f", gen.CARD_DST)
    assert gen.derive_g() != gen.derive_h()
