"""The table machine is built of mixins that declare what they call on the others as stubs
(``raise NotImplementedError``): no method of the machine may resolve to such a stub, which
happens when a mixin with the stub comes before the one with the body in the bases."""

from __future__ import annotations

import inspect

from dealerless.protocol.table.machine import TableMachine


def _is_stub(function: object) -> bool:
    lines = [line.strip() for line in inspect.getsource(function).splitlines()]  # type: ignore[arg-type]
    body = [line for line in lines if line and not line.startswith(("def ", "@", '"""', "#"))]
    return body == ["raise NotImplementedError"] or lines[-1] == "raise NotImplementedError"


def test_no_machine_method_resolves_to_a_mixin_stub() -> None:
    stubs = [
        f"{name} (from {function.__qualname__})"
        for name, function in inspect.getmembers(TableMachine, inspect.isfunction)
        if _is_stub(function)
    ]
    assert not stubs, stubs


def test_the_stub_check_sees_a_stub() -> None:
    class Mixin:
        def step(self) -> None:
            raise NotImplementedError

    class Real:
        def step(self) -> None:
            print("a body")

    class Wrong(Mixin, Real):
        pass

    assert _is_stub(Wrong.step) and not _is_stub(Real.step)
