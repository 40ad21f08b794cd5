"""ACHE's frontier: in-memory levels (``levels``) over a persistent store (``store``).

``Frontier`` is what the engine talks to:

- ``next(now)``: the best link of the first non-empty level whose host is ready;
  when the in-memory levels run dry they are refilled from the persistent
  frontier (a commit point first, so the store holds every link found so far);
  new links only enter memory through such a refill (ACHE §2.2: links of delayed
  benefit get their turn).
- ``add(...)``: a newly discovered link, persisted (queued, or skipped with a
  reason); ``trap(url, depth)`` says whether a link hits a trap limit.
- ``done(entry, state)``: the fetch of a taken link ended; its host is released.
- ``rerank(scorer)``: every queued link re-scored in bulk; memory refilled.
- ``open_reserve(scorer)``: when nothing else is left, the links kept in reserve
  (outlinks the follow policy did not follow) become queued, re-scored best first.

Crawl policy (what to follow, the per-site stopping criteria in ``SiteBudget``, what to
do when the frontier runs dry, how a run ends) lives in ``formhunter.frontier.policy``.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from formhunter.config import FrontierSettings
from formhunter.frontier.levels import Entry, Levels, ReadyIn
from formhunter.frontier.policy import SiteBudget
from formhunter.frontier.store import FrontierStore, insert_queued, level_of
from formhunter.interfaces import LinkRecord, LinkScorer
from formhunter.urls import canonicalize, host_of, site_of

__all__ = ["Entry", "Frontier", "FrontierStore", "Levels", "SiteBudget", "insert_queued",
           "level_of", "trap"]  # fmt: skip

SEED_SCORE = math.inf
log = logging.getLogger(__name__)


def canonical_seeds(urls: Sequence[str]) -> tuple[list[str], int]:
    """The seeds as canonical http(s) URLs, and how many were not such URLs (each
    logged as ignored)."""
    good: list[str] = []
    for raw in urls:
        url = canonicalize(raw)
        if url is None:
            log.warning("seed %r is not an http(s) URL; ignored", raw)
        else:
            good.append(url)
    return good, len(urls) - len(good)


def trap(url: str, depth: int, s: FrontierSettings) -> str:
    """The trap limit ``url`` hits ("" if none): url-length, depth, repeated-segments."""
    if len(url) > s.max_url_length:
        return "url-length"
    if depth > s.max_depth:
        return "depth"
    start = url.find("/", url.find("//") + 2)
    if start > 0:
        end = len(url)
        for ch in "?#":
            i = url.find(ch, start)
            if 0 <= i < end:
                end = i
        segments = [p for p in url[start:end].split("/") if p]
        if len(segments) > s.max_repeated_segments:
            top = Counter(segments).most_common(1)[0][1]
            if top > s.max_repeated_segments:
                return "repeated-segments"
    return ""


class Frontier:
    """The crawl frontier of one run (module doc).

    ``commit`` is called before a refill or a re-rank so that the store holds
    every link found so far (the engine passes its commit point). With
    ``refill_by_pages`` (the engine's ``crawl.ordered_block``), memory holding only
    links of hosts that must wait is refilled once so many links were done since the
    last refill, not after ``refill_interval`` seconds: the crawl then takes the same
    links however long each step took.
    """

    def __init__(self, store: FrontierStore, settings: FrontierSettings, *, n_levels: int,
                 commit: Callable[[], None], ready_in: ReadyIn | None = None,
                 per_host: int = 1, refill_by_pages: int = 0) -> None:  # fmt: skip
        self.store = store
        self.settings = settings
        self.commit = commit
        kw = {"ready_in": ready_in} if ready_in is not None else {}
        self.levels = Levels(max(n_levels, 1), per_host=per_host, **kw)
        self.inflight: dict[int, Entry] = {}
        self.refills = 0
        self._last_refill = -math.inf
        self.refill_by_pages = refill_by_pages
        self._done_since_refill = 0

    @property
    def n_levels(self) -> int:
        return self.levels.n_levels

    def resize(self, n_levels: int) -> None:
        """Widen to ``n_levels`` levels (memory is refilled on the next ``next``)."""
        if n_levels > self.levels.n_levels:
            old = self.levels
            self.levels = Levels(n_levels, ready_in=old.ready_in, per_host=old.per_host)
            self.levels.busy = old.busy

    # -- adding -----------------------------------------------------------------

    def seen(self, url: str) -> bool:
        return url in self.store.seen

    def in_reserve(self, url: str) -> bool:
        return url in self.store.reserved

    def trap(self, url: str, depth: int) -> str:
        return trap(url, depth, self.settings)

    def add_redirect_target(self, url: str, depth: int, *, at_page: int = 0) -> bool:
        """Where a fetched link redirected: recorded as fetched, so it is not fetched
        again. False if already known."""
        if url in self.store.seen:
            return False
        self.store.add(LinkRecord(url, site_of(url), depth), host_of(url), 0, math.nan,
                       state="fetched", reason="redirect-target", at_page=at_page)  # fmt: skip
        return True

    def add_seeds(self, urls: Sequence[str]) -> int:
        """Seeds as the user gave them (``canonical_seeds``); returns how many are not
        http(s) URLs (ignored, with a warning)."""
        good, bad = canonical_seeds(urls)
        for url in good:
            self.add_seed(url, site_of(url), host_of(url))
        return bad

    def add_seed(self, url: str, site: str, host: str) -> bool:
        """A seed: level 0 with the top score. False if already known."""
        if url in self.store.seen:
            return False
        self.store.add(LinkRecord(url, site, 0), host, 0, SEED_SCORE)
        return True

    def add_scored(self, records: Sequence[LinkRecord], hosts: Sequence[str],
                   levels: np.ndarray, scores: np.ndarray, *,
                   at_page: int | Sequence[int] = 0, state: str = "queued") -> int:  # fmt: skip
        """Persist new links with the scorer's (levels, scores); returns how many were new.
        ``at_page``: the page count when each link was found (one for all, or one each).
        ``state`` "reserve" keeps them aside (``open_reserve``); a queued link that is
        in reserve leaves it."""
        lv = level_of(levels, scores, self.n_levels)
        pages = [at_page] * len(records) if isinstance(at_page, int) else at_page
        n = 0
        seen, add, reserved = self.store.seen, self.store.add, self.store.reserved
        for rec, host, level, score, p in zip(records, hosts, lv.tolist(),
                                              np.asarray(scores, dtype=np.float64).tolist(),
                                              pages, strict=True):  # fmt: skip
            if rec.url in seen and (state != "queued" or rec.url not in reserved):
                continue
            add(rec, host, level, score, state=state, at_page=p)
            n += 1
        return n

    def add_skipped(self, rec: LinkRecord, host: str, reason: str, *, at_page: int = 0) -> None:
        """Persist a link that will not be fetched (trap limit, site closed, policy)."""
        if rec.url not in self.store.seen:
            self.store.add(rec, host, self.n_levels - 1, math.nan, state="skipped",
                           reason=reason, at_page=at_page)  # fmt: skip

    # -- taking -----------------------------------------------------------------

    def refill(self) -> int:
        """Commit, then load the next batch from the store into memory."""
        if self.store.n_unloaded <= 0:
            return 0
        self.commit()
        entries = self.store.load(self.n_levels, self.settings.refill_per_level,
                                  exclude=set(self.inflight))  # fmt: skip
        for e in entries:
            self.levels.push(e)
        self.refills += 1
        return len(entries)

    def next(self, now: float) -> Entry | None:
        """The next link to fetch (its host becomes busy), or None (see ``wait_hint``).

        Memory is refilled when it is empty, or when every link in it waits for a
        busy or not-yet-ready host -- then at most every ``refill_interval`` seconds,
        so that a few slow hosts neither stall the crawl nor cause a refill per step.
        """
        entry = self.levels.pop(now)
        if self.refill_by_pages:
            due = self._done_since_refill >= self.refill_by_pages
        else:
            due = now - self._last_refill >= self.settings.refill_interval
        if entry is None and self.levels.n_queued == 0 and (len(self.levels) == 0 or due):
            self._last_refill = now
            self._done_since_refill = 0
            if self.refill():
                entry = self.levels.pop(now)
        if entry is not None:
            self.inflight[entry.lid] = entry
        return entry

    def done(self, entry: Entry, state: str, reason: str = "", now: float = 0.0) -> None:
        """The fetch of ``entry`` ended with ``state`` (fetched/failed/skipped)."""
        self._done_since_refill += 1
        self.inflight.pop(entry.lid, None)
        self.store.mark(entry.lid, state, reason)
        self.levels.release(entry, now)

    def abandon(self, entry: Entry, now: float = 0.0) -> None:
        """``entry`` was taken but not fetched (e.g. the crawl stops): it stays queued, and
        goes back into memory to be taken again."""
        self.inflight.pop(entry.lid, None)
        self.levels.release(entry, now)
        self.levels.push(entry)

    def wait_hint(self, now: float) -> float | None:
        """Seconds until a parked link's host is due; None if no link is parked."""
        return self.levels.next_wakeup(now)

    @property
    def dry(self) -> bool:
        """Nothing queued is left: memory and store empty, nothing in flight."""
        return not self.inflight and len(self.levels) == 0 and self.store.n_unloaded <= 0

    @property
    def exhausted(self) -> bool:
        """Nothing left to fetch: ``dry`` and no link in reserve."""
        return self.dry and self.store.n_reserve <= 0

    @property
    def n_reserve(self) -> int:
        return self.store.n_reserve

    def reopen_sites(self, sites: Sequence[str], reason: str) -> int:
        """Links of ``sites`` skipped for ``reason`` become queued (a commit first), with
        their old scores until the next ``rerank``; returns how many. Call when the
        frontier is ``dry``."""
        self.commit()
        return self.store.requeue_skipped(sites, reason)

    def open_reserve(self, scorer: LinkScorer) -> int:
        """The links in reserve become queued, re-scored by ``scorer`` (a commit first);
        returns how many. Call when the frontier is ``dry``."""
        if self.store.n_reserve <= 0:
            return 0
        self.commit()
        n = self.store.open_reserve()
        self.rerank(scorer)
        return n

    def __len__(self) -> int:
        """Links waiting: in memory plus not yet loaded."""
        return len(self.levels) + max(self.store.n_unloaded, 0)

    # -- re-ranking -------------------------------------------------------------

    @property
    def last_rerank_seconds(self) -> float:
        """Wall seconds of the last ``rerank``."""
        return self.store.last_rerank_seconds

    def rerank(self, scorer: LinkScorer, promote_below: int = 0) -> int:
        """Re-score every queued link with ``scorer``; memory is emptied and refilled.
        ``promote_below``: links in reserve are re-scored too, and those in a level
        below it queued (``FrontierStore.rerank``)."""
        self.resize(scorer.n_levels + 1)
        self.commit()
        n = self.store.rerank(scorer, self.n_levels, batch=self.settings.rerank_batch,
                              inflight=list(self.inflight),
                              promote_below=promote_below)  # fmt: skip
        self.levels.clear()
        return n
