"""The frontier family (``interfaces.CrawlFrontier``), registered by name (kind "frontier";
``Strategy.frontier`` chooses). Factories take the context keys they name: ``store``
(the run's ``FrontierStore``), ``settings``, ``ready_in`` (politeness), ``per_host``,
``n_levels`` (what the link scorer needs), ``learners`` (the crawl's, built before the
frontier), ``resumed``, ``random_state``.

- ``levels`` (default): ACHE's multi-level frontier (``formhunter.frontier.Frontier``);
- ``tree``: TRES's Tree-Frontier, driven by the crawl's ``tres`` learner
  (``formhunter.tres.learner.TreeLearner``), which featurises its links and picks
  among its per-leaf candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from formhunter.config import Settings
from formhunter.exceptions import ConfigError
from formhunter.frontier import Frontier, FrontierStore
from formhunter.frontier.levels import ReadyIn
from formhunter.interfaces import CrawlFrontier, Learner
from formhunter.registry import register


@register("frontier", "levels")
def _levels(store: FrontierStore, settings: Settings, n_levels: int,
            ready_in: ReadyIn | None = None, per_host: int = 1, **_: Any) -> Frontier:  # fmt: skip
    return Frontier(store, settings.frontier, n_levels=n_levels, ready_in=ready_in,
                    per_host=per_host, refill_by_pages=settings.crawl.ordered_block)  # fmt: skip


@register("frontier", "tree")
def _tree(store: FrontierStore, settings: Settings, learners: Sequence[Learner] = (),
          ready_in: ReadyIn | None = None, per_host: int = 1, resumed: bool = False,
          **_: Any) -> CrawlFrontier:  # fmt: skip
    from formhunter.tres.learner import TreeLearner

    owners = [x for x in learners if isinstance(x, TreeLearner)]
    if len(owners) != 1:
        raise ConfigError("the tree frontier needs exactly one 'tres' learner in the strategy")
    return owners[0].open_frontier(store, settings.frontier, ready_in=ready_in,
                                   per_host=per_host, resumed=resumed)  # fmt: skip
