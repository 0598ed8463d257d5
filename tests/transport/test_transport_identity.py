from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import stat
from pathlib import Path

import platformdirs
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, generate_private_key

from dealerless.client.cli import main
from dealerless.node.identity import (
    ENV_HOME,
    KEY_FILE_NAME,
    Identity,
    IdentityError,
    PeerId,
    format_fingerprint,
    load_identity,
    load_or_create_identity,
    normalize_fingerprint,
    resolve_home,
)

FINGERPRINT_RE = re.compile(r"^([A-Z2-7]{4}-){5}[A-Z2-7]{4}$")


def test_first_run_creates_key_file_0600_in_dir_0700(tmp_path: Path) -> None:
    home = tmp_path / "data" / "dealerless"
    identity, created = load_or_create_identity(home)
    assert created
    path = home / KEY_FILE_NAME
    assert identity.path == path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert sorted(os.listdir(home)) == [KEY_FILE_NAME]  # no temporary file left behind
    again, created_again = load_or_create_identity(home)
    assert not created_again
    assert again.fingerprint == identity.fingerprint
    assert again.public_key == identity.public_key


def test_home_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(ENV_HOME, raising=False)
    assert resolve_home() == Path(platformdirs.user_data_dir("dealerless"))
    monkeypatch.setenv(ENV_HOME, str(tmp_path / "env"))
    assert resolve_home() == tmp_path / "env"
    assert resolve_home(tmp_path / "arg") == tmp_path / "arg"
    identity, created = load_or_create_identity()
    assert created and identity.path == tmp_path / "env" / KEY_FILE_NAME


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(0o600)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "corrupted"),
        (b"\x00garbage\xff" * 10, "corrupted"),
        (b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "corrupted"),
    ],
)
def test_corrupted_key_file_is_a_clear_error_and_left_untouched(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / KEY_FILE_NAME
    _write(path, content)
    with pytest.raises(IdentityError, match=message) as info:
        load_or_create_identity(tmp_path)
    assert str(path) in str(info.value)
    assert path.read_bytes() == content
    assert sorted(os.listdir(tmp_path)) == [KEY_FILE_NAME]


def test_key_file_with_another_key_type_is_refused(tmp_path: Path) -> None:
    pem = generate_private_key(SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    _write(tmp_path / KEY_FILE_NAME, pem)
    with pytest.raises(IdentityError, match="not an Ed25519 key"):
        load_or_create_identity(tmp_path)


def test_key_file_readable_by_others_is_refused(tmp_path: Path) -> None:
    identity, _ = load_or_create_identity(tmp_path)
    assert identity.path is not None
    identity.path.chmod(0o644)
    with pytest.raises(IdentityError, match="chmod 600"):
        load_identity(identity.path)


def test_missing_key_file(tmp_path: Path) -> None:
    with pytest.raises(IdentityError, match="does not exist"):
        load_identity(tmp_path / KEY_FILE_NAME)


def test_fingerprint_definition() -> None:
    identity = Identity.generate()
    digest = hashlib.sha256(identity.public_key).digest()[:15]
    compact = base64.b32encode(digest).decode()
    assert identity.fingerprint.replace("-", "") == compact
    assert FINGERPRINT_RE.match(identity.fingerprint)
    # fixed vector (checked with sha256sum | basenc --base32): 32 zero bytes
    assert format_fingerprint(bytes(32)) == "MZUH-VLPY-MK6X-O3EP-YGFY-5H4O"


def test_normalize_fingerprint_and_matching() -> None:
    identity = Identity.generate()
    fp = identity.fingerprint
    sloppy = " " + fp.replace("-", "").upper() + "\n"
    assert normalize_fingerprint(sloppy) == fp
    assert identity.peer_id.matches(sloppy)
    assert identity.peer_id.matches(identity.public_key)
    assert identity.peer_id.matches(PeerId(identity.public_key))
    assert not identity.peer_id.matches(Identity.generate().fingerprint)
    for bad in ["", "abcd", fp + "A", fp[:-1] + "1", fp[:-1] + "8"]:
        with pytest.raises(ValueError):
            normalize_fingerprint(bad)


def test_peer_id_rejects_small_order_key() -> None:
    with pytest.raises(ValueError, match="small-order"):
        PeerId(bytes([1]) + bytes(31))  # the identity point


def test_id_command_prints_fingerprint_and_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["id", "--home", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    identity = load_identity(tmp_path / KEY_FILE_NAME)
    assert f"fingerprint: {identity.fingerprint}" in out
    assert str(tmp_path / KEY_FILE_NAME) in out
    assert "created" in err
    assert main(["id", "--home", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {
        "fingerprint": identity.fingerprint,
        "public_key": identity.public_key.hex(),
        "key_file": str(tmp_path / KEY_FILE_NAME),
        "created": False,
    }


def test_id_command_reports_corrupted_key_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path / KEY_FILE_NAME, b"not a key")
    assert main(["id", "--home", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "corrupted" in err and str(tmp_path / KEY_FILE_NAME) in err
    assert (tmp_path / KEY_FILE_NAME).read_bytes() == b"not a key"


def test_bridges_to_the_message_layer_types() -> None:
    identity = Identity.generate()
    assert identity.wire_key().peer_id.raw == identity.public_key
    assert identity.peer_id.wire_peer_id.raw == identity.public_key
