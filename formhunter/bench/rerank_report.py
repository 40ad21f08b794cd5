"""``formhunter bench rerank``: retrain the link learners and re-rank frontiers of 10k..10M links.

Prints, for each learned scorer (ACHE's multi-level link classifier, the
apprentice layer, the CFC URL scorer):

1. the seconds to retrain on 100..1000 paths;
2. the seconds to re-score frontiers of each size up to ``--distinct`` links with
   ``score_frame`` over Arrow record batches of 50k links held in memory (the
   text path), with links per second and how the time grows with the size;
3. ``score(list[LinkRecord])`` on 10k records (a page's outlinks);
4. (``--no-store`` to skip) what a crawl does at a learning iteration, on a real
   frontier table in an on-disk DuckDB catalogue holding each size of queued
   links: retrain on the largest ``--paths``, ``Frontier.rerank`` with the new
   scorer (read, score, UPDATE level/score) and the first ``next()`` (refill from
   the store), separately and in total, with the peak memory. Each size is re-ranked
   through the links' text (sizes up to ``--text-max``: the path before the frontier
   kept token ids), then from token ids: the first such re-rank tokenises every
   link in the spaces its scorer reads (what a crawl pays once, and again after a
   resume; a later scorer reading another space tokenises that one), later ones read
   the ids. Catalogues are filled in a child process and each size is re-ranked in a
   new process, so the memory figures are the re-rank's own.

Links are synthetic but shaped like real ones (``formhunter.bench.rerank``); past the
first ``--distinct`` links, the text repeats under distinct URLs.

    formhunter bench rerank [--sizes 10000,100000,1000000] [--batch 50000]
        [--paths 100,300,1000] [--no-store] [--text-max 1000000] [--distinct 1000000]
        [--scorers link-classifier,apprentice-layer,cfc] [--db-memory-mb MB]
"""

from __future__ import annotations

import copy
import dataclasses
import multiprocessing
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa

from classifiers.apprentice import Apprentice
from classifiers.link_classifier import MultiLevelLinkClassifier
from classifiers.url_scorer import ConservativeURLScorer
from formhunter.bench.rerank import (
    StoredFrontier,
    StoreRerank,
    fill_frontier,
    link_batches,
    link_classifier,
    read_pool,
    repeat_batches,
    retrainers,
    synthetic_frame,
    training_paths,
    write_pool,
)
from formhunter.config import CrawlSettings, FrontierSettings
from formhunter.interfaces import LinkRecord, LinkScorer
from formhunter.learners import ApprenticeScorer, CFCScorer, LinkClassifierScorer


def timed(fn: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def _fill(pool_file: Path, plan: Sequence[tuple[Path, int]]) -> list[tuple[int, float]]:
    """(In a child process.) Fill a catalogue per (path, size) from the pool's links; the
    run id and seconds of each."""
    pool = read_pool(pool_file)
    out = []
    for db, n in plan:
        t0 = time.perf_counter()
        out.append((fill_frontier(db, repeat_batches(pool, n), n), time.perf_counter() - t0))
    return out


@dataclasses.dataclass(frozen=True)
class Row:
    """One learning iteration's figures (``StoreRerank``) as the child process reports them."""

    scorer: str
    kind: str  # text, tokens, first, tokens
    links: int
    retrain_s: float
    rerank_s: float
    rerank_cpu_s: float
    refill_s: float
    total_s: float
    start_rss: int
    peak_rss: int
    tokens: int  # bytes of token ids kept


def _row(name: str, kind: str, r: StoreRerank, tokens: int) -> Row:
    return Row(name, kind, r.links, r.retrain_s, r.rerank_s, r.rerank_cpu_s, r.refill_s,
               r.total_s, r.start_rss, r.peak_rss, tokens)  # fmt: skip


def _iterations(db: Path, run_id: int, n: int, paths: Sequence[int], batch: int,
                text_max: int, scorers: Sequence[str], memory_mb: int | None
                ) -> list[Row]:  # fmt: skip
    """(In a new process per size.) Each scorer's learning iterations on one stored
    frontier: through the text (up to ``text_max`` links), then from token ids; a
    re-rank that tokenised (the spaces its scorer reads that no earlier one read) is
    "tokens, first", and another follows."""
    train = {k: v for k, v in retrainers(paths).items() if k in scorers}
    rows: list[Row] = []
    with StoredFrontier(db, run_id, FrontierSettings(rerank_batch=batch), memory_mb) as sf:
        for name, retrain in train.items():
            if n <= text_max:
                r = sf.iteration(retrain, text=True)
                rows.append(_row(name, "text", r, sf.store.tokens.nbytes))
            before = sf.store.tokens.nbytes
            r = sf.iteration(retrain)
            first = sf.store.tokens.nbytes > before
            rows.append(_row(name, "tokens, first" if first else "tokens", r,
                             sf.store.tokens.nbytes))  # fmt: skip
            if first:
                r = sf.iteration(retrain)
                rows.append(_row(name, "tokens", r, sf.store.tokens.nbytes))
    return rows


def bench_store(pool: list[pa.Table], sizes: Sequence[int], paths: Sequence[int],
                batch: int, text_max: int, scorers: Sequence[str],
                memory_mb: int | None = None) -> None:  # fmt: skip
    """Section 4 (module doc): one catalogue per size, each scorer in turn on it. The
    catalogues are filled in a child process, and each size is re-ranked in a new one
    (spawned: nothing inherited), so the peak memory is the re-rank's own process's:
    the interpreter, the models, the store and DuckDB, not this process's links."""
    mb = CrawlSettings().db_memory_mb if memory_mb is None else memory_mb
    print(f"\n== learning iteration on a frontier stored in DuckDB: retrain on "
          f"{paths[-1]:,} paths + Frontier.rerank (batches of {batch:,}) + first next();"
          f" DuckDB memory limit {f'{mb:,} MB' if mb else 'its own (80% of RAM)'} ==")
    spawn = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="bench_rerank_") as tmp:
        pool_file = Path(tmp) / "pool.arrow"
        write_pool(pool, pool_file)
        pool.clear()  # the links' text is in the file now, not in this process
        plan = [(Path(tmp) / f"frontier_{n}.duckdb", n) for n in sizes]
        with ProcessPoolExecutor(1, mp_context=spawn) as ex:
            filled = ex.submit(_fill, pool_file, plan).result()
        pool_file.unlink()
        for (db, n), (_, secs) in zip(plan, filled, strict=True):
            print(f"(stored {n:,} queued links in {db.name} in {secs:.1f} s)")
        print(f"{'scorer':<17} {'links':>10} {'path':<13} {'retrain s':>9} {'re-rank s':>9} "
              f"{'(CPU s)':>8} {'refill s':>8} {'total s':>8} {'links/s':>10} {'start MB':>8} "
              f"{'peak MB':>8} {'tokens MB':>9}")  # fmt: skip
        for (db, n), (run_id, _) in zip(plan, filled, strict=True):
            with ProcessPoolExecutor(1, mp_context=spawn) as ex:
                rows = ex.submit(_iterations, db, run_id, n, paths, batch, text_max, scorers,
                                 memory_mb).result()  # fmt: skip
            for r in rows:
                print(f"{r.scorer:<17} {r.links:>10,} {r.kind:<13} {r.retrain_s:>9.2f} "
                      f"{r.rerank_s:>9.2f} {r.rerank_cpu_s:>8.2f} {r.refill_s:>8.2f} "
                      f"{r.total_s:>8.2f} {r.links / r.total_s:>10,.0f} "
                      f"{r.start_rss / 2**20:>8,.0f} {r.peak_rss / 2**20:>8,.0f} "
                      f"{r.tokens / 2**20:>9,.0f}", flush=True)  # fmt: skip
            db.unlink()
    print("(path text: the links' text read and scored with score_frame, as before the "
          "frontier kept token ids;\n tokens, first: the first re-rank, which tokenises "
          "every queued link in the spaces its scorer reads, not read before (after a start "
          "or a resume); tokens: later re-ranks;\n "
          "CPU s: the re-rank's, every thread (wall on a quiet machine is about that);\n "
          "links/s = links / total s; each size in a process of its own: start MB its "
          "resident memory when the iteration began, peak MB its peak during the "
          "iteration (VmHWM);\n tokens MB: the token ids kept)")


SCORERS = ("link-classifier", "apprentice-layer", "cfc")


def run(sizes: Sequence[int], paths: Sequence[int], batch: int = 50_000,
        store: bool = True, text_max: int = 1_000_000, distinct: int = 1_000_000,
        scorers: Sequence[str] = SCORERS, memory_mb: int | None = None) -> int:
    """Print the figures (module doc) for frontiers of ``sizes`` links, retraining on
    ``paths`` paths, scoring Arrow batches of ``batch`` links; ``memory_mb``: DuckDB's
    memory limit in the store section (None: a crawl's, ``[crawl] db_memory_mb``)."""
    n_levels = 3

    print("== retrain (AFS + multi-level naive Bayes; apprentice and CFC batches) ==")
    print(f"{'paths':>6} {'instances':>9} {'link-clf s':>10} {'apprentice s':>12} {'cfc s':>7}")
    model: MultiLevelLinkClassifier | None = None
    app = Apprentice()
    cfc = ConservativeURLScorer()
    for n_paths in paths:
        frame, levels = training_paths(n_paths, n_levels, seed=n_paths)
        t_lc, model = timed(link_classifier, frame, levels, n_levels)
        y = (levels < n_levels).astype(float)
        t_app, _ = timed(app.partial_fit, frame, y)
        t_cfc, _ = timed(cfc.partial_fit, frame, y)
        print(f"{n_paths:>6} {len(frame):>9} {t_lc:>10.3f} {t_app:>12.3f} {t_cfc:>7.3f}")
    assert model is not None
    feats = model.features_
    print("features chosen:", {s: feats[s][:6] for s in feats})

    def fresh() -> dict[str, LinkScorer]:
        # a new copy per frontier size, so no size profits from another's token memo
        m = copy.deepcopy(model)
        return {
            "link-classifier": LinkClassifierScorer(m),
            "apprentice-layer": ApprenticeScorer(copy.deepcopy(app), LinkClassifierScorer(m)),
            "cfc": CFCScorer(copy.deepcopy(cfc)),
        }

    t0 = time.perf_counter()
    links = list(link_batches(min(max(sizes), distinct), batch))
    print(f"\n(built {min(max(sizes), distinct):,} distinct synthetic links in "
          f"{time.perf_counter() - t0:.0f} s; more repeat their text under new URLs)")
    print(f"== re-rank: score_frame over Arrow batches of {batch:,} links "
          "(to_pandas included, as the frontier store does) ==")
    print(f"{'scorer':<17} {'links':>9} {'seconds':>8} {'links/s':>10} {'x time':>7} "
          f"{'x links':>7}")  # fmt: skip
    for name in [k for k in fresh() if k in scorers]:
        prev: tuple[int, float] | None = None
        for n in sizes:
            if n > distinct:
                continue
            scorer = fresh()[name]
            t0 = time.perf_counter()
            count = 0
            for table in links:
                if count >= n:
                    break
                b = table.slice(0, n - count).to_pandas()
                lv, _ = scorer.score_frame(b)
                count += len(lv)
            dt = time.perf_counter() - t0
            growth = f"{dt / prev[1]:>7.1f} {n / prev[0]:>7.0f}" if prev else f"{'':>7} {'':>7}"
            print(f"{name:<17} {count:>9,} {dt:>8.2f} {count / dt:>10,.0f} {growth}")
            prev = (n, dt)
    chosen = {k: v for k, v in fresh().items() if k in scorers}
    # the LinkRecord path (the pipeline scoring a page's new outlinks) for comparison
    f = synthetic_frame(10_000, 99)
    recs = [LinkRecord(u, s, int(d), p, a, ar, float(ps), dt) for u, s, d, p, a, ar, ps, dt in
            zip(f.url, f.site, f.depth, f.parent, f.anchor, f.around, f.parent_score,
                f.dom_terms, strict=True)]  # fmt: skip
    print("\n== score(list[LinkRecord]) on 10,000 records (a page's outlinks, many pages) ==")
    for name, scorer in chosen.items():
        dt, _ = timed(scorer.score, recs)
        print(f"{name:<17} {dt:>8.3f} s  ({len(recs) / dt:,.0f} links/s)")
        small = recs[:100]
        dt, _ = timed(scorer.score, small)
        print(f"{'':<17} {dt * 1000:>8.2f} ms for one page of 100 links")
    if store:
        bench_store(links, sizes, paths, batch, text_max, scorers, memory_mb)
    return 0

