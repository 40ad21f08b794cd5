"""The crawl loop (ARCHITECTURE.md §1; data flow and owners in formhunter/README.md).

``Engine`` runs the asynchronous part of a crawl: it opens or resumes the run,
takes links from the frontier, fetches up to ``max_in_flight`` of them as asyncio
tasks (``TaskParser`` may parse there; a renderer renders there), and hands them as
one batch to ``Pipeline.process`` (steps 4-9) once ``crawl.batch_pages`` wait, the
first has waited ``crawl.batch_seconds``, or nothing else is in flight. A link stays
in flight until its batch is recorded; a learner's new scorer is swapped in after it.
With ``crawl.ordered_block`` the pages are recorded in the order their links were
handed out, a block at a time, and a link is handed out only while fewer than
``max_in_flight`` are out and unrecorded: each link is then chosen from the state
the same recorded pages left, however fast each fetch came back (``OrderedBlocks``).

Commit points (``Catalogue.commit``, one transaction) come every ``commit_every_pages``
pages or ``commit_every_seconds`` seconds, and at the end (the frontier store writes its
new links itself before it reads). SIGINT/SIGTERM stop cleanly (in-flight links stay
queued); a SIGKILL loses only the work since the last commit; ``resume=True`` continues
the run. Failures never stop the crawl (``CrawlStats`` errors, skipped, faults; faults
mean exit code 1). At the end, whatever the reason, the learners ``finish`` before the
last commit. Listeners (``Engine.listen``) are called as ``listener(event, engine)`` for
"start", "page" (each page recorded), "commit", "learn" and "end". Companions
(``Engine.accompany``, e.g. ``crawl --probe``) run as tasks beside the loop through the
same fetcher; when the loop ends (not interrupted) the buffered rows are committed,
``crawl_over`` is set and the companions are awaited with the fetcher still open, before
the last commit (a companion's exception counts as a fault).

The same loop runs a cluster shard's steps (``run_slice`` over a pipeline opened
elsewhere, ``attach``): a page allowance and a time slice instead of the run's budget.
A slice records what completed; the fetches still in flight at its end carry over to
the next slice (they count against its allowance), so a slow page never holds a slice
back nor leaves its fetch slots idle.

Sitemaps (``fetch.sitemaps``): the first fetch that knows an origin's robots.txt claims
the sitemaps it names. They are read in a task of their own, so no page waits for them
(a sitemap fetch queues behind the host's politeness slot and its Crawl-delay), and the
links they list join the next batch recorded after the read. In ordered mode the fetch
task reads them itself, so they join that page's own batch, whatever the timing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import duckdb

from formhunter import killpoints
from formhunter.catalogue import Catalogue, RunInfo, snapshot_path, write_snapshot
from formhunter.config import Settings
from formhunter.fetch import Fetcher, FetchResult
from formhunter.fetch.sitemaps import SitemapLinks, SitemapReader
from formhunter.frontier.policy import SiteBudget
from formhunter.interfaces import CrawlFrontier, LinkScorer
from formhunter.interfaces import Fetcher as FetcherProtocol
from formhunter.model import Entry, Page
from formhunter.ordered import OrderedBlocks
from formhunter.parse_pool import ParsePool, TaskParser, worker_count
from formhunter.pipeline import NOT_FETCHED, Fetched, Pipeline, open_pipeline
from formhunter.runtime import gc_tuned, stop_at_once_on_signals, stop_on_signals
from formhunter.schema import now as utc_now
from formhunter.stats import STAGES, CrawlResult, CrawlStats, Timer, charge, clock
from formhunter.strategies import Strategy, get_strategy
from formhunter.warc import WarcSink

__all__ = ["NOT_FETCHED", "STAGES", "CrawlResult", "CrawlStats", "Engine", "crawl"]

log = logging.getLogger(__name__)

Listener = Callable[[str, "Engine"], None]
Companion = Callable[["Engine"], Awaitable[None]]
#: what a fetch task gives: the answer, the page parsed in the task, a sitemap's links
#: (read in the task in ordered mode only)
FetchOut = tuple[FetchResult, Page | None, SitemapLinks | None]
#: a completed fetch waiting to be recorded
Done = tuple[Entry, "asyncio.Task[FetchOut]"]


def _wake(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


class Engine:
    """One crawl (module doc); ``fetcher`` defaults to ``formhunter.fetch.Fetcher``.

    Set up by ``run``: ``frontier``, ``budget``, ``pipeline`` (and its ``components``).
    """

    frontier: CrawlFrontier
    budget: SiteBudget
    pipeline: Pipeline

    def __init__(self, settings: Settings, catalogue: Catalogue, *, seeds: Iterable[str] = (),
                 resume: bool = False, fetcher: FetcherProtocol | None = None) -> None:  # fmt: skip
        self.settings = settings
        self.catalogue = catalogue
        self.seeds = list(seeds)
        self.resume = resume
        self.fetcher: FetcherProtocol = fetcher if fetcher is not None else Fetcher(settings.fetch)
        self.strategy: Strategy = get_strategy(settings.crawl.strategy)
        self.stats = CrawlStats()
        self.listeners: list[Listener] = []
        self.companions: list[Companion] = []
        self.crawl_over = asyncio.Event()
        self.run_id = 0
        self.components: dict[str, str] = {}
        self._stop_reason = ""
        self._last_commit = (0, time.monotonic())
        self._tasks: dict[asyncio.Task[FetchOut], Entry] = {}
        # completed fetches waiting for the next batch, and when the first arrived
        self._ready: list[Done] = []
        self._ready_since = 0.0
        block = settings.crawl.ordered_block
        self._ordered = OrderedBlocks(block) if block else None
        self._waiter: asyncio.Future[None] | None = None
        self.renderer: Any = None
        self.parse_pool: ParsePool | None = None  # with crawl.parse_workers
        self.parser = TaskParser(settings.parse, self.stats)
        self.warc: WarcSink | None = None  # with [warc] dir
        self.sitemaps: SitemapReader | None = None  # with [sitemaps] max_per_site
        # sitemap reads in flight (each with the entry whose fetch claimed them), and
        # those read, waiting for the next batch
        self._sitemap_tasks: dict[asyncio.Task[SitemapLinks], Entry] = {}
        self._sitemaps_read: list[tuple[Entry, SitemapLinks]] = []
        self._last_snapshot = 0.0
        self.max_pages = settings.crawl.max_pages  # the loop's page limit
        self._deadline = math.inf  # a slice's end (``run_slice``)

    def listen(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def accompany(self, companion: Companion) -> None:
        """Run ``companion(engine)`` beside the crawl (module doc). It must return soon
        after ``crawl_over`` is set, or after ``stopping`` turns true."""
        self.companions.append(companion)

    @property
    def stopping(self) -> bool:
        """True once a stop was asked for (a signal, ``stop``)."""
        return bool(self._stop_reason)

    def stop(self, reason: str = "interrupted") -> None:
        """Ask the loop to stop at the next step (safe from a signal handler)."""
        if not self._stop_reason:
            self._stop_reason = reason

    def timer(self, stage: str) -> Timer:
        return Timer(self.stats, stage)

    @property
    def scorer(self) -> LinkScorer:
        return self.pipeline.components.scorer

    async def run(self) -> CrawlResult:
        """Crawl until the page budget, the time limit, an empty frontier (reserve
        included; ``CrawlPolicy.end_reason`` says why), a stop rule
        (``CrawlPolicy.stop_reason``: the time limit) or a stop."""
        fetcher = self.fetcher
        async with fetcher:  # raises ProxyUnreachable before anything is written
            self._open_run()
            # from here on, a stop (a signal raising KeyboardInterrupt, a cancelled task)
            # ends in _finish: the run is marked interrupted and --resume continues it
            reason = "interrupted"
            companions: list[asyncio.Future[Any]] = []
            try:
                await self._open_helpers()
                companions += [asyncio.ensure_future(c(self)) for c in self.companions]
                with stop_on_signals(self.stop):
                    try:
                        with gc_tuned():  # its full collection is set-up, not crawl time
                            self.stats.started = time.monotonic()
                            self.stats.cpu_started = time.process_time()
                            self._emit("start")
                            reason = await self._loop()
                    finally:
                        await self._cancel_inflight()
                    if companions and reason != "interrupted":
                        self.commit()  # the companions see every row of the crawl
                        self.crawl_over.set()
                        for outcome in await asyncio.gather(*companions,
                                                            return_exceptions=True):
                            if isinstance(outcome, Exception):  # a fault, not a crash
                                self.stats.faults["companion"] += 1
                                log.error("a companion of the crawl failed: %r", outcome)
            finally:
                # a signal while the crawl ends (learners saving, the last commit) is a
                # stop too: it must not cut _finish short, which marks the run
                with stop_at_once_on_signals(self.stop):
                    for task in companions:
                        task.cancel()
                    await asyncio.gather(*companions, return_exceptions=True)
                    if self.parse_pool is not None:
                        await self.parse_pool.aclose()
                        self.stats.worker_cpu = self.parse_pool.cpu_seconds
                    reason = self._finish(reason)
                    if self.renderer is not None:
                        await self.renderer.close()
        return CrawlResult(self.run_id, reason, self.stats)

    def attach(self, pipeline: Pipeline) -> None:
        """Crawl with ``pipeline`` (opened elsewhere: a cluster shard's): its frontier,
        site budget and counters."""
        self.pipeline, self.frontier, self.budget = pipeline, pipeline.frontier, pipeline.budget
        self.stats = pipeline.stats
        self.parser = TaskParser(self.settings.parse, self.stats, self.parse_pool)
        self._open_sitemaps()

    async def run_slice(self, max_pages: int, seconds: float) -> str:
        """The batch loop over an attached pipeline with an open fetcher, until
        ``max_pages`` pages are recorded (the counters' ``pages``), ``seconds`` passed
        ("slice") or nothing is left to fetch. The fetches in flight count against
        ``max_pages``: those of an earlier slice are recorded in this one, and at the
        slice's end the completed ones are recorded and the rest stay in flight for the
        next (``in_flight``; ``abandon_in_flight`` when there is none). Returns why it
        stopped."""
        self.max_pages = max_pages
        self._deadline = time.monotonic() + seconds
        try:
            return await self._loop()
        finally:
            self._deadline = math.inf

    async def _open_helpers(self) -> None:
        """The renderer, the parse pool and the sitemap reader, when configured."""
        fetcher = self.fetcher
        self._open_sitemaps()
        if self.settings.render.mode != "never":
            from formhunter.fetch.render import open_renderer

            self.renderer = await open_renderer(self.settings.render, fetcher.http())
            self.components["renderer"] = "chromium" if self.renderer else "unavailable"
        workers = worker_count(self.settings.crawl.parse_workers)
        if workers and self.renderer is None:
            self.parse_pool = await ParsePool.open(workers, self.settings.parse)
            if self.parse_pool is not None:
                self.components["parse_workers"] = str(workers)
        self.parser = TaskParser(self.settings.parse, self.stats, self.parse_pool)

    def _open_sitemaps(self) -> None:
        """The sitemap reader (``[sitemaps] max_per_site``, with robots.txt obeyed and an
        HTTP fetcher), once."""
        s, http = self.settings, self.fetcher.http()
        if (self.sitemaps is None and s.sitemaps.max_per_site and s.fetch.obey_robots
                and http is not None):  # fmt: skip
            self.sitemaps = SitemapReader(s.sitemaps, http)

    def _open_run(self) -> None:
        cat, s = self.catalogue, self.settings
        self.run_id, run = cat.open_run(domain=s.crawl.domain, strategy=s.crawl.strategy,
                                        max_pages=s.crawl.max_pages, config=s.to_dict(),
                                        seeds=self.seeds, resume=self.resume)  # fmt: skip
        try:
            self._open_pipeline(run)
        except BaseException:  # a stop or a failure during start-up: the run can resume
            with contextlib.suppress(Exception):  # the first error is the one to show
                cat.update_run(self.run_id, status="interrupted", end_reason="interrupted",
                               finished_at=utc_now())  # fmt: skip
                cat.commit()
            raise

    def _open_pipeline(self, run: RunInfo | None) -> None:
        cat, s = self.catalogue, self.settings
        killpoints.reached("start-up")
        if run is not None:
            self.stats = CrawlStats.from_dict(run.counters)
        # A resumed run re-queues its stored seeds: a kill between the run row's commit
        # and the first commit point left the run without them (known seeds are no-ops).
        seeds = run.seeds if run is not None else self.seeds
        self.pipeline = open_pipeline(s, self.strategy, cat, self.run_id, resumed=run is not None,
                                      seeds=seeds, stats=self.stats,
                                      ready_in=self.fetcher.host_ready_in)  # fmt: skip
        self.frontier, self.budget = self.pipeline.frontier, self.pipeline.budget
        if run is not None:
            self.fetcher.preload_robots(cat.robots(self.run_id))
        if s.warc.dir:
            self.warc = WarcSink(s.warc.dir, self.run_id, max_bytes=s.warc.max_file_mb << 20,
                                 user_agent=s.fetch.user_agent)  # fmt: skip
            self.warc.open(cat.warc_files(self.run_id))
            cat.add_flusher(self.warc.flush)
            self.components["warc"] = s.warc.dir
        self.components = self.pipeline.components.names()
        self.stats.started = time.monotonic()
        self.stats.cpu_started = time.process_time()
        self._last_commit = (self.stats.pages, time.monotonic())
        self.commit()
        log.info("run %d: strategy %s, components %s", self.run_id, self.strategy.name,
                 self.components)  # fmt: skip

    async def _loop(self) -> str:
        s = self.settings.crawl
        max_in_flight = s.max_in_flight or self.settings.fetch.concurrency
        batch_pages, batch_seconds = s.batch_pages, s.batch_seconds
        max_pages, deadline = self.max_pages, self._deadline
        loop = asyncio.get_running_loop()
        while True:
            if self._stop_reason:
                return self._drain(self._stop_reason)
            stop = self.pipeline.policy.stop_reason()
            if stop:
                return self._drain(stop)
            now = time.monotonic()
            t0 = clock()
            order = self._ordered
            # fetches out: in flight (ordered: also completed and waiting for their block)
            out = len(self._tasks) + (order.waiting if order else 0)
            taken = self.stats.pages + out + len(self._ready)
            sliced = now >= deadline
            starved = taken >= max_pages or sliced
            while out < max_in_flight and not starved:
                entry = self.pipeline.policy.next_link(now)
                if entry is None:
                    starved = True
                    break
                task = asyncio.ensure_future(self._fetch(entry))
                task.add_done_callback(self._arrived)
                self._tasks[task] = entry
                if order is not None:
                    order.handed_out(task)
                out += 1
                taken += 1
                starved = taken >= max_pages
            charge(self.stats, "frontier", t0)
            if order is not None:
                block = order.block(starved or out >= max_in_flight)
                if block:
                    self._process(block)
                    self._maybe_commit()
                    continue
            ready = self._ready
            if ready and (not self._tasks or len(ready) >= batch_pages
                          or now - self._ready_since >= batch_seconds):  # fmt: skip
                self._process_ready()
                self._maybe_commit()
                continue
            if self._sitemaps_read and not self._tasks:  # no page batch to join
                self._process([])
                continue
            if not self._tasks and self.stats.pages >= max_pages:
                return "budget"
            if sliced:  # the fetches in flight carry over to the next slice
                return self._drain("slice")
            if (not self._tasks and not self._sitemap_tasks
                    and self.pipeline.policy.exhausted()):  # fmt: skip
                return self.pipeline.policy.end_reason()
            # Wake for: a fetch completing, a parked host becoming due (only while a
            # fetch slot is free), the batch's latency bound; at most every 0.25 s.
            hint = None
            if out < max_in_flight and taken < max_pages and not sliced:
                hint = self.frontier.wait_hint(time.monotonic())
            t0 = clock()
            if self._tasks or self._sitemap_tasks:
                timeout = min(hint, 0.25, deadline - now) if hint is not None \
                    else min(0.25, deadline - now)  # fmt: skip
                if ready:
                    timeout = min(timeout, max(self._ready_since + batch_seconds - now, 0.0))
                await self._wait_arrival(loop, timeout)
            else:  # nothing in flight, nothing fetched: wait for a host or a refill
                await asyncio.sleep(min(hint if hint is not None else 0.05, 0.25,
                                        max(deadline - now, 0.0)))  # fmt: skip
            charge(self.stats, "fetch_wait", t0)

    async def _wait_arrival(self, loop: asyncio.AbstractEventLoop, timeout: float) -> None:
        """Until a fetch completes or ``timeout`` seconds pass (cheap: no per-task callbacks)."""
        fut: asyncio.Future[None] = loop.create_future()
        self._waiter = fut
        handle = loop.call_later(timeout, _wake, fut)
        try:
            await fut
        finally:
            handle.cancel()
            self._waiter = None

    def _arrived(self, task: asyncio.Task[FetchOut]) -> None:
        """Done-callback of a fetch task: queue it for the next batch, wake the loop."""
        entry = self._tasks.pop(task, None)
        if entry is None or task.cancelled():
            return  # cancelled by _cancel_inflight, which abandons the entry
        if self._ordered is not None:
            self._ordered.arrived(task, entry)
        elif not self._ready:
            self._ready_since = time.monotonic()
        if self._ordered is None:
            self._ready.append((entry, task))
        if self._waiter is not None:
            _wake(self._waiter)

    async def _read_sitemaps(self, reader: SitemapReader,
                             claims: list[tuple[str, list[str]]]) -> SitemapLinks:
        """``reader.read_claimed(claims)``; a defect of the reader is a fault, not the
        crawl's end."""
        try:
            return await reader.read_claimed(claims)
        except Exception:
            self.pipeline.fault("sitemap")
            return SitemapLinks()

    def _sitemap_arrived(self, task: asyncio.Task[SitemapLinks]) -> None:
        """Done-callback of a sitemap read: its links wait for the next batch."""
        entry = self._sitemap_tasks.pop(task, None)
        if entry is None or task.cancelled():
            return
        self._sitemaps_read.append((entry, task.result()))
        if self._waiter is not None:
            _wake(self._waiter)

    def _process_ready(self) -> None:
        """Process the queued completed fetches as one batch (a failed task raises here)."""
        ready, self._ready = self._ready, []
        self._process(ready)

    def _process(self, ready: list[Done]) -> None:
        """Record one batch of completed fetches, in the given order, with the sitemaps
        read since the last batch (module doc)."""
        if self.warc is not None:
            for _, task in ready:
                r = task.result()[0]
                self.warc.add(r.url, r.final_url, r.status, r.headers, r.body)
        batch, found = [], self._sitemaps_read
        self._sitemaps_read = []
        for entry, task in ready:
            fetched, page, sitemap = task.result()
            batch.append(Fetched(entry, fetched, page))
            if sitemap is not None:
                found.append((entry, sitemap))
        result = self.pipeline.process(batch, found)
        if result.new_scorer is not None:
            self.swap_scorer(result.new_scorer)
        for _ in result.pages:
            self._emit("page")

    def _drain(self, reason: str) -> str:
        """Before the loop ends: process what was fetched already (ordered: up to the
        first link still in flight); returns ``reason``."""
        if self._ordered is not None:
            done = self._ordered.prefix()
            if done:
                self._process(done)
        elif self._ready or self._sitemaps_read:
            self._process_ready()
        return reason

    async def _fetch(self, entry: Entry) -> FetchOut:
        """Step 3: fetch; the first fetch that knows an origin's robots.txt reads the
        sitemaps it names (``fetch.sitemaps``); then ``TaskParser`` may parse here (a
        parse pool, a big body in a thread) and, with a renderer, the page is rendered
        here (it awaits a browser)."""
        result = await self.fetcher.fetch(entry.url)
        found = None
        if self.sitemaps is not None and result.error not in NOT_FETCHED:
            if self._ordered is not None:
                found = await self.sitemaps.read(entry.url, result.final_url)
            elif claims := self.sitemaps.claim(entry.url, result.final_url):
                task = asyncio.ensure_future(self._read_sitemaps(self.sitemaps, claims))
                task.add_done_callback(self._sitemap_arrived)
                self._sitemap_tasks[task] = entry
        if result.error:
            return result, None, found
        page = await self.parser.parse(entry, result, always=self.renderer is not None)
        if self.renderer is None or page is None:
            return result, page, found
        from formhunter.fetch.render import maybe_render

        with self.timer("render"):
            try:
                return result, await maybe_render(self.settings.render.mode, self.renderer,
                                                  result, page, limits=self.settings.parse), found
            except Exception:
                self.pipeline.fault("render")
        return result, page, found

    @property
    def in_flight(self) -> int:
        """Links handed out and not yet recorded (a slice's carried fetches)."""
        order = self._ordered
        return len(self._tasks) + len(self._ready) + (order.waiting if order else 0)

    async def abandon_in_flight(self) -> None:
        """After the last slice: cancel the carried fetches (their links stay queued)."""
        await self._cancel_inflight()

    async def _cancel_inflight(self) -> None:
        """Cancel fetches in flight; they and fetched-but-unprocessed links stay queued."""
        now = time.monotonic()
        entries = [entry for entry, _ in self._ready]
        self._ready = []
        if self._ordered is not None:
            entries += self._ordered.clear()
        if self._tasks:
            tasks = dict(self._tasks)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            entries += tasks.values()
            self._tasks.clear()
        if self._sitemap_tasks:  # a resumed run claims those sitemaps again
            reads = list(self._sitemap_tasks)
            for read in reads:
                read.cancel()
            await asyncio.gather(*reads, return_exceptions=True)
            self._sitemap_tasks.clear()
        for entry in entries:
            self.frontier.abandon(entry, now)

    def _maybe_commit(self) -> None:
        n, t = self._last_commit
        cs = self.settings.crawl
        if (self.stats.pages - n >= cs.commit_every_pages
                or time.monotonic() - t >= cs.commit_every_seconds):  # fmt: skip
            self.commit()

    def commit(self) -> None:
        """A commit point: every buffered row and the run's counters, one transaction."""
        with self.timer("catalogue"):
            st = self.stats
            self.catalogue.add_robots(self.run_id, self.fetcher.take_robots())
            self.catalogue.update_run(
                self.run_id, pages_fetched=st.pages, forms=st.forms,
                searchable_forms=st.searchable, relevant_forms=st.relevant,
                errors=dict(st.errors), counters=st.to_dict(), stage_seconds=dict(st.stage),
            )  # fmt: skip
            self.catalogue.commit()
            every = self.settings.crawl.snapshot_every_seconds
            if every and time.monotonic() - self._last_snapshot >= every:
                self._snapshot()
        self._last_commit = (self.stats.pages, time.monotonic())
        self._emit("commit")

    def _snapshot(self) -> None:
        """Refresh the read snapshot (``catalogue.write_snapshot``); a failure is logged
        and counted, never the crawl's end."""
        try:
            write_snapshot(self.catalogue.con, self.catalogue.path)
        except (OSError, duckdb.Error) as exc:
            log.warning("the catalogue's read snapshot was not written: %s", exc)
            self.stats.errors["snapshot"] += 1
        self._last_snapshot = time.monotonic()

    def _finish(self, reason: str) -> str:
        """Save the learners, mark the run and commit; returns the reason it ended with:
        "interrupted" when a stop was asked meanwhile (the run row says so too)."""
        killpoints.reached("finish")
        self.pipeline.finish()  # learners save what they learnt (a failure is a fault)
        while True:
            if self._stop_reason == "interrupted":
                reason = "interrupted"
            status = "interrupted" if reason == "interrupted" else "finished"
            self.catalogue.update_run(self.run_id, status=status, end_reason=reason,
                                      finished_at=utc_now())  # fmt: skip
            self.commit()
            if status == "interrupted" or self._stop_reason != "interrupted":
                break  # else a stop came during the commit: mark the run interrupted
        if self.settings.crawl.snapshot_every_seconds:  # the file itself is readable now
            snapshot_path(self.catalogue.path).unlink(missing_ok=True)
        self.stats.ended = (time.monotonic(), time.process_time())
        self._emit("end")
        return reason

    def _emit(self, event: str) -> None:
        for listener in self.listeners:
            try:
                listener(event, self)
            except Exception:
                log.exception("listener failed on %s", event)

    def swap_scorer(self, scorer: LinkScorer) -> None:
        """Use ``scorer`` from now on (``Pipeline.swap_scorer``); emits "learn"."""
        self.pipeline.swap_scorer(scorer)
        self.components["scorer"] = type(scorer).__name__
        self._emit("learn")


async def crawl(settings: Settings, catalogue: Catalogue, *, seeds: Iterable[str] = (),
                resume: bool = False, fetcher: Any = None,
                listeners: Sequence[Listener] = ()) -> CrawlResult:  # fmt: skip
    """Run one crawl (see ``Engine``)."""
    engine = Engine(settings, catalogue, seeds=seeds, resume=resume, fetcher=fetcher)
    for listener in listeners:
        engine.listen(listener)
    return await engine.run()
