"""The table machine is composed of parts that own their state (issue 23), not cut into mixins
that declare what they call on each other as stubs (``raise NotImplementedError``) and work only
in the order of their bases: it has no base class, and no class of the project has such a stub."""

from __future__ import annotations

import ast
from pathlib import Path

from dealerless.protocol.table.machine import TableMachine

ROOT = Path(__file__).resolve().parents[2]


def _stubs(source: str) -> list[str]:
    """Functions whose body (after a docstring) is only ``raise NotImplementedError``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        if len(body) == 1 and isinstance(body[0], ast.Raise):
            raised = body[0].exc
            name = raised.func if isinstance(raised, ast.Call) else raised
            if isinstance(name, ast.Name) and name.id == "NotImplementedError":
                found.append(node.name)
    return found


def test_the_table_machine_has_no_base_class() -> None:
    assert TableMachine.__bases__ == (object,)


def test_no_class_of_the_project_declares_a_stub() -> None:
    stubs = {
        str(path.relative_to(ROOT)): names
        for package in ("protocol", "node", "client")
        for path in sorted((ROOT / package).rglob("*.py"))
        if (names := _stubs(path.read_text(encoding="utf-8")))
    }
    assert stubs == {}


def test_the_stub_check_sees_a_stub() -> None:
    source = (
        "class Mixin:\n"
        "    def step(self) -> None:\n"
        '        """Provided by another class."""\n'
        "        raise NotImplementedError\n"
        "    def other(self) -> None:\n"
        "        raise NotImplementedError()\n"
        "class Real:\n"
        "    def step(self) -> None:\n"
        "        print('a body')\n"
    )
    assert _stubs(source) == ["step", "other"]
