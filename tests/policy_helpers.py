"""Helpers of the crawl policy's tests: a policy over a real frontier store."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from formhunter.catalogue import Catalogue
from formhunter.config import Settings
from formhunter.frontier import Frontier, FrontierStore
from formhunter.frontier.policy import CrawlPolicy, SiteBudget
from formhunter.interfaces import RecordScorer
from formhunter.stats import CrawlStats
from formhunter.strategies import get_strategy


class FlatScorer(RecordScorer):
    """Every link at ``level`` with ``score``."""

    def __init__(self, level: int, score: float, n_levels: int) -> None:
        self.level, self.value, self.n_levels = level, score, n_levels

    def score(self, links: object) -> tuple[np.ndarray, np.ndarray]:
        n = len(links)  # type: ignore[arg-type]
        return np.full(n, self.level, dtype=np.int64), np.full(n, self.value)


def policy_over_store(tmp_path: Path, settings: Settings, scorer: FlatScorer, *,
                      strategy: str, domain: str, n_levels: int
                      ) -> tuple[CrawlPolicy, Frontier, Catalogue]:  # fmt: skip
    """A policy, its multi-level frontier and the catalogue (a real DuckDB file in
    ``tmp_path``) of a new run."""
    cat = Catalogue(tmp_path / "c.duckdb")
    run, _ = cat.open_run(domain=domain, strategy=strategy, max_pages=100, config={},
                          seeds=[], resume=False)
    store = FrontierStore(cat.con, run)
    cat.add_flusher(store.flush)
    fr = Frontier(store, settings.frontier, n_levels=n_levels)
    policy = CrawlPolicy(settings, get_strategy(strategy), frontier=fr, store=store,
                         budget=SiteBudget(settings.stopping), stats=CrawlStats(),
                         scorer=lambda: scorer)  # fmt: skip
    return policy, fr, cat
