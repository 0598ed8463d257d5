"""The layers as the README draws them, checked on the source: ``protocol/`` imports neither
``node/`` nor ``client/``, ``node/`` does not import ``client/``, and no two modules import each
other in a circle.

Every import counts, wherever it stands: at module level, inside a function (a lazy import is
still a dependency, and a circle through it breaks as soon as someone moves it up), and under
``if TYPE_CHECKING:`` (a type a layer names is a type it depends on: a lower layer that needs a
client type must get a protocol of its own). Relative imports are resolved like absolute ones.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("protocol", "node", "client")  # each may import only those before it
MAY_NOT_IMPORT = {"protocol": ("node", "client"), "node": ("client",), "client": ()}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["dealerless", *parts])


def all_modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            found[module_name(path)] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The dealerless modules ``name`` imports (a ``from pkg import mod`` names ``pkg.mod``
    when that is a module, else ``pkg``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                drop = node.level - (1 if is_package else 0)
                base = base[: len(base) - drop] if drop else base
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            targets = [
                f"{prefix}.{alias.name}" if f"{prefix}.{alias.name}" in known else prefix
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:  # a.b.c where only a.b is a module
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def import_graph() -> dict[str, set[str]]:
    modules = all_modules()
    known = set(modules)
    return {name: imports_of(name, path, known) for name, path in modules.items()}


def layer_of(module: str) -> str:
    return module.split(".")[1]


def test_no_layer_imports_a_layer_above_it() -> None:
    graph = import_graph()
    wrong = sorted(
        f"{src} imports {dst}"
        for src, targets in graph.items()
        for dst in targets
        if layer_of(dst) in MAY_NOT_IMPORT[layer_of(src)]
    )
    assert wrong == []


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm (iterative): the groups of modules that reach each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[set[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)
    return groups


def test_no_import_cycles() -> None:
    cycles = sorted(sorted(group) for group in strongly_connected(import_graph()))
    assert cycles == [], "import circles (a module must not reach itself through its imports)"


def test_the_walker_sees_function_level_and_type_checking_imports(tmp_path: Path) -> None:
    source = tmp_path / "mod.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from dealerless.client.cli import main\n"
        "def f():\n    import dealerless.node.app\n"
        "from . import sibling\n"
    )
    known = {"dealerless.client.cli", "dealerless.node.app", "dealerless.node.sibling"}
    found = imports_of("dealerless.node.mod", source, known)
    assert found == known


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(graph) == [{"a", "b", "c"}]


@pytest.mark.parametrize("layer", LAYERS)
def test_every_layer_has_modules(layer: str) -> None:
    assert any(layer_of(m) == layer for m in all_modules())
