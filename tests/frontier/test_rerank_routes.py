"""The route policy (issue 25) keeps the re-rank from token ids (issue 27).

With ``[frontier] route_links_per_site`` on, a re-rank puts each on-domain site's first
route links (by lid) ahead of the scorer's ranking. The store keeps each link's route
bonus, so a re-rank from token ids needs no text for it: on a real frontier in a real
DuckDB file, the token path gives the levels, scores and first link of the text path and
of a plain reading of the policy (every queued link scored, then the routes applied in
lid order, one count per site for the whole re-rank); re-ranking a chunk of lids at a
time changes nothing; and a default ache crawl re-ranks from token ids.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from engine_helpers import crawl_once, loopback_settings

from formhunter.bench.rerank import TextOnly, fill_frontier, link_batches, retrainers
from formhunter.catalogue import Catalogue
from formhunter.config import FrontierSettings, Settings
from formhunter.frontier import Frontier, FrontierStore, level_of
from formhunter.frontier.policy import SiteBudget
from formhunter.frontier.routes import SiteRoutes
from formhunter.interfaces import LinkRecord, LinkScorer
from formhunter.scorers.simple import RandomScorer
from formhunter.simweb.server import running_proxy

N = 3000
BATCH = 700
PER_SITE = 3
#: two sites with more route links than ``PER_SITE``, spread over several batches
BIG = ("big1.example", "big2.example")


@pytest.fixture(scope="module")
def frontier_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    db = tmp_path_factory.mktemp("routes") / "frontier.duckdb"
    run = fill_frontier(db, link_batches(N, 1000), N)
    with Catalogue(db) as cat:  # route and other links of two big sites, among the others
        store = FrontierStore(cat.con, run)
        cat.add_flusher(store.flush)
        fr = Frontier(store, FrontierSettings(), n_levels=4)
        for i in range(40):
            site = BIG[i % 2]
            anchor = ("Advanced search", "Rooms", "Book now", "Next page")[i // 2 % 4]
            rec = LinkRecord(f"https://{site}/p{i}/item-{i}.html", site, 2,
                             f"https://{site}/", anchor, "cheap hotel deals", 0.5,
                             "hotel@0")  # fmt: skip
            fr.add_scored([rec], [site], np.ones(1), np.full(1, 0.3))
        cat.commit()
    return db, run


@pytest.fixture(scope="module")
def link_classifier() -> LinkScorer:
    return retrainers((20, 50))["link-classifier"]()


def _routes() -> SiteRoutes:
    routes = SiteRoutes(PER_SITE, SiteBudget(Settings().stopping))
    for site in (*BIG, "www.site17.example", "www.site4.example"):
        routes.saw(site, True)
    routes.budget.relevant["www.site9.example"] += 1  # a relevant form: on-domain too
    return routes


Rows = dict[str, np.ndarray]


def _rerank(db: Path, run: int, scorer: LinkScorer, routes: SiteRoutes | None,
            chunk: int = 1_000_000) -> tuple[Rows, int | None, FrontierStore]:  # fmt: skip
    with Catalogue(db) as cat:
        store = FrontierStore(cat.con, run)
        cat.add_flusher(store.flush)
        fr = Frontier(store, FrontierSettings(rerank_batch=BATCH, rerank_chunk=chunk,
                                              refill_per_level=20),
                      n_levels=scorer.n_levels + 1)  # fmt: skip
        fr.rerank(scorer, routes=routes)
        first = fr.next(0.0)
        cat.commit()
        rows = cat.con.execute("SELECT lid, level, score FROM frontier WHERE run_id = ?"
                               " ORDER BY lid", [run]).fetchnumpy()  # fmt: skip
    return rows, (first.lid if first is not None else None), store


def _plainly(db: Path, run: int, scorer: LinkScorer, routes: SiteRoutes) -> Rows:
    """The policy read plainly: every queued link scored at once, then in lid order each
    route link of an on-domain site moved first while its site has fewer than
    ``per_site`` moved in this re-rank."""
    with Catalogue(db) as cat:
        frame = cat.con.execute(
            "SELECT lid, url, site, depth, parent, anchor, around, parent_score, dom_terms"
            " FROM frontier WHERE run_id = ? AND state = 'queued' ORDER BY lid", [run]
        ).df()  # fmt: skip
    lv, sc = scorer.score_frame(frame)
    lv, sc = np.array(lv, dtype=np.int64), np.array(sc, dtype=np.float64)
    counts: Counter[str] = Counter()
    sites = routes.sites()
    for i, (url, site, anchor, around) in enumerate(zip(
            frame["url"], frame["site"], frame["anchor"], frame["around"], strict=True)):
        if site in sites and counts[site] < routes.per_site:
            bonus = routes.bonus(url, anchor or "", around or "")
            if bonus:
                counts[site] += 1
                lv[i] = 0
                sc[i] = bonus + min(max(sc[i] if np.isfinite(sc[i]) else 0.0, 0.0), 1.0)
    assert counts[BIG[0]] == counts[BIG[1]] == PER_SITE  # the cap binds
    return {"lid": frame["lid"].to_numpy(),
            "level": level_of(lv, sc, scorer.n_levels + 1), "score": sc}  # fmt: skip


def _same(a: Rows, b: Rows) -> None:
    assert np.array_equal(a["lid"], b["lid"])
    assert np.array_equal(a["level"], b["level"])
    assert np.allclose(a["score"], b["score"], rtol=1e-9, atol=1e-12, equal_nan=True)


def test_routes_on_token_rerank_equals_text_rerank_and_the_policy(
        tmp_path: Path, frontier_db: tuple[Path, int], link_classifier: LinkScorer
) -> None:  # fmt: skip
    db, run = frontier_db
    for name in ("text", "tokens", "chunks"):
        shutil.copy(db, tmp_path / f"{name}.duckdb")
    text, first_text, _ = _rerank(tmp_path / "text.duckdb", run, TextOnly(link_classifier),
                                  _routes())  # fmt: skip
    tokens, first_tokens, store = _rerank(tmp_path / "tokens.duckdb", run, link_classifier,
                                          _routes())  # fmt: skip
    assert store.last_rerank_tokens and store.tokens.n_rows == N + 40
    _same(text, tokens)
    assert first_text == first_tokens
    expected = _plainly(db, run, link_classifier, _routes())
    _same(tokens, expected)
    moved = int((tokens["score"] > 1.0).sum())
    assert moved >= 2 * PER_SITE and first_tokens in tokens["lid"][tokens["score"] > 1.0]
    # a chunk of 1,000 lids at a time: the same
    chunked, first_chunked, _ = _rerank(tmp_path / "chunks.duckdb", run, link_classifier,
                                        _routes(), chunk=1000)  # fmt: skip
    _same(chunked, tokens)
    assert first_chunked == first_tokens


@pytest.mark.parametrize("make", [lambda: RandomScorer(3), lambda: TextOnly(RandomScorer(3))],
                         ids=["tokens", "text"])  # fmt: skip
def test_a_chunked_rerank_equals_one_in_a_piece(
        tmp_path: Path, frontier_db: tuple[Path, int], make: Callable[[], LinkScorer]
) -> None:  # fmt: skip
    """Scores drawn in lid order: equal only if every link is scored once, in order."""
    db, run = frontier_db
    shutil.copy(db, tmp_path / "a.duckdb")
    shutil.copy(db, tmp_path / "b.duckdb")
    whole, first_whole, _ = _rerank(tmp_path / "a.duckdb", run, make(), None)
    chunked, first_chunked, _ = _rerank(tmp_path / "b.duckdb", run, make(), None, chunk=777)
    _same(whole, chunked)
    assert first_whole == first_chunked


def test_a_default_ache_crawl_reranks_from_token_ids(tmp_path: Path) -> None:
    """The default settings (route policy on) and ache, learning early: every re-rank of
    the crawl scored the frontier from the store's token ids, and routes were moved."""
    with running_proxy(seed=11, n_sites=40, slow_delay=1.5) as proxy:
        settings = loopback_settings(
            proxy, tmp_path / "c.duckdb", {"crawl": {"max_pages": 150}},
            learning={"threshold": 2, "retrain_pages": 20})  # fmt: skip
        assert settings.crawl.strategy == "ache" and settings.frontier.route_links_per_site
        result, cat = crawl_once(settings, proxy.web.seeds("airfare", 6))
        cat.close()
    st = result.stats
    assert not st.faults
    assert st.reranks > 0 and st.token_reranks == st.reranks
    assert st.route_links > 0
