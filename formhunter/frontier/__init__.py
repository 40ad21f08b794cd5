"""The frontier as a store and a selector (Frontera, ACHE).

- ``store.FrontierStore``: every link of a run in the catalogue's DuckDB: rows, states,
  the reserve, and the SQL that loads, re-scores and re-queues them. It flushes itself
  inside the catalogue's commit (a catalogue flusher) and, before a read, writes its
  buffered new links itself: nothing here calls the engine or receives a commit.
- A selector (``interfaces.CrawlFrontier``) decides which stored link is fetched next:
  ``Frontier`` (ACHE's multi-level frontier: in-memory ``levels`` refilled from the
  store, registered as "levels") or ``formhunter.tres.TreeFrontier`` ("tree"). It adds
  the links the pipeline keeps (through the store), hands them out with politeness
  (``next``), hears how each fetch ended (``done``) and re-ranks on a new scorer.

``Frontier`` in detail:

- ``next(now)``: the best link of the first non-empty level whose host is ready;
  when the in-memory levels run dry they are refilled from the store; new links only
  enter memory through such a refill (ACHE §2.2: links of delayed benefit get their
  turn).
- ``add_scored(...)``: newly discovered links, persisted (queued or in reserve).
- ``done(entry, state)``: the fetch of a taken link ended; its host is released.
- ``rerank(scorer)``: every queued link re-scored in bulk; memory refilled.

Crawl policy (what to follow, the per-site stopping criteria in ``SiteBudget``, what to
do when the frontier runs dry -- re-queue a site's skipped links, open the reserve --
and how a run ends) lives in ``formhunter.frontier.policy``; ``add_seeds`` puts
the user's seeds into any selector.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np

from formhunter.config import FrontierSettings
from formhunter.frontier.levels import Levels, ReadyIn
from formhunter.frontier.policy import SiteBudget, trap
from formhunter.frontier.store import FrontierStore, insert_queued, level_of
from formhunter.interfaces import CrawlFrontier, LinkScorer, RoutesFirst
from formhunter.model import Entry, LinkRecord
from formhunter.urls import canonicalize, host_of, site_of

__all__ = ["SEED_SCORE", "Entry", "Frontier", "FrontierStore", "Levels", "SiteBudget",
           "add_seeds", "insert_queued", "level_of", "trap"]  # fmt: skip

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


def add_seeds(frontier: CrawlFrontier, urls: Sequence[str]) -> int:
    """Seeds as the user gave them (``canonical_seeds``), added to ``frontier`` at level 0
    with ``SEED_SCORE`` (known ones are not added again); returns how many are not
    http(s) URLs (ignored, with a warning)."""
    good, bad = canonical_seeds(urls)
    if good:
        recs = [LinkRecord(u, site_of(u), 0) for u in good]
        frontier.add_scored(recs, [host_of(u) for u in good], np.zeros(len(good), np.int64),
                            np.full(len(good), SEED_SCORE))  # fmt: skip
    return bad


class Frontier:
    """ACHE's multi-level selector over a ``FrontierStore`` (module doc).

    With ``refill_by_pages`` (the engine's ``crawl.ordered_block``), memory holding only
    links of hosts that must wait is refilled once so many links were done since the
    last refill, not after ``refill_interval`` seconds: the crawl then takes the same
    links however long each step took.
    """

    takes_back = True

    def __init__(self, store: FrontierStore, settings: FrontierSettings, *, n_levels: int,
                 ready_in: ReadyIn | None = None, per_host: int = 1,
                 refill_by_pages: int = 0) -> None:  # fmt: skip
        self.store = store
        self.settings = settings
        kw = {"ready_in": ready_in} if ready_in is not None else {}
        self.levels = Levels(max(n_levels, 1), per_host=per_host, **kw)
        store.skip_level = self.levels.n_levels - 1
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
            self.store.skip_level = n_levels - 1

    # -- adding -----------------------------------------------------------------

    def add_scored(self, records: Sequence[LinkRecord], hosts: Sequence[str],
                   levels: np.ndarray, scores: np.ndarray, *,
                   at_page: int | Sequence[int] = 0, state: str = "queued") -> int:  # fmt: skip
        """Persist new links with the scorer's (levels, scores); returns how many were new.
        ``at_page``: the page count when each link was found (one for all, or one each).
        ``state`` "reserve" keeps them aside (the policy opens the reserve); a queued link
        that is in reserve leaves it. A link the store does not keep (a cluster shard's
        store routes other shards' links) is not counted."""
        lv = level_of(levels, scores, self.n_levels)
        pages = [at_page] * len(records) if isinstance(at_page, int) else at_page
        n = 0
        store = self.store
        seen, add, in_reserve = store.seen, store.add, store.in_reserve
        for rec, host, level, score, p in zip(records, hosts, lv.tolist(),
                                              np.asarray(scores, dtype=np.float64).tolist(),
                                              pages, strict=True):  # fmt: skip
            if rec.url in seen and (state != "queued" or not in_reserve(rec.url)):
                continue
            if add(rec, host, level, score, state=state, at_page=p):
                n += 1
        return n

    # -- taking -----------------------------------------------------------------

    def refill(self) -> int:
        """Load the next batch from the store into memory."""
        if self.store.n_unloaded <= 0:
            return 0
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

    def __len__(self) -> int:
        """Links waiting: in memory plus not yet loaded."""
        return len(self.levels) + max(self.store.n_unloaded, 0)

    # -- re-ranking -------------------------------------------------------------

    def rerank(self, scorer: LinkScorer, promote_below: int = 0,
               routes: RoutesFirst | None = None) -> int:  # fmt: skip
        """Re-score every queued link with ``scorer``, the links ``routes`` chooses first;
        memory is emptied and refilled. ``promote_below``: links in reserve are re-scored
        too, and those in a level below it queued (``FrontierStore.rerank``)."""
        self.resize(scorer.n_levels + 1)
        fs = self.settings
        n = self.store.rerank(scorer, self.n_levels, batch=fs.rerank_batch,
                              chunk=fs.rerank_chunk, inflight=list(self.inflight),
                              promote_below=promote_below, routes=routes)  # fmt: skip
        self.levels.clear()
        return n
