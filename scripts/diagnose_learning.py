#!/usr/bin/env python
"""Diagnosis: why does ACHE learn little and gain little on a web it has never seen?

Crawls each (web seed, domain, strategy) once through the simweb proxy and prints,
per run: relevant forms by the truth, learning iterations and the page each one
happened at, paths in the learner's repository, instances per level, the terms
automatic feature selection chose (and how many of them are site names), and, at
every re-rank, the overlap of the next ``--top`` links the old scorer would fetch
with those the new scorer fetches (1.0: the re-rank changed nothing).

    .venv/bin/python scripts/diagnose_learning.py --webs 11,12 --domains airfare,hotel \
        --strategies baseline,ache,ache-offline-online --pages 3000 [--out DIR]
        [--repeats 3] [--concurrency 64] [--learning stall_pages=0]
        [--stopping max_pages_per_site=200] [--crawl ordered_block=16]

Writes ``diagnosis.json`` (every figure) into ``--out``. Harness only: measures, fixes nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np


def _names(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _order(levels: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Fetch order of a frontier: lowest level first, then highest score."""
    sc = np.nan_to_num(np.asarray(scores, dtype=np.float64), nan=-np.inf)
    return np.lexsort((-sc, np.asarray(levels)))


def _rerank_overlap(engine: Any, old: Any, top: int) -> dict[str, Any]:
    """Overlap of the next ``top`` queued links under the old and the new scorer."""
    from formhunter.frontier.store import level_of
    from formhunter.interfaces import LinkRecord

    store = engine.frontier.store
    df = store.con.execute(
        "SELECT lid, url, site, depth, parent, anchor, around, parent_score, dom_terms,"
        " level, score FROM frontier WHERE run_id = ? AND state = 'queued'",
        [store.run_id],
    ).df()
    if df.empty:
        return {"queued": 0}
    n_levels = engine.frontier.n_levels
    frame = getattr(old, "score_frame", None)
    if frame is not None:
        lv, sc = frame(df)
    else:
        recs = [
            LinkRecord(u, s, int(dp), p or "", a or "", ar or "", float(ps or 0.0), dt or "")
            for u, s, dp, p, a, ar, ps, dt in zip(
                df["url"], df["site"], df["depth"], df["parent"], df["anchor"], df["around"],
                df["parent_score"], df["dom_terms"], strict=True,
            )
        ]
        lv, sc = old.score(recs)
    old_lv = level_of(lv, sc, n_levels)
    new_lv = df["level"].to_numpy()
    k = min(top, len(df))
    a = set(df["lid"].to_numpy()[_order(old_lv, sc)[:k]].tolist())
    b = set(df["lid"].to_numpy()[_order(new_lv, df["score"].to_numpy())[:k]].tolist())
    return {
        "queued": len(df),
        "overlap": len(a & b) / k if k else 1.0,
        "new_levels": np.bincount(new_lv.astype(np.int64), minlength=n_levels).tolist(),
        "old_levels": np.bincount(old_lv.astype(np.int64), minlength=n_levels).tolist(),
    }


def _missed(graph: Any, domain: str, pages: Any, forms: Any) -> dict[str, Any]:
    """The web's relevant forms this crawl did not find: how many, and how many of
    those sit on sites it did visit (with the pages it spent there): a miss on a
    visited site is a form deeper in a site than the crawl went, not a site never
    reached."""
    from classifiers.sites import site_of

    rel = graph.relevant_keys(domain)
    found = {graph.keys.get((s, g), -1) for s, g in zip(forms["site"], forms["signature"],
                                                         strict=True)}  # fmt: skip
    visited = Counter(site_of(u) for u in pages["url"])
    missed = [k for k in np.flatnonzero(rel) if k not in found]
    on_visited = [graph.key_site[k] for k in missed if graph.key_site[k] in visited]
    return {"total": len(missed), "on_visited_sites": len(on_visited),
            "pages_on_those_sites": sorted(visited[s] for s in set(on_visited))}


def _budget(web: Any, graph: Any, domain: str, pages: Any) -> dict[str, Any]:
    """Where the crawl's pages went: on the sites that hold a relevant form of the
    web (and how many such sites), and by site kind elsewhere."""
    from classifiers.sites import site_of

    form_sites = {graph.key_site[k] for k in np.flatnonzero(graph.relevant_keys(domain))}
    kind = {s.name: s.kind for s in web.sites}
    visited = Counter(site_of(u) for u in pages["url"])
    other: Counter[str] = Counter()
    for site, n in visited.items():
        if site not in form_sites:
            other[kind.get(site, "?")] += n
    return {"on_form_sites": sum(visited[s] for s in form_sites),
            "form_sites": len(form_sites),
            "form_sites_visited": sum(1 for s in form_sites if visited[s]),
            "elsewhere_by_kind": dict(other.most_common())}


def run_one(web: Any, graph: Any, seed_web: int, domain: str, strategy: str, pages: int,
            proxy: str, db: Path, top: int, concurrency: int = 32,
            overrides: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:  # fmt: skip
    from formhunter.bench.harvest import bench_settings, judge, metrics, run_frames, seed_set
    from formhunter.catalogue import Catalogue
    from formhunter.engine import crawl

    seeds = seed_set(web, domain, 10, 0)
    settings = bench_settings(domain, strategy, pages, db, proxy, concurrency, 0)
    for section, values in (overrides or {}).items():
        if values:
            settings = replace(settings, **{section: replace(getattr(settings, section),
                                                             **values)})  # fmt: skip
    state: dict[str, Any] = {"prev": None, "reranks": []}

    def listener(event: str, engine: Any) -> None:
        if event == "page":
            state["prev"] = engine.scorer
        elif event == "learn":
            rec: dict[str, Any] = {"at_page": engine.stats.pages}
            if state["prev"] is not None:
                rec.update(_rerank_overlap(engine, state["prev"], top))
            state["reranks"].append(rec)
            state["prev"] = engine.scorer
        elif event == "end":
            its, repo = [], {}
            for _, learner in engine.pipeline.components.learners:
                for it in getattr(learner, "iterations", []):
                    feats = it.features.get("features", {}) if it.features else {}
                    its.append({"at_page": it.at_page, "n_paths": it.n_paths, "note": it.note,
                                "instances": it.features.get("instances") if it.features
                                else None, "features": feats})  # fmt: skip
                rp = getattr(learner, "repository", None)
                if rp is not None:
                    lv = [level for _, level in rp.instances]
                    repo = {"paths": len(rp), "form_pages": len(rp.form_pages),
                            "instances_per_level": np.bincount(
                                np.asarray(lv, np.int64), minlength=rp.n_levels).tolist(),
                            "path_lengths": np.bincount([len(p) for p in rp.paths]).tolist()
                            if rp.paths else []}  # fmt: skip
            state["iterations"], state["repository"] = its, repo
            state["links_not_followed"] = engine.stats.links_not_followed

    t0 = time.perf_counter()
    with Catalogue(db) as cat:
        result = asyncio.run(crawl(settings, cat, seeds=seeds, listeners=[listener]))
        pages_df, forms_df = run_frames(cat.con, result.run_id)
    m = metrics(judge(graph, domain, pages_df, forms_df), None)
    site_words = {s.name.split(".")[0] for s in web.sites} | {
        w for s in web.sites for w in s.brand.lower().split()
    }
    for it in state.get("iterations", []):
        terms = [t for space in it["features"].values() for t in space]
        it["site_terms"] = sorted({t for t in terms if t.lower() in site_words})
        it["n_terms"] = len(terms)
    return {
        "web": seed_web, "domain": domain, "strategy": strategy, "pages": m["pages"],
        "relevant": m["relevant"], "site_coverage": m["site_coverage"],
        "sites_relevant": m["sites_relevant"], "form_sites": m["form_sites"],
        "form_sites_entered_without": m["form_sites_entered_without"],
        "pages_per_form_site": m["pages_per_form_site"], "reason": result.reason,
        "missed": _missed(graph, domain, pages_df, forms_df),
        "budget": _budget(web, graph, domain, pages_df),
        "learning_iterations": result.stats.learning_iterations,
        "pages_per_s": round(result.stats.pages_per_second, 1),
        "errors": dict(result.stats.errors),
        "seconds": round(time.perf_counter() - t0, 1),
        **{k: v for k, v in state.items() if k != "prev"},
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--webs", default="11,12")
    ap.add_argument("--domains", default="airfare,hotel")
    ap.add_argument("--strategies", default="baseline,ache,ache-offline-online")
    ap.add_argument("--pages", type=int, default=3000)
    ap.add_argument("--sites", type=int, default=500)
    ap.add_argument("--top", type=int, default=200)
    ap.add_argument("--out", default="reports/diagnosis")
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=1, help="crawls of each (web, domain, "
                    "strategy): a crawl's outcome varies with the order fetches complete")
    ap.add_argument("--learning", action="append", default=[], metavar="KEY=NUMBER",
                    help="override a [learning] setting, e.g. stall_pages=0 (repeatable)")
    ap.add_argument("--stopping", action="append", default=[], metavar="KEY=NUMBER",
                    help="override a [stopping] setting (repeatable)")
    ap.add_argument("--frontier", action="append", default=[], metavar="KEY=NUMBER",
                    help="override a [frontier] setting, e.g. reserve_by_level=0 (repeatable)")
    ap.add_argument("--crawl", action="append", default=[], metavar="KEY=NUMBER",
                    help="override a [crawl] setting, e.g. ordered_block=16 (repeatable)")
    args = ap.parse_args(argv)
    overrides = {section: {k: float(v) if "." in v else int(v)
                           for k, v in (x.split("=", 1) for x in getattr(args, section))}
                 for section in ("learning", "stopping", "frontier", "crawl")}  # fmt: skip
    from formhunter.bench.harvest import default_cache_dir
    from formhunter.bench.oracle import load_or_build
    from formhunter.simweb import SimWeb
    from formhunter.simweb.server import proxy_process

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for w in [int(x) for x in _names(args.webs)]:
        web = SimWeb(seed=w, n_sites=args.sites, slow_delay=0.5)
        graph = load_or_build(web, default_cache_dir())
        with proxy_process(w, args.sites, 0.5) as proxy, tempfile.TemporaryDirectory() as tmp:
            for d in _names(args.domains):
                for s, r in ((s, r) for s in _names(args.strategies)
                             for r in range(args.repeats)):  # fmt: skip
                    row = run_one(web, graph, w, d, s, args.pages, proxy,
                                  Path(tmp) / f"{d}-{s}-{r}.duckdb", args.top,
                                  args.concurrency, overrides)  # fmt: skip
                    rows.append(row | {"repeat": r, **overrides})
                    its = row.get("iterations", [])
                    ov = [x.get("overlap") for x in row["reranks"] if "overlap" in x]
                    print(f"web {w} {d} {s} r{r}: {row['pages']} pages, "
                          f"{row['relevant']} relevant, site coverage "
                          f"{row['site_coverage']:.2f} ({row['sites_relevant']}/"
                          f"{row['form_sites']}, entered w/o "
                          f"{row['form_sites_entered_without']}), "
                          f"missed {row['missed']['total']} "
                          f"({row['missed']['on_visited_sites']} on visited sites), "
                          f"budget {row['budget']}, "
                          f"{row['learning_iterations']} iterations at pages "
                          f"{[i['at_page'] for i in its]}, repo {row.get('repository')}, "
                          f"overlap {[round(x, 2) for x in ov]}, errors {row['errors']}, "
                          f"{row['pages_per_s']} pages/s, {row['seconds']}s",
                          flush=True)  # fmt: skip
                    (out / "diagnosis.json").write_text(json.dumps(rows, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
