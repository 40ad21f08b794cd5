#!/usr/bin/env python
"""Benchmark: retrain the link learners and re-rank frontiers of 10k..1M links.

Prints, for each learned scorer (ACHE's multi-level link classifier, the
apprentice layer, the CFC URL scorer), the seconds to retrain on 100..1000
paths and to re-score frontiers of 10k, 100k and 1M links the way the frontier
store does it (``score_frame`` over Arrow record batches of 50k links), with
links per second and how the time grows with the frontier's size.

Links are synthetic but shaped like real ones: ~20k sites, URL paths from a
Zipf-distributed vocabulary with ids and file endings, navigation anchors that
repeat across pages and item titles that do not, 20-40 words of text around the
anchor, and 20-60 ``term@d`` DOM-offset tokens.

    .venv/bin/python scripts/bench_rerank.py [--sizes 10000,100000,1000000] [--batch 50000]
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from classifiers.apprentice import Apprentice
from classifiers.link_classifier import MultiLevelLinkClassifier
from classifiers.url_scorer import ConservativeURLScorer
from formhunter.learners import ApprenticeScorer, CFCScorer, LinkClassifierScorer

WORDS = """
search flights hotel car rental book library catalog job career music album movie dvd
news sport weather recipe health software download forum blog about contact privacy
terms help login account cart shop product review price deal offer travel airline
airport fare ticket room guest city map store locator event calendar archive page
home index category tag author title isbn used new cheap best top list guide tips
advanced find browse results listing dealer model make year salary employer resume
artist song lyrics cinema showtime trailer cast genre edition paperback reserve
""".split()  # noqa: SIM905
NAV = ["Home", "About us", "Contact", "Search", "Advanced search", "Login", "Help", "News",
       "Privacy policy", "Terms of use", "Next", "Previous", "More", "Read more", "Jobs",
       "Flights", "Hotels", "Car rental", "Books", "Music", "Movies", "Browse catalog"]  # fmt: skip
ENDINGS = ["", ".html", ".php", ".aspx", "/", "?page=2", "?id=17&sort=asc"]


def synthetic_frame(n: int, seed: int) -> pd.DataFrame:
    """``n`` links shaped like a crawl frontier's (module doc)."""
    rng = np.random.default_rng(seed)
    V = len(WORDS)

    def zipf_words(k: int) -> np.ndarray:
        return np.minimum(rng.zipf(1.3, size=k) - 1, V - 1)

    sites = rng.integers(0, 20_000, size=n)
    seg = zipf_words(n * 2).reshape(n, 2)
    ids = rng.integers(1, 10_000_000, size=n)
    end = rng.integers(0, len(ENDINGS), size=n)
    urls = [f"https://www.site{s}.example/{WORDS[a]}/{WORDS[b]}-{i}{ENDINGS[e]}"
            for s, (a, b), i, e in zip(sites, seg, ids, end, strict=True)]  # fmt: skip
    nav = rng.random(n) < 0.6
    navpick = rng.integers(0, len(NAV), size=n)
    title_words = zipf_words(n * 4).reshape(n, 4)
    anchors = [NAV[p] if isn else " ".join(WORDS[w] for w in tw).title()
               for isn, p, tw in zip(nav, navpick, title_words, strict=True)]  # fmt: skip
    around_len = rng.integers(20, 41, size=n)
    around_words = zipf_words(int(around_len.sum()))
    cuts = np.cumsum(around_len)[:-1]
    arounds = [" ".join(WORDS[w] for w in chunk) for chunk in np.split(around_words, cuts)]
    dom_len = rng.integers(20, 61, size=n)
    dom_words = zipf_words(int(dom_len.sum()))
    dom_d = rng.integers(-6, 7, size=int(dom_len.sum()))
    dcuts = np.cumsum(dom_len)[:-1]
    doms = [" ".join(f"{WORDS[w]}@{d}" for w, d in zip(cw, cd, strict=True))
            for cw, cd in zip(np.split(dom_words, dcuts), np.split(dom_d, dcuts),
                              strict=True)]  # fmt: skip
    return pd.DataFrame({
        "lid": np.arange(n), "url": urls, "site": [f"site{s}.example" for s in sites],
        "depth": rng.integers(1, 8, size=n), "parent": [u.rsplit("/", 1)[0] for u in urls],
        "anchor": anchors, "around": arounds, "parent_score": rng.random(n), "dom_terms": doms,
    })  # fmt: skip


def training_paths(n_paths: int, n_levels: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Paths to form pages: level-0 links say search/find, level 1 catalog/browse, ...;
    plus as many background links."""
    rng = np.random.default_rng(seed)
    frame = synthetic_frame(n_paths * n_levels * 2, seed)
    levels = np.full(len(frame), n_levels, dtype=np.int64)
    hints = [("search", "Advanced search"), ("catalog", "Browse catalog"), ("category", "Books")]
    for lv in range(n_levels):
        idx = np.arange(lv * n_paths, (lv + 1) * n_paths)
        levels[idx] = lv
        word, anchor = hints[lv % len(hints)]
        frame.loc[idx, "url"] = [u.replace("/", f"/{word}/", 3).replace(f"/{word}/", "/", 2)
                                 for u in frame.loc[idx, "url"]]  # fmt: skip
        frame.loc[idx[rng.random(len(idx)) < 0.7], "anchor"] = anchor
    return frame, levels


def frontier(n: int, batch: int) -> list[pa.Table]:
    """``n`` distinct synthetic links as Arrow record batches of ``batch`` (built once)."""
    out = []
    for i, start in enumerate(range(0, n, batch)):
        out.append(pa.Table.from_pandas(synthetic_frame(min(batch, n - start), seed=1000 + i)))
    return out


def timed(fn: object, *args: object) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn(*args)  # type: ignore[operator]
    return time.perf_counter() - t0, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--paths", default="100,300,1000")
    ap.add_argument("--batch", type=int, default=50_000)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    n_levels = 3

    print("== retrain (AFS + multi-level naive Bayes; apprentice and CFC batches) ==")
    print(f"{'paths':>6} {'instances':>9} {'link-clf s':>10} {'apprentice s':>12} {'cfc s':>7}")
    model: MultiLevelLinkClassifier | None = None
    app = Apprentice()
    cfc = ConservativeURLScorer()
    for n_paths in (int(x) for x in args.paths.split(",")):
        frame, levels = training_paths(n_paths, n_levels, seed=n_paths)
        t_lc, model = timed(MultiLevelLinkClassifier(n_levels=n_levels, n_url=25, n_anchor=25,
                                                     n_around=25).fit, frame, levels)  # fmt: skip
        y = (levels < n_levels).astype(float)
        t_app, _ = timed(app.partial_fit, frame, y)
        t_cfc, _ = timed(cfc.partial_fit, frame, y)
        print(f"{n_paths:>6} {len(frame):>9} {t_lc:>10.3f} {t_app:>12.3f} {t_cfc:>7.3f}")
    assert model is not None
    feats = model.features_
    print("features chosen:", {s: feats[s][:6] for s in feats})

    def fresh() -> dict[str, object]:
        # a new copy per frontier size, so no size profits from another's token memo
        m = copy.deepcopy(model)
        return {
            "link-classifier": LinkClassifierScorer(m),
            "apprentice-layer": ApprenticeScorer(copy.deepcopy(app), LinkClassifierScorer(m)),
            "cfc": CFCScorer(copy.deepcopy(cfc)),
        }

    t0 = time.perf_counter()
    links = frontier(max(sizes), args.batch)
    print(f"\n(built {max(sizes):,} distinct synthetic links in {time.perf_counter() - t0:.0f} s)")
    print(f"== re-rank: score_frame over Arrow batches of {args.batch:,} links "
          "(to_pandas included, as the frontier store does) ==")
    print(f"{'scorer':<17} {'links':>9} {'seconds':>8} {'links/s':>10} {'x time':>7} "
          f"{'x links':>7}")  # fmt: skip
    for name in fresh():
        prev: tuple[int, float] | None = None
        for n in sizes:
            scorer = fresh()[name]
            t0 = time.perf_counter()
            count = 0
            for table in links:
                if count >= n:
                    break
                b = table.slice(0, n - count).to_pandas()
                lv, _ = scorer.score_frame(b)  # type: ignore[attr-defined]
                count += len(lv)
            dt = time.perf_counter() - t0
            growth = f"{dt / prev[1]:>7.1f} {n / prev[0]:>7.0f}" if prev else f"{'':>7} {'':>7}"
            print(f"{name:<17} {count:>9,} {dt:>8.2f} {count / dt:>10,.0f} {growth}")
            prev = (n, dt)
    scorers = fresh()
    # the LinkRecord path (engine scoring a page's new outlinks) for comparison
    from formhunter.interfaces import LinkRecord

    f = synthetic_frame(10_000, 99)
    recs = [LinkRecord(u, s, int(d), p, a, ar, float(ps), dt) for u, s, d, p, a, ar, ps, dt in
            zip(f.url, f.site, f.depth, f.parent, f.anchor, f.around, f.parent_score,
                f.dom_terms, strict=True)]  # fmt: skip
    print("\n== score(list[LinkRecord]) on 10,000 records (a page's outlinks, many pages) ==")
    for name, scorer in scorers.items():
        dt, _ = timed(scorer.score, recs)  # type: ignore[attr-defined]
        print(f"{name:<17} {dt:>8.3f} s  ({len(recs) / dt:,.0f} links/s)")
        small = recs[:100]
        dt, _ = timed(scorer.score, small)  # type: ignore[attr-defined]
        print(f"{'':<17} {dt * 1000:>8.2f} ms for one page of 100 links")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
