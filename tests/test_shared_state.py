"""The state that the classes of one object share (issue 23): scripts/shared_state.py counts the
attributes that two classes of one object assign. The table machine and the seat node are being
rebuilt from mixins into parts that own their state; these bounds are today's counts and may only
go down (lower them with each part taken out; the goal is 0)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
BOUNDS = {"TableMachine": 0, "SeatNode": 0, "HostileSeatNode": 0}


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("shared_state", ROOT / "scripts/shared_state.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["shared_state"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_shared_state_does_not_grow() -> None:
    script = _script()
    found = {
        f.leaf: f for f in script.families(script.source_files([ROOT / "protocol", ROOT / "node"]))
    }
    # A class with no project bases has no family: it shares nothing (SeatNode is made of parts
    # now; its subclass's family holds it).
    assert "SeatNode" in found["HostileSeatNode"].classes
    counts = {name: len(found[name].shared_assigned) if name in found else 0 for name in BOUNDS}
    assert all(counts[name] <= bound for name, bound in BOUNDS.items()), counts
    assert counts == BOUNDS, f"lower BOUNDS to {counts}: the shared state went down"


def test_no_object_of_the_project_shares_state() -> None:
    """Every family (a class and its project bases: the rules engines, the hostile seat node)
    has each attribute assigned by one class only; the table machine has no bases at all."""
    script = _script()
    families = script.families(
        script.source_files([ROOT / "protocol", ROOT / "node", ROOT / "client"])
    )
    assert {f.leaf for f in families} >= {"TuppenEngine", "LimitEngine", "BeloteEngine"}
    assert "TableMachine" not in {f.leaf for f in families}
    shared = {f.leaf: f.shared_assigned for f in families if f.shared_assigned}
    assert shared == {}


def test_the_count_sees_two_classes_assigning_one_attribute(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "class A:\n    def f(self):\n        self.x = 1\n        self.y: int = 2\n"
        "class B(A):\n    def g(self):\n        self.x += 1\n        (self.z, self.y) = 3, 4\n"
        "        print(self.w)\n"
    )
    script = _script()
    (family,) = [f for f in script.families(script.source_files([tmp_path])) if f.leaf == "B"]
    assert family.shared_assigned == {"x": ("B", "A"), "y": ("B", "A")}
