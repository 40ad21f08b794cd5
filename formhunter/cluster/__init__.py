"""The same crawl on a Ray cluster (``formhunter crawl --workers N`` / ``--ray-address``).

Only ``formhunter.cluster.driver`` imports Ray (with ``local``, which starts it), and
nothing imports the driver unless a crawl runs on a cluster: the shard and writer logic
are plain classes (``shard``, ``writer``) that the driver runs as actors. Design,
faults and a 100-machine sketch: formhunter/cluster/README.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from formhunter.config import Settings
from formhunter.stats import CrawlResult


def run_cluster_crawl(settings: Settings, *, seeds: Sequence[str], resume: bool, workers: int,
                      address: str | None, listeners: Sequence[Any] = ()
                      ) -> tuple[CrawlResult, dict[str, Any]]:  # fmt: skip
    """Crawl on a Ray cluster: (result, ``Catalogue.stats`` of the run), as ``run_crawl``;
    ``listeners`` as ``ClusterCrawl.listen`` takes them (e.g. a ``CrawlProgress``)."""
    from formhunter.cluster.driver import ClusterCrawl

    crawl = ClusterCrawl(settings, seeds=seeds, resume=resume, workers=workers, address=address)
    for listener in listeners:
        crawl.listen(listener)
    return crawl.run(), crawl.catalogue_stats


__all__ = ["run_cluster_crawl"]
