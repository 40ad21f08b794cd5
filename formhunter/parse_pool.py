"""Parsing in worker processes (``crawl.parse_workers``), off the crawl's thread.

``parse_page`` is the crawl's largest CPU cost and holds the GIL (lxml's parse
releases it, but the walk over the tree in Python is two thirds of the cost), so
threads cannot put it on a second core; by default the engine hands it to one worker
process per core (``worker_count``): a fetch task awaits
``ParsePool.parse(job)`` and its page reaches the batch parsed, as a rendered page
does. Each hand-over costs the crawl process a pickled page to load, so pages go
in chunks (``chunk`` pages, or whatever arrived within ``flush_seconds`` of the
first) to the worker with the fewest chunks waiting: one round trip per chunk, not
per page. What waits is bounded by the fetches in flight (a fetch task awaits its
page). The bodies go, not parsed results back and forth: a 100 KB page's parse costs
~3.4 ms, its hand-over ~0.04 ms in the crawl (the parsed page pickles to ~16 KB).

A worker is ``python -m formhunter.parse_pool`` on pipes, driven by the event loop
(no threads, and unlike ``multiprocessing`` it never re-imports the crawl's main
script): it reads length-prefixed pickled chunks of jobs from stdin and writes
back the pages and the CPU seconds it spent, in order. It ignores SIGINT (the
crawl handles Ctrl-C and closes the pool) and exits at end of input, which is also
what it sees when the crawl is killed (or on a broken pipe while answering).

A page that fails to parse in a worker comes back as None and is parsed again in
the crawl (which records the failure exactly as without workers); a worker that
dies turns the pool off and every later page is parsed in the crawl. The CPU the
workers spent parsing is summed in ``cpu_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import pickle
import signal
import struct
import sys
import time
from collections import deque
from typing import TYPE_CHECKING, Any, BinaryIO

from formhunter.config import ParseSettings
from formhunter.model import Page
from formhunter.stats import CrawlStats, Timer, clock

if TYPE_CHECKING:  # the worker processes import this module: keep their start light
    from formhunter.fetch import FetchResult
    from formhunter.frontier import Entry

log = logging.getLogger(__name__)

#: (url, body, final_url, status, content_type, depth): ``parse_page``'s inputs.
Job = tuple[str, bytes, str | None, int, str, int]
_HEADER = struct.Struct("!Q")
_READY = b"formhunter-parse-worker-ready\n"


def worker_count(setting: int | str) -> int:
    """Parse workers for ``crawl.parse_workers``: "auto" is one per core this process may
    use (``os.sched_getaffinity``), none on a single core."""
    if isinstance(setting, int):
        return setting
    cores = len(os.sched_getaffinity(0)) if sys.platform == "linux" else (os.cpu_count() or 1)
    return cores if cores > 1 else 0


def parse_chunk(jobs: list[Job], limits: ParseSettings | None = None
                ) -> tuple[list[Page | None], float]:  # fmt: skip
    """Parse each job within ``limits`` (None for one that fails); and this process's
    CPU seconds spent."""
    from formhunter.parse import parse_page

    c0 = time.process_time()
    out: list[Page | None] = []
    for url, body, final, status, ctype, depth in jobs:
        try:
            out.append(parse_page(url, body, final_url=final, status=status,
                                  content_type=ctype, depth=depth, limits=limits))  # fmt: skip
        except Exception:
            out.append(None)
    return out, time.process_time() - c0


def _read_frame(stream: BinaryIO) -> bytes | None:
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    (n,) = _HEADER.unpack(head)
    data = stream.read(n)
    return data if len(data) == n else None


def worker_main(stdin: BinaryIO, stdout: BinaryIO) -> int:
    """A worker's loop (module doc): chunks in, (pages, CPU seconds) out, until EOF."""
    import formhunter.parse  # noqa: F401  (imported before saying ready)

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stdout.write(_READY)
    stdout.flush()
    while (frame := _read_frame(stdin)) is not None:
        limits, jobs = pickle.loads(frame)
        out = pickle.dumps(parse_chunk(jobs, limits), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            stdout.write(_HEADER.pack(len(out)) + out)
            stdout.flush()
        except BrokenPipeError:  # the crawl is gone (killed): nothing to answer
            return 0
    return 0


class _Worker:
    """One worker process and the chunks it was sent, answered in order."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.waiting: deque[list[asyncio.Future[Page | None]]] = deque()
        self.reader: asyncio.Task[None] | None = None


class ParsePool:
    """``workers`` parsing processes (module doc) parsing within ``limits`` (the
    crawl's ``[parse]``). Use ``start``/``close`` around a crawl."""

    def __init__(self, workers: int, *, limits: ParseSettings | None = None, chunk: int = 16,
                 flush_seconds: float = 0.004, start_timeout: float = 60.0) -> None:  # fmt: skip
        if workers < 1:
            raise ValueError("a parse pool needs at least one worker")
        self.n_workers = workers
        self.limits = limits if limits is not None else ParseSettings()
        self.chunk = chunk
        self.flush_seconds = flush_seconds
        self.start_timeout = start_timeout
        self.cpu_seconds = 0.0  # the workers' CPU, parsing
        self.chunks = 0
        self._workers: list[_Worker] = []
        self._pending: list[tuple[Job, asyncio.Future[Page | None]]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._next = 0

    @property
    def running(self) -> bool:
        return bool(self._workers)

    @classmethod
    async def open(cls, workers: int, limits: ParseSettings | None = None) -> ParsePool | None:
        """A started pool, or None when no worker process starts here (logged): then
        the crawl parses in its own thread."""
        pool = cls(workers, limits=limits)
        try:
            await pool.start()
        except Exception:
            log.exception("parse workers did not start; parsing in the crawl")
            return None
        return pool

    async def start(self) -> None:
        """Start the workers and wait until each has imported the parser (or raise)."""
        try:
            for _ in range(self.n_workers):  # all start at once, then each says ready
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "formhunter.parse_pool",
                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                )  # fmt: skip
                _widen_pipe(proc)
                self._workers.append(_Worker(proc))
            for worker in self._workers:
                assert worker.proc.stdout is not None
                line = await asyncio.wait_for(worker.proc.stdout.readline(), self.start_timeout)
                if line != _READY:
                    raise RuntimeError(f"a parse worker did not start (said {line[:200]!r})")
                worker.reader = asyncio.ensure_future(self._read(worker))
        except BaseException:
            await self.aclose()
            raise

    async def parse(self, job: Job) -> Page | None:
        """The parsed page, or None: not parsed here (a failure, or no pool), parse it."""
        if not self._workers:
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
        if not self._workers:
            _settle(futs)
            return
        # the worker with the fewest chunks waiting (round robin among equals)
        start = self._next % len(self._workers)
        order = self._workers[start:] + self._workers[:start]
        worker = min(order, key=lambda w: len(w.waiting))
        self._next += 1
        data = pickle.dumps((self.limits, [job for job, _ in pending]),
                            protocol=pickle.HIGHEST_PROTOCOL)  # fmt: skip
        stdin = worker.proc.stdin
        if stdin is None or stdin.is_closing():
            self._broken("its input closed")
            _settle(futs)
            return
        worker.waiting.append(futs)
        stdin.write(_HEADER.pack(len(data)) + data)

    async def _read(self, worker: _Worker) -> None:
        """Answers of one worker, in order; a dead worker turns the pool off."""
        stdout = worker.proc.stdout
        assert stdout is not None
        try:
            while True:
                head = await stdout.readexactly(_HEADER.size)
                (n,) = _HEADER.unpack(head)
                pages, cpu = pickle.loads(await stdout.readexactly(n))
                futs = worker.waiting.popleft()
                self.cpu_seconds += cpu
                self.chunks += 1
                for fut, page in zip(futs, pages, strict=True):
                    if not fut.done():
                        fut.set_result(page)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # EOF (the worker died or was closed), bad data
            for futs in worker.waiting:
                _settle(futs)
            worker.waiting.clear()
            if self._workers:
                self._broken(f"{type(exc).__name__}")

    def _broken(self, why: str) -> None:
        log.warning("a parse worker stopped (%s); parsing in the crawl from now on", why)
        workers, self._workers = self._workers, []
        for w in workers:
            with contextlib.suppress(ProcessLookupError):
                w.proc.kill()
            for futs in w.waiting:
                _settle(futs)
            w.waiting.clear()

    async def aclose(self) -> None:
        """Stop the workers (pages still waiting are answered None) and reap them."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending = self._pending, []
        _settle([f for _, f in pending])
        workers, self._workers = self._workers, []
        for w in workers:
            if w.proc.stdin is not None and not w.proc.stdin.is_closing():
                w.proc.stdin.close()  # end of input: the worker exits
        for w in workers:
            try:
                await asyncio.wait_for(w.proc.wait(), 5.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    w.proc.kill()
                await w.proc.wait()
            if w.reader is not None:
                w.reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await w.reader
            for futs in w.waiting:
                _settle(futs)


def _widen_pipe(proc: asyncio.subprocess.Process) -> None:
    """A chunk of 100 KB pages is over a megabyte: with the default 64 KB pipe, asyncio
    writes it in many pieces, moving what is left each time; a 1 MB pipe takes it in a
    few (Linux; elsewhere, or where refused, the pipe stays as it is)."""
    if sys.platform != "linux" or proc.stdin is None:
        return
    pipe = proc.stdin.transport.get_extra_info("pipe")
    if pipe is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)


def _settle(futs: list[asyncio.Future[Any]]) -> None:
    for fut in futs:
        if not fut.done():
            fut.set_result(None)


if __name__ == "__main__":
    sys.exit(worker_main(sys.stdin.buffer, sys.stdout.buffer))


class TaskParser:
    """Where a fetched body is parsed inside its fetch task, off the event loop's batch:
    by the parse ``pool`` when there is one; in a thread when the body has
    ``limits.off_loop_bytes`` or more (the loop keeps fetching meanwhile); else not at
    all (None: the batch parses it), unless ``always`` (a renderer needs the static
    page now). None also when parsing fails: the batch parses again and records it."""

    def __init__(self, limits: ParseSettings, stats: CrawlStats,
                 pool: ParsePool | None = None) -> None:  # fmt: skip
        self.limits = limits
        self.stats = stats
        self.pool = pool

    async def parse(self, entry: Entry, result: FetchResult, *, always: bool = False
                    ) -> Page | None:  # fmt: skip
        if self.pool is not None and not always:
            return await self.pool.parse(
                (entry.url, result.body, result.final_url or None, result.status,
                 result.content_type or "text/html", entry.depth))  # fmt: skip
        if len(result.body) >= self.limits.off_loop_bytes:
            return await self._in_thread(entry, result)
        if not always:
            return None
        with Timer(self.stats, "parse"):
            return self._parse(entry, result)

    def _parse(self, entry: Entry, result: FetchResult) -> Page | None:
        from formhunter.pipeline import parse_fetched

        try:
            return parse_fetched(entry, result, self.limits)
        except Exception:
            return None

    async def _in_thread(self, entry: Entry, result: FetchResult) -> Page | None:
        """Parse in a worker thread (its CPU is charged to "parse")."""
        def work() -> tuple[Page | None, float, float]:
            t0 = clock()
            page = self._parse(entry, result)
            return page, time.perf_counter() - t0[0], time.thread_time() - t0[1]

        page, wall, cpu = await asyncio.to_thread(work)
        self.stats.stage["parse"] += wall
        self.stats.stage_cpu["parse"] += cpu
        self.stats.parsed_off_loop += 1
        return page
