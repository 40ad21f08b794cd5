"""The crawl loop: the one module that knows every stage (ARCHITECTURE.md §1).

Data flow of one page, in order (the numbers are those of the architecture):

1. Seeds enter the frontier at level 0 (a new run) or the frontier is reopened
   from the catalogue (``resume``).
2. ``Frontier.next`` gives the best link of the first non-empty level whose
   host is ready (politeness); memory is refilled from the persistent frontier
   when it runs dry. Links of a site that hit its stopping criteria are skipped.
3. The fetcher (``formhunter.fetch.Fetcher``) downloads it; up to
   ``max_in_flight`` fetches run concurrently as asyncio tasks. With ``render``
   auto/always the task also parses the page and, where needed, renders it in
   headless chromium (``formhunter.fetch.render``). Completed fetches wait in a
   queue and are processed as one batch in the event loop, stage by stage, once
   ``crawl.batch_pages`` are waiting, the first has waited ``crawl.batch_seconds``,
   or nothing else is in flight (the classifiers' per-call overhead is paid per batch).
   A page's link stays in flight (its host busy, its frontier row unchanged)
   until its batch is recorded, so commits and resume see it as not fetched.
4. ``parse_page`` builds the DOM once: text, links with context, forms (in the
   batch, or in the fetch task by ``crawl.parse_workers`` worker processes).
5. The page classifier gives Pr(on topic).
6. The critic judges each form (searchable? domain? relevant?).
7. The catalogue buffers the page, its new forms (one per site and signature),
   their fields and the path seed -> ... -> page (kept as parent pointers).
8. Learners observe the outcome (``PageOutcome``); one that returns a new link
   scorer gets it swapped in, and the whole frontier is re-ranked.
9. Outlinks allowed by the strategy's follow policy, not seen before and within
   the trap limits are scored in one batch and persisted in the frontier.

A commit point (``Catalogue.commit``: pages, forms, frontier rows and state
changes, run counters, in one transaction) happens every ``commit_every_pages``
pages or ``commit_every_seconds`` seconds, before every refill and re-rank, and
at the end. SIGINT/SIGTERM stop the crawl cleanly: in-flight fetches are
cancelled (their links stay queued), then a commit. A SIGKILL loses only the
work since the last commit point; ``resume=True`` continues the run.

Failures never stop the crawl. Per-URL failures (fetch error kinds, unparsable
pages) are counted in ``CrawlStats.errors``; links not fetched on purpose
(robots.txt, traps, site limits) in ``CrawlStats.skipped``; exceptions raised by
a component (classifier, critic, scorer, learner: bugs, not the Web's fault) in
``CrawlStats.faults`` -- a crawl with faults ends with exit code 1.

Every stage is charged wall seconds (``CrawlStats.stage``) and this thread's CPU
seconds (``CrawlStats.stage_cpu``, robust to other load on the machine);
``fetch_wait`` is the event loop waiting, which includes the HTTP client's work.

Listeners (``Engine.listen``) are called as ``listener(event, engine)`` with the
events "start", "page", "commit", "learn" and "end".
"""

from __future__ import annotations

import asyncio
import gc
import logging
import math
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from formhunter.catalogue import Catalogue, RunInfo
from formhunter.config import Settings
from formhunter.exceptions import ParseError, UsageError
from formhunter.fetch import Fetcher, FetchResult
from formhunter.frontier import Entry, Frontier, FrontierStore, SiteBudget
from formhunter.interfaces import LinkRecord, LinkScorer, PageOutcome
from formhunter.model import Form, Page, Verdict
from formhunter.parse import dom_offset_terms, parse_page
from formhunter.strategies import Strategy, build, get_strategy
from formhunter.urls import canonicalize, host_of, site_of, site_of_host

log = logging.getLogger(__name__)

#: Fetch error kinds that mean "not fetched on purpose": no page row, link skipped.
NOT_FETCHED = frozenset({"robots", "robots-unreachable", "forbidden-address", "bad-url"})
STAGES = ("fetch_wait", "parse", "classify", "critic", "frontier", "score", "catalogue", "learn",
          "render")
MAX_PATH = 64
#: the collector's young-generation threshold during the crawl loop (``Engine.run``)
GC_YOUNG = 20_000

Listener = Callable[[str, "Engine"], None]


@dataclass(slots=True)
class EngineOutcome(PageOutcome):
    """``PageOutcome`` plus the link the page was reached through (None for seeds)."""

    link: LinkRecord | None = None


@dataclass(slots=True)
class _Item:
    """One fetched page on its way through a batch."""

    entry: Entry
    result: FetchResult
    seq: int
    error: str
    page: Page | None = None
    score: float | None = None
    on_topic: bool = False
    new_forms: list[Form] = field(default_factory=list)
    signatures: list[str] = field(default_factory=list)  # of new_forms
    verdicts: list[Verdict] = field(default_factory=list)


@dataclass(slots=True)
class _Outlinks:
    """New links collected from a batch of pages, scored together."""

    records: list[LinkRecord] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    last: list[bool] = field(default_factory=list)
    urls: set[str] = field(default_factory=set)

    def add(self, rec: LinkRecord, host: str, seq: int, last: bool) -> None:
        self.records.append(rec)
        self.hosts.append(host)
        self.seqs.append(seq)
        self.last.append(last)
        self.urls.add(rec.url)


@dataclass
class CrawlStats:
    """Counters of a crawl; saved with every commit so that a resumed run goes on."""

    pages: int = 0
    parsed: int = 0
    on_topic: int = 0
    forms: int = 0
    searchable: int = 0
    relevant: int = 0
    links_new: int = 0
    links_not_followed: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    stage: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    # CPU seconds of this thread per stage (robust to other load on the machine)
    stage_cpu: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    learning_iterations: int = 0
    reranks: int = 0
    elapsed: float = 0.0  # wall seconds of earlier sessions of this run
    session_pages: int = 0  # pages fetched in this session
    started: float = field(default_factory=time.monotonic)
    cpu_started: float = field(default_factory=time.process_time)
    ended: tuple[float, float] | None = None  # (monotonic, process CPU) when the session ended
    # CPU seconds the parse workers (crawl.parse_workers) spent parsing in this session:
    # other processes, so not in cpu_seconds
    worker_cpu: float = 0.0

    @property
    def seconds(self) -> float:
        """Wall seconds of this session (up to its end once it ended)."""
        return (self.ended[0] if self.ended else time.monotonic()) - self.started

    @property
    def cpu_seconds(self) -> float:
        """CPU seconds of this process during this session (all threads)."""
        return (self.ended[1] if self.ended else time.process_time()) - self.cpu_started

    @property
    def pages_per_second(self) -> float:
        return self.session_pages / self.seconds if self.seconds > 0 else 0.0

    @property
    def harvest_rate(self) -> float:
        """Distinct relevant forms per page fetched."""
        return self.relevant / self.pages if self.pages else 0.0

    @property
    def n_errors(self) -> int:
        return sum(self.errors.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "pages": self.pages, "parsed": self.parsed, "on_topic": self.on_topic,
            "forms": self.forms, "searchable": self.searchable, "relevant": self.relevant,
            "links_new": self.links_new, "links_not_followed": self.links_not_followed,
            "errors": dict(self.errors), "skipped": dict(self.skipped),
            "faults": dict(self.faults), "stage": {k: round(v, 4) for k, v in self.stage.items()},
            "stage_cpu": {k: round(v, 4) for k, v in self.stage_cpu.items()},
            "learning_iterations": self.learning_iterations, "reranks": self.reranks,
            "elapsed": round(self.elapsed + self.seconds, 3),
        }  # fmt: skip

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CrawlStats:
        s = cls()
        for k in ("pages", "parsed", "on_topic", "forms", "searchable", "relevant", "links_new",
                  "links_not_followed", "learning_iterations", "reranks"):  # fmt: skip
            setattr(s, k, int(d.get(k, 0)))
        s.elapsed = float(d.get("elapsed", 0.0))
        for k in ("errors", "skipped", "faults"):
            getattr(s, k).update(d.get(k, {}))
        for key in ("stage", "stage_cpu"):
            for k, v in d.get(key, {}).items():
                getattr(s, key)[k] = float(v)
        return s


@dataclass(frozen=True)
class CrawlResult:
    """How a crawl ended: ``reason`` is budget, exhausted, time-limit or interrupted."""

    run_id: int
    reason: str
    stats: CrawlStats

    @property
    def status(self) -> str:
        return "interrupted" if self.reason == "interrupted" else "finished"


def _wake(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


Clock = tuple[float, float]


def _clock() -> Clock:
    """(wall, thread CPU) now: a stage is charged both."""
    return time.perf_counter(), time.thread_time()


def _charge(stats: CrawlStats, key: str, t0: Clock, minus: Clock = (0.0, 0.0)) -> None:
    """Charge stage ``key`` the time since ``t0`` (less ``minus``), wall and CPU."""
    stats.stage[key] += time.perf_counter() - t0[0] - minus[0]
    stats.stage_cpu[key] += time.thread_time() - t0[1] - minus[1]


class _Timer:
    __slots__ = ("key", "stats", "t0")

    def __init__(self, stats: CrawlStats, key: str) -> None:
        self.stats, self.key = stats, key
        self.t0: Clock = (0.0, 0.0)

    def __enter__(self) -> None:
        self.t0 = _clock()

    def __exit__(self, *exc: object) -> None:
        _charge(self.stats, self.key, self.t0)


class Engine:
    """One crawl (module doc). ``fetcher``: an object with the ``Fetcher`` interface
    (async context manager, ``fetch``, ``host_ready_in``); default ``Fetcher``."""

    def __init__(self, settings: Settings, catalogue: Catalogue, *, seeds: Iterable[str] = (),
                 resume: bool = False, fetcher: Any = None) -> None:  # fmt: skip
        self.settings = settings
        self.catalogue = catalogue
        self.seeds = list(seeds)
        self.resume = resume
        self.fetcher: Any = fetcher
        self.strategy: Strategy = get_strategy(settings.crawl.strategy)
        self.stats = CrawlStats()
        self.listeners: list[Listener] = []
        self.run_id = 0
        self.components: dict[str, str] = {}
        self.parents: dict[str, tuple[str, str]] = {}
        self._stop_reason = ""
        self._last_commit = (0, time.monotonic())
        self._tasks: dict[asyncio.Task[tuple[FetchResult, Page | None]], Entry] = {}
        # completed fetches waiting for the next batch, and when the first arrived
        self._ready: list[tuple[Entry, asyncio.Task[tuple[FetchResult, Page | None]]]] = []
        self._ready_since = 0.0
        self._waiter: asyncio.Future[None] | None = None
        self.renderer: Any = None
        self.parse_pool: Any = None  # formhunter.parse_pool.ParsePool with crawl.parse_workers
        self._learner_names: list[str] = []
        self._new_scorer: LinkScorer | None = None
        self._commit_clock: Clock = (0.0, 0.0)  # wall and CPU seconds spent in commits

    # -- public -----------------------------------------------------------------

    def listen(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def stop(self, reason: str = "interrupted") -> None:
        """Ask the loop to stop at the next step (safe from a signal handler)."""
        if not self._stop_reason:
            self._stop_reason = reason

    def timer(self, stage: str) -> _Timer:
        return _Timer(self.stats, stage)

    async def run(self) -> CrawlResult:
        """Crawl until the page budget, the time limit, an empty frontier or a stop."""
        fetcher = self.fetcher if self.fetcher is not None else Fetcher(self.settings.fetch)
        self.fetcher = fetcher
        async with fetcher:  # raises ProxyUnreachable before anything is written
            self._open_run()
            if self.settings.render.mode != "never":
                from formhunter.fetch.render import open_renderer

                self.renderer = await open_renderer(self.settings.render, fetcher)
                self.components["renderer"] = "chromium" if self.renderer else "unavailable"
            workers = self.settings.crawl.parse_workers
            if workers and self.renderer is None:
                from formhunter.parse_pool import ParsePool

                pool = ParsePool(workers)
                try:
                    await pool.start()
                except Exception:  # no worker processes here: parse in this thread
                    log.exception("parse workers did not start; parsing in the crawl")
                else:
                    self.parse_pool = pool
                    self.components["parse_workers"] = str(workers)
            # The models and tables loaded so far live as long as the crawl: keep them out
            # of the collector's full passes, which otherwise rescan them (~0.1 ms/page).
            frozen = gc.isenabled() and gc.get_freeze_count() == 0
            threshold = gc.get_threshold()
            if frozen:
                gc.collect()
                gc.freeze()
                # A batch keeps its pages alive until recorded, so the default young
                # generation (700 objects) is collected ~10 times per batch, rescanning
                # them each time (~0.04 ms/page): collect cycles less often.
                gc.set_threshold(max(threshold[0], GC_YOUNG), *threshold[1:])
            self.stats.started = time.monotonic()
            self.stats.cpu_started = time.process_time()
            restore = self._install_signals()
            reason = "interrupted"
            try:
                self._emit("start")
                reason = await self._loop()
            finally:
                if frozen:
                    gc.set_threshold(*threshold)
                    gc.unfreeze()
                await self._cancel_inflight()
                restore()
                if self.parse_pool is not None:
                    await self.parse_pool.aclose()
                    self.stats.worker_cpu = self.parse_pool.cpu_seconds
                self._finish(reason)
                if self.renderer is not None:
                    await self.renderer.close()
        return CrawlResult(self.run_id, reason, self.stats)

    # -- setup ------------------------------------------------------------------

    def _open_run(self) -> None:
        cat, s = self.catalogue, self.settings
        run: RunInfo | None = cat.run() if self.resume else None
        if self.resume and run is None:
            raise UsageError(f"--resume: {cat.path} holds no run to resume")
        if run is not None:
            if run.domain != s.crawl.domain or run.strategy != s.crawl.strategy:
                raise UsageError(
                    f"--resume: run {run.run_id} crawls domain {run.domain!r} with strategy "
                    f"{run.strategy!r}, not {s.crawl.domain!r}/{s.crawl.strategy!r}"
                )
            self.run_id = run.run_id
            self.stats = CrawlStats.from_dict(run.counters)
            cat.update_run(self.run_id, status="running", max_pages=s.crawl.max_pages,
                           finished_at=None)  # fmt: skip
        else:
            self.run_id = cat.new_run(domain=s.crawl.domain, strategy=s.crawl.strategy,
                                      max_pages=s.crawl.max_pages, config=s.to_dict(),
                                      seeds=self.seeds)  # fmt: skip
        self.store = FrontierStore(cat.con, self.run_id)
        cat.add_flusher(self.store.flush)
        self._build_components()
        fetcher = self.fetcher
        self.frontier = Frontier(
            self.store, s.frontier,
            n_levels=max(s.frontier.levels, int(getattr(self.scorer, "n_levels", 1))) + 1,
            commit=self.commit, ready_in=fetcher.host_ready_in,
            per_host=s.fetch.per_host_connections,
        )  # fmt: skip
        self.budget = SiteBudget(s.stopping)
        if run is not None:
            self._restore()
        else:
            for raw in self.seeds:
                url = canonicalize(raw)
                if url is None:
                    log.warning("seed %r is not an http(s) URL; ignored", raw)
                    self.stats.skipped["bad-seed"] += 1
                    continue
                self.frontier.add_seed(url, site_of(url), host_of(url))
        self.stats.started = time.monotonic()
        self.stats.cpu_started = time.process_time()
        self._last_commit = (self.stats.pages, time.monotonic())
        self.commit()
        log.info("run %d: strategy %s, components %s", self.run_id, self.strategy.name,
                 self.components)  # fmt: skip

    def _build_components(self) -> None:
        s, st = self.settings, self.strategy
        ctx: dict[str, Any] = {
            "domain": s.crawl.domain, "settings": s, "strategy": st,
            "models_dir": s.crawl.models_dir or None, "random_state": s.crawl.random_state,
            "catalogue": self.catalogue, "run_id": self.run_id,
        }  # fmt: skip
        pc = s.crawl.page_classifier or st.page_classifier
        critic = s.crawl.critic or st.critic
        scorer = s.crawl.scorer or st.scorer
        self.page_classifier = build("page_classifier", pc, **ctx)
        self.critic = build("critic", critic, **ctx)
        self.scorer: LinkScorer = build("scorer", scorer, **ctx)
        self.learners = [build("learner", n, **ctx) for n in st.learners]
        self._learner_names = list(st.learners)
        self.components = {
            "page_classifier": type(self.page_classifier).__name__,
            "critic": type(self.critic).__name__, "scorer": type(self.scorer).__name__,
            "learners": ",".join(type(x).__name__ for x in self.learners) or "-",
        }  # fmt: skip

    def _restore(self) -> None:
        """Rebuild in-memory state of a resumed run from the catalogue."""
        con, rid = self.catalogue.con, self.run_id
        pages = con.execute("SELECT count(*) FROM pages WHERE run_id = ?", [rid]).fetchall()
        self.stats.pages = int(pages[0][0])
        for url, parent, anchor in con.execute(
            "SELECT url, parent_url, anchor FROM pages WHERE run_id = ?", [rid]
        ).fetchall():
            self.parents[url] = (parent or "", anchor or "")
        b = self.budget
        for site, n in con.execute(
            "SELECT site, count(*) FROM pages WHERE run_id = ? GROUP BY site", [rid]
        ).fetchall():
            b.pages[site] = int(n)
        for site, n, r in con.execute(
            "SELECT site, count(*), count(*) FILTER (WHERE relevant) FROM forms"
            " WHERE run_id = ? AND searchable GROUP BY site", [rid]
        ).fetchall():  # fmt: skip
            b.forms[site], b.relevant[site] = int(n), int(r)
        for site, n in con.execute(
            "SELECT p.site, count(*) FROM pages p WHERE p.run_id = ? AND p.seq > coalesce("
            " (SELECT max(f.seq) FROM forms f WHERE f.run_id = p.run_id AND f.site = p.site"
            "  AND f.searchable), 0) GROUP BY p.site", [rid]
        ).fetchall():  # fmt: skip
            b.since_form[site] = int(n)
        for site in list(b.pages):
            b._check(site)

    def _install_signals(self) -> Callable[[], None]:
        loop = asyncio.get_running_loop()
        installed = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, self.stop, "interrupted")
                installed.append(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                pass  # not the main thread, or no signals here

        def restore() -> None:
            for sig in installed:
                loop.remove_signal_handler(sig)

        return restore

    # -- the loop ---------------------------------------------------------------

    async def _loop(self) -> str:
        s = self.settings.crawl
        max_in_flight = s.max_in_flight or self.settings.fetch.concurrency
        batch_pages, batch_seconds = s.batch_pages, s.batch_seconds
        loop = asyncio.get_running_loop()
        while True:
            if self._stop_reason:
                return self._drain(self._stop_reason)
            if s.max_seconds and self.stats.seconds >= s.max_seconds:
                return self._drain("time-limit")
            now = time.monotonic()
            t0 = _clock()
            c0 = self._commit_clock
            taken = self.stats.pages + len(self._tasks) + len(self._ready)
            while len(self._tasks) < max_in_flight and taken < s.max_pages:
                entry = self.frontier.next(now)
                if entry is None:
                    break
                reason = self.budget.reason(entry.site) if self.strategy.site_limits else ""
                if reason:
                    self.frontier.done(entry, "skipped", reason, now)
                    self.stats.skipped[reason] += 1
                    continue
                task = asyncio.ensure_future(self._fetch(entry))
                task.add_done_callback(self._arrived)
                self._tasks[task] = entry
                taken += 1
            # refills commit first; that time is the catalogue's, not the frontier's
            c1 = self._commit_clock
            _charge(self.stats, "frontier", t0, (c1[0] - c0[0], c1[1] - c0[1]))
            ready = self._ready
            if ready and (not self._tasks or len(ready) >= batch_pages
                          or now - self._ready_since >= batch_seconds):  # fmt: skip
                self._process_ready()
                self._maybe_commit()
                continue
            if not self._tasks:
                if self.stats.pages >= s.max_pages:
                    return "budget"
                if self.frontier.exhausted:
                    return "exhausted"
            # Wake for: a fetch completing, a parked host becoming due (only while a
            # fetch slot is free), the batch's latency bound; at most every 0.25 s.
            hint = None
            if len(self._tasks) < max_in_flight and taken < s.max_pages:
                hint = self.frontier.wait_hint(time.monotonic())
            t0 = _clock()
            if self._tasks:
                timeout = min(hint, 0.25) if hint is not None else 0.25
                if ready:
                    timeout = min(timeout, max(self._ready_since + batch_seconds - now, 0.0))
                await self._wait_arrival(loop, timeout)
            else:  # nothing in flight, nothing fetched: wait for a host or a refill
                await asyncio.sleep(min(hint if hint is not None else 0.05, 0.25))
            _charge(self.stats, "fetch_wait", t0)

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

    def _arrived(self, task: asyncio.Task[tuple[FetchResult, Page | None]]) -> None:
        """Done-callback of a fetch task: queue it for the next batch, wake the loop."""
        entry = self._tasks.pop(task, None)
        if entry is None or task.cancelled():
            return  # cancelled by _cancel_inflight, which abandons the entry
        if not self._ready:
            self._ready_since = time.monotonic()
        self._ready.append((entry, task))
        if self._waiter is not None:
            _wake(self._waiter)

    def _process_ready(self) -> None:
        """Process the queued completed fetches as one batch (a failed task raises here)."""
        ready, self._ready = self._ready, []
        self._process([(entry, task.result()) for entry, task in ready])

    def _drain(self, reason: str) -> str:
        """Before the loop ends: process what was fetched already; returns ``reason``."""
        if self._ready:
            self._process_ready()
        return reason

    async def _fetch(self, entry: Entry) -> tuple[FetchResult, Page | None]:
        """Step 3: fetch; with a renderer, also parse and render here (it awaits a browser)."""
        result = await self.fetcher.fetch(entry.url)
        if result.error:
            return result, None
        if self.renderer is None:
            if self.parse_pool is None:
                return result, None
            # None: not parsed there (or failed there), the batch parses it
            return result, await self.parse_pool.parse(
                (entry.url, result.body, result.final_url or None, result.status,
                 result.content_type or "text/html", entry.depth))  # fmt: skip
        from formhunter.fetch.render import maybe_render

        t0 = _clock()
        try:
            static = parse_page(entry.url, result.body, final_url=result.final_url or None,
                                status=result.status, content_type=result.content_type or
                                "text/html", depth=entry.depth)  # fmt: skip
        except Exception:
            return result, None  # the batch parses again and records the failure
        _charge(self.stats, "parse", t0)
        t0 = _clock()
        try:
            page = await maybe_render(self.settings.render.mode, self.renderer, result, static)
        except Exception:
            self._fault("render")
            page = static
        _charge(self.stats, "render", t0)
        return result, page

    async def _cancel_inflight(self) -> None:
        """Cancel fetches in flight; they and fetched-but-unprocessed links stay queued."""
        now = time.monotonic()
        entries = [entry for entry, _ in self._ready]
        self._ready = []
        if self._tasks:
            tasks = dict(self._tasks)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            entries += tasks.values()
            self._tasks.clear()
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
        t0 = _clock()
        with self.timer("catalogue"):
            st = self.stats
            self.catalogue.update_run(
                self.run_id, pages_fetched=st.pages, forms=st.forms,
                searchable_forms=st.searchable, relevant_forms=st.relevant,
                errors=dict(st.errors), counters=st.to_dict(), stage_seconds=dict(st.stage),
            )  # fmt: skip
            self.catalogue.commit()
        w, c = self._commit_clock
        self._commit_clock = (w + time.perf_counter() - t0[0], c + time.thread_time() - t0[1])
        self._last_commit = (self.stats.pages, time.monotonic())
        self._emit("commit")

    def _finish(self, reason: str) -> None:
        from formhunter.catalogue import now

        status = "interrupted" if reason == "interrupted" else "finished"
        self.catalogue.update_run(self.run_id, status=status, end_reason=reason,
                                  finished_at=now())  # fmt: skip
        self.commit()
        self.stats.ended = (time.monotonic(), time.process_time())
        self._emit("end")

    def _emit(self, event: str) -> None:
        for listener in self.listeners:
            try:
                listener(event, self)
            except Exception:
                log.exception("listener failed on %s", event)

    # -- one page ---------------------------------------------------------------

    def _fault(self, kind: str) -> None:
        self.stats.faults[kind] += 1
        log.exception("%s failed", kind)

    def path(self, url: str, anchor: str, parent: str) -> list[tuple[str, str]]:
        """(url, anchor) hops from a seed to ``url`` (parent pointers, bounded)."""
        hops = [(url, anchor)]
        seen = {url}
        while parent and parent not in seen and len(hops) < MAX_PATH:
            seen.add(parent)
            grand, a = self.parents.get(parent, ("", ""))
            hops.append((parent, a))
            parent = grand
        hops.reverse()
        return hops

    def _process(self, batch: Sequence[tuple[Entry, tuple[FetchResult, Page | None]]]) -> None:
        """Steps 4-9 for the pages whose fetch completed together.

        Parsing, page classification and form judging run stage by stage over the
        batch (one classifier call per batch when the component has a batch method:
        ``page_scores(pages)``, ``judge_many([(forms, page), ...])``); then each page
        is recorded in fetch order, and the batch's outlinks are scored in one call.
        """
        items = self._parse(batch)
        self._classify([it for it in items if it.page is not None])
        self._judge([it for it in items if it.new_forms])
        links = _Outlinks()
        for it in items:
            self._record(it, links)
        self._add_outlinks(links)
        if self._new_scorer is not None:
            scorer, self._new_scorer = self._new_scorer, None
            self.swap_scorer(scorer)
        for _ in items:
            self._emit("page")

    def _parse(self, batch: Sequence[tuple[Entry, tuple[FetchResult, Page | None]]]
               ) -> list[_Item]:  # fmt: skip
        st = self.stats
        items: list[_Item] = []
        now = time.monotonic()
        for entry, (result, ready) in batch:
            if result.error in NOT_FETCHED:
                self.frontier.done(entry, "skipped", result.error, now)
                st.skipped[result.error] += 1
                continue
            st.pages += 1
            st.session_pages += 1
            it = _Item(entry, result, st.pages, result.error)
            items.append(it)
            if it.error:
                st.errors[it.error] += 1
                continue
            if ready is not None:  # parsed (and maybe rendered) in the fetch task
                it.page = ready
                st.parsed += 1
                continue
            t0 = _clock()
            try:
                it.page = parse_page(entry.url, result.body, final_url=result.final_url or None,
                                     status=result.status, content_type=result.content_type or
                                     "text/html", depth=entry.depth)  # fmt: skip
                st.parsed += 1
            except Exception as exc:
                it.error = "parse"
                st.errors["parse"] += 1
                if not isinstance(exc, ParseError):
                    self._fault("parse")
            _charge(st, "parse", t0)
        return items

    def _classify(self, items: list[_Item]) -> None:
        if not items:
            return
        t0 = _clock()
        pc = self.page_classifier
        batch = getattr(pc, "page_scores", None)
        try:
            scores = (list(batch([it.page for it in items])) if batch is not None
                      else [pc.page_score(it.page) for it in items])  # fmt: skip
            if len(scores) != len(items):
                raise ValueError("page classifier returned a score count unlike the pages'")
        except Exception:
            self._fault("page_classifier")
            scores = [0.0] * len(items)
        threshold = self.strategy.on_topic_threshold
        cat, run_id = self.catalogue, self.run_id
        for it, score in zip(items, scores, strict=True):
            it.score = float(score)
            it.on_topic = it.score >= threshold
            page = it.page
            assert page is not None
            # Only forms new to the site are judged: a site repeats its forms on every page.
            for f in page.forms:
                sig = f.signature
                if cat.is_new_form(run_id, page.site, sig):
                    it.new_forms.append(f)
                    it.signatures.append(sig)
        _charge(self.stats, "classify", t0)

    def _judge(self, items: list[_Item]) -> None:
        if not items:
            return
        t0 = _clock()
        many = getattr(self.critic, "judge_many", None)
        try:
            if many is not None:
                results = list(many([(it.new_forms, it.page) for it in items]))
            else:
                results = [list(self.critic.judge(it.new_forms, it.page)) for it in items]
            for it, verdicts in zip(items, results, strict=True):
                if len(verdicts) != len(it.new_forms):
                    raise ValueError("critic returned a verdict count unlike the forms'")
                it.verdicts = list(verdicts)
        except Exception:
            self._fault("critic")
            for it in items:
                it.verdicts = []
                it.new_forms = []
                it.signatures = []
        _charge(self.stats, "critic", t0)

    def _record(self, it: _Item, links: _Outlinks) -> None:
        """Step 7 (catalogue), the site budget, step 8 (learners), step 9 (collect links)."""
        st, cat, entry, page, seq = self.stats, self.catalogue, it.entry, it.page, it.seq
        t0 = _clock()
        result = it.result
        st.on_topic += it.on_topic
        cat.add_page(self.run_id, seq, page, url=entry.url, site=entry.site, host=entry.host,
                     status=result.status, error=it.error, content_type=result.content_type,
                     depth=entry.depth, page_score=it.score,
                     on_topic=it.on_topic if page is not None else None,
                     n_bytes=len(result.body), elapsed=result.elapsed, parent_url=entry.parent,
                     anchor=entry.anchor, final_url=result.final_url)  # fmt: skip
        self.parents[entry.url] = (entry.parent, entry.anchor)
        self.frontier.done(entry, "fetched" if page is not None else "failed", it.error,
                           time.monotonic())  # fmt: skip
        new_searchable = new_relevant = 0
        hops: list[tuple[str, str]] | None = None
        if page is not None and it.verdicts:
            hops = self.path(entry.url, entry.anchor, entry.parent)
            for form, sig, verdict in zip(it.new_forms, it.signatures, it.verdicts,
                                          strict=True):  # fmt: skip
                if cat.add_form(self.run_id, seq, page, form, verdict, found_after_pages=seq,
                                path=hops, signature=sig) is None:  # fmt: skip
                    continue
                st.forms += 1
                if verdict.searchable:
                    st.searchable += 1
                    new_searchable += 1
                if verdict.relevant:
                    st.relevant += 1
                    new_relevant += 1
        _charge(st, "catalogue", t0)
        self.budget.page(entry.site, new_searchable, new_relevant)
        if page is not None:
            self._redirect_target(page, result, seq)
            if self.learners:
                self._learn(entry, page, it.score or 0.0, it.verdicts, hops)
            self._outlinks(entry, page, it.score or 0.0, it.on_topic, seq, links)

    def _redirect_target(self, page: Page, result: FetchResult, seq: int) -> None:
        if not result.redirects:
            return
        final = canonicalize(page.final_url)
        if final and final != page.url and not self.frontier.seen(final):
            self.store.add(LinkRecord(final, site_of(final), page.depth), host_of(final), 0,
                           math.nan, state="fetched", reason="redirect-target",
                           at_page=seq)  # fmt: skip

    def _learn(self, entry: Entry, page: Page, page_score: float, verdicts: list[Verdict],
               hops: list[tuple[str, str]] | None) -> None:  # fmt: skip
        with self.timer("learn"):
            path = [u for u, _ in (hops or self.path(entry.url, entry.anchor, entry.parent))]
            link = None
            if entry.parent:
                link = LinkRecord(entry.url, entry.site, entry.depth, entry.parent, entry.anchor,
                                  entry.around, entry.parent_score, entry.dom_terms)  # fmt: skip
            outcome = EngineOutcome(page, page_score, verdicts, path, link)
            for name, learner in zip(self._learner_names, self.learners, strict=True):
                try:
                    new = learner.observe(outcome)
                except Exception:
                    self._fault(f"learner:{name}")
                    continue
                if new is not None:
                    self._new_scorer = new  # swapped after the batch's links are stored

    def swap_scorer(self, scorer: LinkScorer) -> None:
        """Use ``scorer`` from now on; re-rank the frontier if settings say so."""
        self.scorer = scorer
        self.components["scorer"] = type(scorer).__name__
        self.stats.learning_iterations += 1
        if self.settings.learning.rerank:
            try:
                n = self.frontier.rerank(scorer)
            except Exception:
                self._fault("rerank")
            else:
                self.stats.reranks += 1
                log.info("frontier re-ranked: %d links in %.2fs", n,
                         self.store.last_rerank_seconds)  # fmt: skip
        self._emit("learn")

    def _outlinks(self, entry: Entry, page: Page, page_score: float, on_topic: bool,
                  seq: int, links: _Outlinks) -> None:  # fmt: skip
        """Collect the page's new outlinks allowed by the follow policy and trap limits."""
        st, fr = self.stats, self.frontier
        policy = self.strategy.follow
        # A seed is followed whatever its score: the user chose it as a way in, and a
        # directory page or portal home often scores off topic though it links on.
        if policy == "on_topic" and not on_topic and entry.depth > 0:
            st.links_not_followed += len(page.links)
            return
        t0 = _clock()
        fs = self.settings.frontier
        depth = entry.depth + 1
        seen = self.store.seen
        dom = self.strategy.dom_terms
        site_limits = self.strategy.site_limits
        last = policy == "on_topic_first" and not on_topic
        max_links = fs.max_links_per_page
        nofollow_ok = fs.follow_nofollow
        on_page: set[str] = set()
        for lk in page.links:
            u = lk.url
            if u in on_page:
                continue
            on_page.add(u)
            if len(on_page) > max_links:
                st.skipped["links-per-page"] += 1
                continue
            if u in seen or u in links.urls:
                continue
            host = host_of(u)
            site = site_of_host(host)
            rec = LinkRecord(u, site, depth, page.url, lk.anchor, lk.around, page_score,
                             " ".join(f"{t}@{d}" for t, d in dom_offset_terms(page, lk))
                             if dom else "")  # fmt: skip
            reason = fr.trap(u, depth)
            if not reason and lk.nofollow and not nofollow_ok:
                reason = "nofollow"
            if not reason and site_limits:
                reason = self.budget.reason(site)
            if reason:
                fr.add_skipped(rec, host, reason, at_page=seq)
                st.skipped[reason] += 1
                continue
            links.add(rec, host, seq, last)
        _charge(st, "frontier", t0)

    def _add_outlinks(self, links: _Outlinks) -> None:
        """Score the batch's new links in one call and persist them (step 9)."""
        if not links.records:
            return
        fr = self.frontier
        with self.timer("score"):
            levels, scores = self._score(links.records)
            if any(links.last):
                levels = np.where(np.asarray(links.last), -1, levels)
                scores = np.where(np.asarray(links.last), np.nan, scores)
        with self.timer("frontier"):
            self.stats.links_new += fr.add_scored(links.records, links.hosts, levels, scores,
                                                  at_page=links.seqs)  # fmt: skip

    def _score(self, cands: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        try:
            levels, scores = self.scorer.score(cands)
            levels, scores = np.asarray(levels), np.asarray(scores, dtype=np.float64)
            if levels.shape != (len(cands),) or scores.shape != (len(cands),):
                raise ValueError("scorer returned arrays of the wrong length")
            return levels, scores
        except Exception:
            self._fault("scorer")
            return np.full(len(cands), -1), np.full(len(cands), np.nan)


async def crawl(settings: Settings, catalogue: Catalogue, *, seeds: Iterable[str] = (),
                resume: bool = False, fetcher: Any = None,
                listeners: Sequence[Listener] = ()) -> CrawlResult:  # fmt: skip
    """Run one crawl (see ``Engine``)."""
    engine = Engine(settings, catalogue, seeds=seeds, resume=resume, fetcher=fetcher)
    for listener in listeners:
        engine.listen(listener)
    return await engine.run()
