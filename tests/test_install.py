"""The package as a user installs it (what ``pipx install .`` does): a wheel built from this
tree, installed into a fresh virtual environment of its own (no editable install, no source
tree on the path), then ``dealerless --version``, ``python -m dealerless --help``, the rule
books shipped as package data, and a whole ``dealerless play --plain --bot`` game.

Needs the package registry for the dependencies (CI has it); slow (about a minute)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def _run(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def test_a_wheel_in_a_fresh_environment_starts_and_plays(tmp_path: Path) -> None:
    # a copy of the tree: building writes build/ and *.egg-info next to the sources
    source = tmp_path / "source"
    junk = shutil.ignore_patterns(".*", "build", "dist", "*.egg-info", "__pycache__")
    shutil.copytree(ROOT, source, ignore=junk)
    wheels = tmp_path / "wheels"
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)],
        tmp_path,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("dealerless-*.whl")
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    installed = _run([str(python), "-m", "pip", "install", "-q", str(wheel)], tmp_path)
    assert installed.returncode == 0, installed.stderr
    # run from an empty directory: nothing of the source tree can be imported by accident
    work = tmp_path / "elsewhere"
    work.mkdir()
    command = bindir / "dealerless"
    version = _run([str(command), "--version"], work)
    assert version.returncode == 0 and version.stdout.startswith("dealerless "), version
    helped = _run([str(python), "-m", "dealerless", "--help"], work)
    assert helped.returncode == 0 and "usage: dealerless" in helped.stdout, helped
    rules = _run([str(command), "rules", "tuppen"], work)
    assert rules.returncode == 0 and "J" in rules.stdout and "10" in rules.stdout, rules
    home = tmp_path / "home"
    play = ["play", "--plain", "--bot", "--game", "tuppen", "--bots", "1", "--home", str(home)]
    played = _run([str(command), *play], work)
    assert played.returncode == 0, played.stdout + played.stderr
    assert "verified by replaying the whole game" in played.stdout + played.stderr
    listed = _run([str(command), "games", "--home", str(home)], work)
    assert listed.returncode == 0 and "tuppen" in listed.stdout, listed
