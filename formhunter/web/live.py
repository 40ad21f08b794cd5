"""Live figures of a crawl run from this process (an ``Engine.listen`` or
``ClusterCrawl.listen`` listener)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from formhunter.stats import CrawlStats


class LiveCrawl(Protocol):
    """What the live figures read of a crawl (an ``Engine``, a ``ClusterCrawl``)."""

    stats: CrawlStats
    run_id: int

#: harvest-curve points kept; beyond it every other point is dropped
MAX_POINTS = 400


class LiveRun:
    """Samples the crawl's stats: the harvest curve (pages, relevant forms) and
    when learning happened. ``snapshot()`` is what ``/api/live`` returns. A cluster's
    "step" (a shard's step report merged) counts as "page"."""

    def __init__(self, max_pages: int = 0) -> None:
        self.max_pages = max_pages
        self.engine: LiveCrawl | None = None
        self.state = "starting"
        self.curve: list[tuple[int, int]] = [(0, 0)]
        self.learned_at: list[int] = []
        self._step = 1

    @property
    def run_id(self) -> int:
        return self.engine.run_id if self.engine is not None else 0

    def __call__(self, event: str, engine: LiveCrawl) -> None:
        self.engine = engine
        event = "page" if event == "step" else event
        st = engine.stats
        if event == "start":
            self.state = "running"
            self.curve = [(st.pages, st.relevant)]
        elif event == "end":
            self.state = "ended"
        elif event == "learn":
            self.learned_at.append(st.pages)
        if (event in ("page", "end", "commit") and st.pages - self.curve[-1][0] >= self._step) \
                or event == "end":  # fmt: skip
            self.curve.append((st.pages, st.relevant))
            if len(self.curve) > MAX_POINTS:
                self.curve = self.curve[::2]
                self._step *= 2

    def snapshot(self) -> dict[str, Any]:
        """The live figures (an empty run while the crawl has not started)."""
        if self.engine is None:
            return {"state": self.state, "run_id": 0, "pages": 0, "curve": []}
        st = self.engine.stats
        curve = [*self.curve]
        if curve[-1][0] != st.pages:
            curve.append((st.pages, st.relevant))
        return {
            "state": self.state, "run_id": self.run_id, "max_pages": self.max_pages,
            "pages": st.pages, "pages_per_second": round(st.pages_per_second, 2),
            "forms": st.forms, "searchable": st.searchable, "relevant": st.relevant,
            "harvest_rate": round(st.harvest_rate, 4), "errors": st.n_errors,
            "learning_iterations": st.learning_iterations, "learned_at": list(self.learned_at),
            "seconds": round(st.seconds, 1), "curve": [list(p) for p in curve],
            "at": time.time(),
        }  # fmt: skip
