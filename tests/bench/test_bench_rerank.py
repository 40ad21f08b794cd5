"""The re-rank benchmark's store path at a tiny size: a learned link classifier
retrained, a frontier stored in DuckDB re-ranked with it, memory refilled."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from formhunter.bench.rerank import (
    StoredFrontier,
    fill_frontier,
    link_batches,
    repeat_batches,
    retrainers,
    store_rerank,
)
from formhunter.bench.rerank_report import bench_store
from formhunter.catalogue import Catalogue
from formhunter.config import CrawlSettings, FrontierSettings
from formhunter.frontier import level_of
from formhunter.learners import LinkClassifierScorer


def test_store_rerank_with_the_learned_link_classifier(tmp_path: Path) -> None:
    n = 2000
    db = tmp_path / "frontier.duckdb"
    run = fill_frontier(db, link_batches(n + 500, 700), n)  # four tables; the last one cut
    res = store_rerank(db, run, retrainers((20, 50))["link-classifier"],
                       FrontierSettings(rerank_batch=600, refill_per_level=50))  # fmt: skip
    assert isinstance(res.scorer, LinkClassifierScorer) and res.links == n
    assert min(res.retrain_s, res.rerank_s, res.refill_s) > 0
    assert res.total_s == res.retrain_s + res.rerank_s + res.refill_s

    with Catalogue(db, read_only=True) as cat:
        rows = cat.con.sql(
            "SELECT lid, url, site, depth, parent, anchor, around, parent_score, dom_terms,"
            " level, score, loaded FROM frontier WHERE run_id = ? AND state = 'queued'"
            " ORDER BY lid", params=[run],
        ).to_arrow_table()  # fmt: skip
    assert rows.num_rows == n and rows.column("lid").to_pylist() == list(range(1, n + 1))
    assert rows.column("score").null_count == 0  # stored unscored: every link was re-scored
    # every level and score is the learned scorer's, clipped into the frontier's levels
    lv, sc = res.scorer.score_frame(rows.select(range(9)).to_pandas())
    n_levels = res.scorer.n_levels + 1
    stored_lv = rows.column("level").to_numpy()
    assert np.array_equal(stored_lv, level_of(lv, sc, n_levels))
    assert np.allclose(rows.column("score").to_numpy(), sc)
    assert len(set(stored_lv.tolist())) > 1  # the classifier tells links apart

    first = res.first
    assert first is not None  # the refill after the re-rank gives a link
    top = int(stored_lv.min())
    assert first.level == top
    assert first.score == rows.column("score").to_numpy()[stored_lv == top].max()
    assert first.url == rows.column("url")[first.lid - 1].as_py()
    loaded = rows.column("loaded").to_numpy(zero_copy_only=False)
    assert 0 < loaded.sum() <= 50 * n_levels and loaded[first.lid - 1]


def test_stored_frontier_text_then_tokens_and_repeated_links(tmp_path: Path) -> None:
    """The bench's before/after on one frontier: the text path, then token ids (the
    first re-rank tokenises, the next reads the ids); links past the pool repeat its
    text under distinct URLs."""
    pool = list(link_batches(600, 250))
    links = list(repeat_batches(pool, 1500))
    urls = [u for t in links for u in t.column("url").to_pylist()]
    assert len(urls) == 1500 and len(set(urls)) == 1500
    assert links[3].column("anchor").equals(pool[0].column("anchor"))
    db = tmp_path / "frontier.duckdb"
    run = fill_frontier(db, iter(links), 1500)
    retrain = retrainers((20, 50))["apprentice-layer"]
    with StoredFrontier(db, run, FrontierSettings(rerank_batch=400)) as sf:
        # a crawl's connection: DuckDB's memory limit [crawl] db_memory_mb
        size, unit = sf.cat.con.execute("SELECT current_setting('memory_limit')"
                                        ).fetchall()[0][0].split()  # fmt: skip
        assert float(size) * {"MiB": 1, "GiB": 1024}[unit] == CrawlSettings().db_memory_mb
        text = sf.iteration(retrain, text=True)
        assert sf.store.tokens.n_rows == 0  # the text path keeps no token ids
        first = sf.iteration(retrain)
        assert sf.store.tokens.n_rows == 1500
        again = sf.iteration(retrain)
        assert sf.store.tokens.n_rows == 1500  # nothing tokenised twice
    for r in (text, first, again):
        assert r.links == 1500 and r.rerank_cpu_s > 0 and r.first is not None
        assert 0 < r.start_rss <= r.peak_rss
    assert text.first is not None and again.first is not None
    assert (text.first.lid, text.first.level) == (again.first.lid, again.first.level)


def test_bench_store_fills_and_reranks_in_processes_of_their_own(
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """The store section fills its catalogues in a child process and re-ranks each size
    in a new one, so its memory figures are not this process's: every iteration is
    printed with the child's resident memory at its start and its peak."""
    pool = list(link_batches(500, 200))
    bench_store(pool, [500], (20, 50), 200, 1000, ["link-classifier"], memory_mb=64)
    assert pool == []  # written to a file for the child; not held here
    out = capsys.readouterr().out
    assert "DuckDB memory limit 64 MB" in out and "(stored 500 queued links" in out
    rows = [line for line in out.splitlines() if line.startswith("link-classifier")]
    assert [r[29:42].strip() for r in rows] == ["text", "tokens, first", "tokens"]
    for r in rows:
        start_mb, peak_mb = (int(x.replace(",", "")) for x in r.split()[-3:-1])
        assert 0 < start_mb <= peak_mb
