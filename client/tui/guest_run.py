"""Trio in guest mode inside prompt_toolkit's asyncio loop: a networked node runs for as long as
the table screen shows (see :meth:`dealerless.client.tui.app.TableApp.run`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import trio
from prompt_toolkit.application import Application

TrioMain = Callable[[], Awaitable[None]]


async def run_with_trio(app: Application[int], trio_main: TrioMain) -> int | None:
    """Run ``app`` with ``trio_main`` in Trio guest mode on its asyncio loop; quitting the
    screen cancels Trio, a crash of the Trio side leaves the screen and is raised."""
    loop = asyncio.get_running_loop()
    finished = asyncio.Event()
    outcomes: list[Any] = []  # outcome.Outcome (trio's result type)
    cancel = trio.CancelScope()
    tokens: list[trio.lowlevel.TrioToken] = []

    async def guest() -> None:
        tokens.append(trio.lowlevel.current_trio_token())
        with cancel:
            await trio_main()

    def done(outcome: Any) -> None:
        outcomes.append(outcome)
        finished.set()
        if getattr(outcome, "error", None) is not None and app.is_running:
            app.exit(result=1)  # the node crashed: leave the screen, then raise

    trio.lowlevel.start_guest_run(
        guest,
        run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        done_callback=done,
        host_uses_signal_set_wakeup_fd=True,
    )
    try:
        result = await app.run_async()
    finally:
        if not finished.is_set():
            if tokens:
                with contextlib.suppress(trio.RunFinishedError):
                    tokens[0].run_sync_soon(cancel.cancel)
            else:  # trio has not started the guest yet: cancel it as soon as it does
                cancel.cancel()
            await finished.wait()
    if outcomes:
        outcomes[0].unwrap()  # a crash of the Trio side is not swallowed
    return result
