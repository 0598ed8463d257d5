"""Count the mutable state that classes of one object share (issue 23).

An object built from several classes (a class and its bases in this project) shares state when
two of those classes assign the same ``self.`` attribute: each is right only if the other keeps
its promises about it. For every class with project bases this prints the attributes assigned in
more than one class of its family, and how many attributes the family's classes read or write
(``self.x`` anywhere). Usage: ``python scripts/shared_state.py [--json] [PATH ...]``.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "node", "client")


@dataclass
class ClassFacts:
    name: str
    bases: list[str]
    assigned: set[str] = field(default_factory=set)
    touched: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Family:
    leaf: str
    classes: tuple[str, ...]
    shared_assigned: dict[str, tuple[str, ...]]  # attribute -> the classes assigning it
    shared_touched: int  # attributes used by two or more of the classes


def _targets(node: ast.AST) -> Iterator[ast.expr]:
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _unpack(target)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        yield from _unpack(node.target)


def _unpack(target: ast.expr) -> Iterator[ast.expr]:
    if isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _unpack(element)
    else:
        yield target


def _self_attribute(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id == "self" else None
    return None


def class_facts(path: Path) -> list[ClassFacts]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[ClassFacts] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [b.id if isinstance(b, ast.Name) else ast.unparse(b) for b in node.bases]
        facts = ClassFacts(node.name, bases)
        for inner in ast.walk(node):
            for target in _targets(inner):
                name = _self_attribute(target)
                if name is not None:
                    facts.assigned.add(name)
            if isinstance(inner, ast.Attribute):
                name = _self_attribute(inner)
                if name is not None:
                    facts.touched.add(name)
        out.append(facts)
    return out


def families(paths: list[Path]) -> list[Family]:
    by_name: dict[str, ClassFacts] = {}
    for path in paths:
        for facts in class_facts(path):
            by_name.setdefault(facts.name, facts)

    def lineage(name: str, seen: tuple[str, ...] = ()) -> tuple[str, ...]:
        if name in seen or name not in by_name:
            return ()
        out = [name]
        for base in by_name[name].bases:
            out.extend(b for b in lineage(base, (*seen, name)) if b not in out)
        return tuple(out)

    found: list[Family] = []
    for name in sorted(by_name):
        classes = lineage(name)
        if len(classes) < 2:
            continue
        assigners: dict[str, list[str]] = {}
        users: dict[str, int] = {}
        for cls in classes:
            for attribute in by_name[cls].assigned:
                assigners.setdefault(attribute, []).append(cls)
            for attribute in by_name[cls].touched:
                users[attribute] = users.get(attribute, 0) + 1
        shared = {a: tuple(c) for a, c in sorted(assigners.items()) if len(c) > 1}
        found.append(Family(name, classes, shared, sum(1 for n in users.values() if n > 1)))
    return found


def source_files(roots: list[Path]) -> list[Path]:
    return sorted(p for root in roots for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--json", action="store_true", help="one JSON object per family")
    args = parser.parse_args(argv)
    roots = [p.resolve() for p in args.paths] or [ROOT / p for p in PACKAGES]
    everything = families(source_files(roots))
    # the families that share assigned state, each counted once (not again inside a larger one)
    found = [
        f
        for f in everything
        if f.shared_assigned
        and not any(set(f.classes) < set(g.classes) for g in everything if g.shared_assigned)
    ]
    total = sum(len(f.shared_assigned) for f in found)
    if args.json:
        print(json.dumps([f.__dict__ for f in found], indent=1))
    else:
        for f in found:
            print(
                f"{f.leaf}: {len(f.classes)} classes, {f.shared_touched} attributes used by two "
                f"or more, {len(f.shared_assigned)} assigned in two or more"
            )
            for attribute, classes in f.shared_assigned.items():
                print(f"  {attribute}: {', '.join(classes)}")
        print(f"attributes assigned in more than one class of an object: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
