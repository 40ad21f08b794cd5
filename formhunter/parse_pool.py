"""Parsing in worker processes (``crawl.parse_workers``), off the crawl's thread.

``parse_page`` is the crawl's largest CPU cost and holds the GIL; with spare cores
the engine can hand it to worker processes: a fetch task awaits
``ParsePool.parse(...)`` and its page reaches the batch parsed, as a rendered page
does. Each hand-over costs the crawl process a pickled page to load, so pages go
in chunks (``chunk`` pages, or whatever arrived within ``flush_seconds`` of the
first): one inter-process round trip per chunk, not per page.

A page that fails to parse in a worker comes back as None and is parsed again in
the crawl (which records the failure exactly as without workers); a pool that
breaks (a worker killed) turns itself off and every later page is parsed in the
crawl. Workers ignore SIGINT: the crawl handles Ctrl-C and shuts them down.
The CPU the workers spent parsing is summed in ``cpu_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import signal
import time
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from formhunter.model import Page

log = logging.getLogger(__name__)

#: (url, body, final_url, status, content_type, depth): ``parse_page``'s inputs.
Job = tuple[str, bytes, str | None, int, str, int]


def _init_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def parse_chunk(jobs: list[Job]) -> tuple[list[Page | None], float]:
    """Parse each job (None for one that fails); and this process's CPU seconds spent."""
    from formhunter.parse import parse_page

    c0 = time.process_time()
    out: list[Page | None] = []
    for url, body, final, status, ctype, depth in jobs:
        try:
            out.append(parse_page(url, body, final_url=final, status=status,
                                  content_type=ctype, depth=depth))  # fmt: skip
        except Exception:
            out.append(None)
    return out, time.process_time() - c0


class ParsePool:
    """``workers`` parsing processes (module doc). Use ``start``/``close`` around a crawl."""

    def __init__(self, workers: int, *, chunk: int = 16, flush_seconds: float = 0.004) -> None:
        if workers < 1:
            raise ValueError("a parse pool needs at least one worker")
        self.workers = workers
        self.chunk = chunk
        self.flush_seconds = flush_seconds
        self.cpu_seconds = 0.0  # the workers' CPU, parsing
        self.chunks = 0
        self._pool: ProcessPoolExecutor | None = None
        self._pending: list[tuple[Job, asyncio.Future[Page | None]]] = []
        self._timer: asyncio.TimerHandle | None = None

    @property
    def running(self) -> bool:
        return self._pool is not None

    async def start(self) -> None:
        """Start the workers and wait until each has imported the parser."""
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["formhunter.parse"])
        self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx,
                                         initializer=_init_worker)  # fmt: skip
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(self._pool, parse_chunk, [])
                               for _ in range(self.workers)))  # fmt: skip

    async def parse(self, job: Job) -> Page | None:
        """The parsed page, or None: not parsed here (a failure, or no pool), parse it."""
        if self._pool is None:
            return None
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Page | None] = loop.create_future()
        self._pending.append((job, fut))
        if len(self._pending) >= self.chunk:
            self._flush()
        elif self._timer is None:
            self._timer = loop.call_later(self.flush_seconds, self._flush)
        return await fut

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending = self._pending, []
        if not pending:
            return
        futs = [f for _, f in pending]
        if self._pool is None:
            _settle(futs, None)
            return
        try:
            done = self._pool.submit(parse_chunk, [job for job, _ in pending])
        except Exception:  # broken or shut down
            self._broken()
            _settle(futs, None)
            return
        loop = asyncio.get_running_loop()

        def back(d: Future[tuple[list[Page | None], float]]) -> None:  # a pool thread
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits
                loop.call_soon_threadsafe(self._arrived, d, futs)

        done.add_done_callback(back)

    def _arrived(self, done: Future[tuple[list[Page | None], float]],
                 futs: list[asyncio.Future[Page | None]]) -> None:  # fmt: skip
        try:
            pages, cpu = done.result()
        except Exception:
            self._broken()
            _settle(futs, None)
            return
        self.cpu_seconds += cpu
        self.chunks += 1
        for fut, page in zip(futs, pages, strict=True):
            if not fut.done():
                fut.set_result(page)

    def _broken(self) -> None:
        if self._pool is not None:
            log.warning("the parse workers stopped; parsing in the crawl from now on")
            pool, self._pool = self._pool, None
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers (pages still waiting are answered None)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending = self._pending, []
        _settle([f for _, f in pending], None)
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.shutdown(wait=True, cancel_futures=True)


def _settle(futs: list[asyncio.Future[Any]], value: Any) -> None:
    for fut in futs:
        if not fut.done():
            fut.set_result(value)
