"""Crawl counters and stage timers (``CrawlStats``, ``Timer``): saved with every commit."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

STAGES = ("fetch_wait", "parse", "classify", "critic", "frontier", "score", "catalogue", "learn",
          "render")
Clock = tuple[float, float]
#: the integer counters of ``CrawlStats`` (saved, restored and merged alike)
COUNTERS = ("pages", "parsed", "on_topic", "forms", "searchable", "relevant", "links_new",
            "links_not_followed", "links_reserved", "reserve_opened", "links_near_form",
            "sites_extended", "learning_iterations", "reranks", "requeued",
            "route_links", "token_reranks", "sitemaps", "sitemap_links")  # fmt: skip


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
    links_reserved: int = 0  # of the links not followed, those kept in the reserve
    reserve_opened: int = 0  # times the reserve was opened (nothing else was queued)
    links_near_form: int = 0  # links of off-topic pages queued: the scorer put them near a form
    sites_extended: int = 0  # times the page limit grew (``[stopping] extend_pages``)
    requeued: int = 0  # fetches that failed for a transient reason, their link queued again
    route_links: int = 0  # new links moved first by the route policy (``policy.SiteRoutes``)
    sitemaps: int = 0  # XML sitemaps read (``fetch.sitemaps``)
    sitemap_links: int = 0  # new frontier links they gave (queued or in reserve)
    # sitemaps refused or not fetched, and their URLs not taken, by kind
    sitemap_errors: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    stage: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    # CPU seconds of this thread per stage (robust to other load on the machine)
    stage_cpu: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    learning_iterations: int = 0
    reranks: int = 0
    token_reranks: int = 0  # re-ranks that scored the links from the store's token ids
    elapsed: float = 0.0  # wall seconds of earlier sessions of this run
    session_pages: int = 0  # pages fetched in this session
    started: float = field(default_factory=time.monotonic)
    cpu_started: float = field(default_factory=time.process_time)
    ended: tuple[float, float] | None = None  # (monotonic, process CPU) when the session ended
    # CPU seconds the parse workers (crawl.parse_workers) spent parsing in this session:
    # other processes, so not in cpu_seconds
    worker_cpu: float = 0.0
    parsed_off_loop: int = 0  # pages of this session parsed in a thread (parse.off_loop_bytes)

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
            "links_reserved": self.links_reserved, "reserve_opened": self.reserve_opened,
            "links_near_form": self.links_near_form, "sites_extended": self.sites_extended,
            "requeued": self.requeued, "route_links": self.route_links,
            "sitemaps": self.sitemaps, "sitemap_links": self.sitemap_links,
            "sitemap_errors": dict(self.sitemap_errors), "errors": dict(self.errors),
            "skipped": dict(self.skipped),
            "faults": dict(self.faults), "stage": {k: round(v, 4) for k, v in self.stage.items()},
            "stage_cpu": {k: round(v, 4) for k, v in self.stage_cpu.items()},
            "learning_iterations": self.learning_iterations, "reranks": self.reranks,
            "token_reranks": self.token_reranks,
            "elapsed": round(self.elapsed + self.seconds, 3),
        }  # fmt: skip

    def merge(self, d: dict[str, Any]) -> None:
        """Add another crawl's counters (``to_dict``: e.g. a cluster shard's step) to these:
        every counter, error, skip, fault and stage time."""
        for k in COUNTERS:
            setattr(self, k, getattr(self, k) + int(d.get(k, 0)))
        self.errors.update(d.get("errors", {}))
        self.skipped.update(d.get("skipped", {}))
        self.faults.update(d.get("faults", {}))
        self.sitemap_errors.update(d.get("sitemap_errors", {}))
        for key in ("stage", "stage_cpu"):
            acc = getattr(self, key)
            for k, v in d.get(key, {}).items():
                acc[k] = acc.get(k, 0.0) + float(v)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CrawlStats:
        s = cls()
        for k in COUNTERS:
            setattr(s, k, int(d.get(k, 0)))
        s.elapsed = float(d.get("elapsed", 0.0))
        s.errors.update(d.get("errors", {}))
        s.skipped.update(d.get("skipped", {}))
        s.faults.update(d.get("faults", {}))
        s.sitemap_errors.update(d.get("sitemap_errors", {}))
        s.stage.update({k: float(v) for k, v in d.get("stage", {}).items()})
        s.stage_cpu.update({k: float(v) for k, v in d.get("stage_cpu", {}).items()})
        return s


@dataclass(frozen=True)
class CrawlResult:
    """How a crawl ended: ``reason`` is budget, exhausted (nothing fetchable left),
    site-limits (what was left, the per-site stopping criteria closed), not-followed
    (what was left, the follow policy did not follow: ``frontier.reserve`` off),
    time-limit or interrupted."""

    run_id: int
    reason: str
    stats: CrawlStats

    @property
    def status(self) -> str:
        return "interrupted" if self.reason == "interrupted" else "finished"


def clock() -> Clock:
    """(wall, thread CPU) now: a stage is charged both."""
    return time.perf_counter(), time.thread_time()


def charge(stats: CrawlStats, key: str, t0: Clock, minus: Clock = (0.0, 0.0)) -> None:
    """Charge stage ``key`` the time since ``t0`` (less ``minus``), wall and CPU."""
    stats.stage[key] += time.perf_counter() - t0[0] - minus[0]
    stats.stage_cpu[key] += time.thread_time() - t0[1] - minus[1]


class Timer:
    """Context manager charging a stage its wall and CPU seconds."""

    __slots__ = ("key", "stats", "t0")

    def __init__(self, stats: CrawlStats, key: str) -> None:
        self.stats, self.key = stats, key
        self.t0: Clock = (0.0, 0.0)

    def __enter__(self) -> None:
        self.t0 = clock()

    def __exit__(self, *exc: object) -> None:
        charge(self.stats, self.key, self.t0)
