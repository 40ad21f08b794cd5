"""Process settings: collector tuning for the crawl loop (``Engine.run``), and the
clean stop on SIGINT, SIGTERM and SIGHUP (``interrupt_on_signals`` for the whole
process, ``stop_on_signals`` inside the crawl loop, ``stop_at_once_on_signals`` while
the crawl ends)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
from collections.abc import Callable, Iterator
from typing import Any

#: the collector's young-generation threshold during the crawl loop
GC_YOUNG = 20_000


@contextlib.contextmanager
def gc_tuned() -> Iterator[None]:
    """Keep what is loaded so far (models, tables) out of the collector's full passes
    (~0.1 ms/page), and collect the young generation less often: a batch keeps its
    pages alive until recorded (the default 700 objects cost ~0.04 ms/page)."""
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    threshold = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(max(threshold[0], GC_YOUNG), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


#: the signals that stop a crawl cleanly (exit 130, the run marked interrupted)
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, name))  # fmt: skip


def interrupt_on_signals() -> None:
    """From now on SIGTERM and SIGHUP raise KeyboardInterrupt, as SIGINT does: a stop
    during start-up or shutdown unwinds like Ctrl-C (the run is marked interrupted, exit
    130) instead of ending the process where it stands. Main thread only."""
    for sig in STOP_SIGNALS:
        with contextlib.suppress(ValueError, OSError):  # not the main thread
            signal.signal(sig, signal.default_int_handler)


@contextlib.contextmanager
def stop_on_signals(stop: Callable[[str], None]) -> Iterator[None]:
    """SIGINT/SIGTERM/SIGHUP call ``stop("interrupted")`` (in the running event loop's
    thread); nothing is installed off the main thread or where signals are unsupported.
    On leaving, each signal gets back the handler it had before."""
    loop = asyncio.get_running_loop()
    installed: list[tuple[signal.Signals, Any]] = []
    for sig in STOP_SIGNALS:
        try:
            before = signal.getsignal(sig)
            loop.add_signal_handler(sig, stop, "interrupted")
            installed.append((sig, before))
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # not the main thread, or no signals here
    try:
        yield
    finally:
        for sig, before in installed:
            loop.remove_signal_handler(sig)
            if before is not None:
                signal.signal(sig, before)


@contextlib.contextmanager
def stop_at_once_on_signals(stop: Callable[[str], None]) -> Iterator[None]:
    """SIGINT/SIGTERM/SIGHUP call ``stop("interrupted")`` from a plain signal handler,
    so that a synchronous step (the end of a crawl: learners saving, the last commit)
    sees it at once and is never cut short. Main thread only (else nothing is
    installed); on leaving, each signal gets back the handler it had before."""
    installed: list[tuple[signal.Signals, Any]] = []
    for sig in STOP_SIGNALS:
        with contextlib.suppress(ValueError, OSError):  # not the main thread
            installed.append((sig, signal.signal(sig, lambda *_: stop("interrupted"))))
    try:
        yield
    finally:
        for sig, before in installed:
            signal.signal(sig, before if before is not None else signal.SIG_DFL)
