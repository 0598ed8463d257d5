"""Non-membership (legality) proof: the hidden card at a position is not in a forbidden set F.

Statement for a position owned by seat s, with ciphertext (c1, c2) and D = sum of the other
players' (verified) decryption shares for that position, C = c2 - D:

    OR over a in A = {0..31} \\ F of   log_g(Y_s) == log_c1(C - M_a)

i.e. "C minus my own layer x_s*c1 is one of the allowed card points". It is proved with the
Cramer-Damgard-Schoenmakers OR composition of Chaum-Pedersen proofs: the prover simulates every
branch except the true one, the branch challenges must sum to the Fiat-Shamir challenge

    e = H("nonmember", ctx, position, g, Y_s, c1, c2, D, F, A, M_a for a in A,
          (t1_a, t2_a) for a in A)

and the proof is the list of (e_a, z_a) for a in A (ascending). Verification recomputes
t1_a = z_a*g - e_a*Y_s, t2_a = z_a*c1 - e_a*(C - M_a) and checks sum e_a == e.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from .elgamal import Ciphertext
from .errors import DecodeError, ProofError
from .generators import DECK_SIZE, card_points, g, g_table
from .group import N, Point, RandBelow, decode_scalar, encode_scalar, random_scalar
from .transcript import ProofContext, Transcript


def normalize_forbidden(forbidden: Sequence[int]) -> tuple[int, ...]:
    """Sorted, de-duplicated forbidden set; every entry a card index, not all 32 cards."""
    out = set()
    for c in forbidden:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < DECK_SIZE:
            raise DecodeError(f"forbidden set: {c!r} is not a card index")
        out.add(c)
    if len(out) >= DECK_SIZE:
        raise DecodeError("forbidden set: every card is forbidden")
    return tuple(sorted(out))


def allowed_set(forbidden: tuple[int, ...]) -> tuple[int, ...]:
    f = set(forbidden)
    return tuple(i for i in range(DECK_SIZE) if i not in f)


@dataclass(frozen=True, slots=True)
class NonMembershipProof:
    """(e_a, z_a) for each allowed card a, ascending."""

    branches: tuple[tuple[int, int], ...]

    def to_wire(self) -> list[list[bytes]]:
        return [[encode_scalar(e), encode_scalar(z)] for e, z in self.branches]

    @staticmethod
    def from_wire(
        data: object, n_allowed: int, what: str = "nonmember_proof"
    ) -> NonMembershipProof:
        if not isinstance(data, list | tuple) or len(data) != n_allowed:
            raise DecodeError(f"{what}: expected {n_allowed} branches")
        out = []
        for i, br in enumerate(data):
            if not isinstance(br, list | tuple) or len(br) != 2:
                raise DecodeError(f"{what}[{i}]: expected [e, z]")
            out.append(
                (decode_scalar(br[0], f"{what}[{i}].e"), decode_scalar(br[1], f"{what}[{i}].z"))
            )
        return NonMembershipProof(tuple(out))


def _challenge(
    ctx: ProofContext,
    position: int,
    y_s: Point,
    ct: Ciphertext,
    others: Point,
    forbidden: tuple[int, ...],
    allowed: tuple[int, ...],
    commits: Sequence[Point],
) -> int:
    tr = Transcript(b"nonmember", ctx)
    tr.append(b"position", bytes([position]))
    tr.point(b"g", g())
    tr.point(b"Y", y_s)
    tr.points(b"ct", (ct.c1, ct.c2))
    tr.point(b"others", others)
    tr.append(b"forbidden", bytes(forbidden))
    tr.append(b"allowed", bytes(allowed))
    cards = card_points()
    tr.points(b"cards", [cards[a] for a in allowed])
    tr.points(b"commit", commits)
    return tr.challenge()


def prove_nonmembership(
    ctx: ProofContext,
    x: int,
    y_s: Point,
    position: int,
    ct: Ciphertext,
    others: Point,
    forbidden: Sequence[int],
    rand: RandBelow = secrets.randbelow,
) -> NonMembershipProof:
    """Prove the card under ``ct`` (own key x, others' shares summing to ``others``) is not in F."""
    f = normalize_forbidden(forbidden)
    allowed = allowed_set(f)
    cards = card_points()
    gt = g_table()
    big_c = ct.c2 - others
    plain = big_c - ct.c1 * x
    true_idx = next((k for k, a in enumerate(allowed) if cards[a] == plain), None)
    if true_idx is None:
        raise ValueError(f"position {position}: the hidden card is forbidden (or not a card)")
    commits: list[Point] = []
    sims: list[tuple[int, int]] = []
    w = random_scalar(rand)
    for k, a in enumerate(allowed):
        if k == true_idx:
            commits += [gt.mul(w), ct.c1 * w]
            sims.append((0, 0))
        else:
            e_a, z_a = random_scalar(rand), random_scalar(rand)
            commits += [gt.mul(z_a) - y_s * e_a, ct.c1 * z_a - (big_c - cards[a]) * e_a]
            sims.append((e_a, z_a))
    e = _challenge(ctx, position, y_s, ct, others, f, allowed, commits)
    e_true = (e - sum(s[0] for s in sims)) % N
    sims[true_idx] = (e_true, (w + e_true * x) % N)
    return NonMembershipProof(tuple(sims))


def verify_nonmembership(
    ctx: ProofContext,
    y_s: Point,
    position: int,
    ct: Ciphertext,
    others: Point,
    forbidden: Sequence[int],
    proof: NonMembershipProof,
) -> None:
    f = normalize_forbidden(forbidden)
    allowed = allowed_set(f)
    if len(proof.branches) != len(allowed):
        raise ProofError(
            f"non-membership proof for position {position}: expected {len(allowed)} branches, "
            f"got {len(proof.branches)}"
        )
    if y_s.is_identity or ct.c1.is_identity or ct.c2.is_identity:
        raise ProofError("non-membership: identity point in statement")
    cards = card_points()
    gt = g_table()
    big_c = ct.c2 - others
    commits: list[Point] = []
    total = 0
    for a, (e_a, z_a) in zip(allowed, proof.branches, strict=True):
        if not (0 <= e_a < N and 0 <= z_a < N):
            raise ProofError("non-membership: scalar out of range")
        commits += [gt.mul(z_a) - y_s * e_a, ct.c1 * z_a - (big_c - cards[a]) * e_a]
        total += e_a
    if _challenge(ctx, position, y_s, ct, others, f, allowed, commits) != total % N:
        raise ProofError(f"non-membership proof for position {position} does not verify")
