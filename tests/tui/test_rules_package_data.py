"""The rule books are package data: a non-editable install (what `pip install .` gives a user,
who has no source tree) still has them. The full install takes a minute: DEALERLESS_LONG=1."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from dealerless.client.tui.rules_book import BOOK_OF_GAME

ROOT = Path(__file__).resolve().parents[2]


def test_setup_ships_every_rule_book() -> None:
    books = {p.name for p in (ROOT / "client" / "tui" / "rules").glob("*.md")}
    langs = ("en", "de", "nl", "fr")
    assert books == {f"{b}.{lang}.md" for b in BOOK_OF_GAME.values() for lang in langs}
    assert '"rules/*.md"' in (ROOT / "setup.py").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("DEALERLESS_LONG"), reason="DEALERLESS_LONG=1: a pip install"
)
def test_a_non_editable_install_has_the_rule_books(tmp_path: Path) -> None:
    venv.create(tmp_path / "venv", with_pip=True)
    python = tmp_path / "venv" / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q", str(ROOT)], check=True, cwd=tmp_path)
    code = (
        "from dealerless.client.tui.rules_book import rules_lines;"
        "import dealerless.client.tui as t; assert 'site-packages' in t.__file__;"
        "print(rules_lines('belote', 'nl')[0])"
    )
    done = subprocess.run(
        [python, "-c", code], check=True, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.stdout.strip() == "BELOTE (4 SPELERS, TWEE TEAMS)"
    assert sys.executable != str(python)
