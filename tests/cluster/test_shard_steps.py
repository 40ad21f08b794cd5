"""A shard's steps without Ray: ``ShardWorker`` over a real ``CatalogueWriter`` file and
the loopback simulated web (slow pages wait 0.3 s). Fetches in flight at a step's end
carry over to the next step: the step returns at its time slice, never waiting for a
slow page, and the pages recorded plus those carried never exceed an allowance. The
writer keeps the read snapshot at the run's commit points, as one process does."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pyarrow as pa

from formhunter.catalogue import Catalogue
from formhunter.cluster.shard import ShardWorker, StepReport
from formhunter.cluster.writer import CatalogueWriter
from formhunter.config import load_settings
from formhunter.simweb import ProxyHandle

BUDGET = 60


def test_fetches_in_flight_carry_over_to_the_next_step(simweb_proxy: ProxyHandle,
                                                       tmp_path: Path) -> None:  # fmt: skip
    db = tmp_path / "s.duckdb"
    settings = load_settings(None, {
        "crawl": {"domain": "hotel", "strategy": "bfs", "max_pages": BUDGET, "db": str(db),
                  "snapshot_every_seconds": 0},
        "fetch": {"proxy": simweb_proxy.url, "min_delay": 0.0, "concurrency": 16,
                  "retries": 0, "read_timeout": 2.0, "total_timeout": 5.0},
    })  # fmt: skip
    # a snapshot is due at every commit (0.001 s), the commit points 30 pages apart
    writer = CatalogueWriter(str(db), 0.001, commit_every=(30, 1000.0))
    seeds = simweb_proxy.web.seeds("hotel", 5)
    run_id, _, _, seeds = writer.open_run(domain="hotel", strategy="bfs", max_pages=BUDGET,
                                          config=settings.to_dict(), seeds=seeds,
                                          resume=False)  # fmt: skip

    async def ship(k: int, tables: dict[str, pa.Table]) -> int:
        return writer.write(k, tables)

    async def load_model(ref: Any) -> Any:
        raise AssertionError("no model is broadcast to a bfs crawl")

    async def crawl() -> list[tuple[int, float, StepReport]]:
        shard = ShardWorker(0, 1, settings, run_id, seeds, writer.shard_state(0, 1), ship=ship,
                            learn=None, load_model=load_model)  # fmt: skip
        steps, carried, recorded = [], 0, 0
        try:
            while recorded < BUDGET:  # the driver's accounting (``_Dispatch.hand_out``)
                allowance = carried + min(BUDGET - recorded - carried, 12)
                t0 = asyncio.get_running_loop().time()
                rep = await shard.step(allowance, [], recorded, (0, []), 0.05)
                steps.append((allowance, asyncio.get_running_loop().time() - t0, rep))
                assert rep.pages + rep.in_flight <= allowance, steps[-1]
                carried, recorded = rep.in_flight, recorded + rep.pages
                if rep.pages:
                    assert rep.committed == recorded  # the writer's count after the commit
                assert len(steps) < 500, "the crawl did not reach its budget"
            assert carried == 0
        finally:
            await shard.close()
        return steps

    steps = asyncio.run(crawl())
    # the one when the run opened, then at most one per 30 pages (60: one or two)
    assert writer.snapshots in (2, 3) and writer.writes > 3, writer.cost()
    writer.close()
    # steps ended with fetches in flight (slow pages among them), and no step waited
    # for a slow page beyond its slice (0.05 s; 0.3 s slow pages; generous for load)
    assert any(rep.in_flight for _, _, rep in steps), steps
    assert max(sec for _, sec, _ in steps) < 2.0
    with Catalogue(db, read_only=True) as cat:
        n, urls, seqs, hi = cat.con.execute(
            "SELECT count(*), count(DISTINCT url), count(DISTINCT seq), max(seq) FROM pages"
        ).fetchall()[0]  # fmt: skip
        done = cat.con.execute("SELECT count(*) FROM frontier WHERE state IN ('fetched', "
                               "'failed') AND url IN (SELECT url FROM pages)").fetchall()[0][0]
    assert (n, urls, seqs, hi) == (BUDGET, BUDGET, BUDGET, BUDGET)
    assert done == BUDGET  # each page's link marked done in its step's commit
