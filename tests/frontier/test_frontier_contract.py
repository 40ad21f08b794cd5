"""One contract, every frontier (``interfaces.CrawlFrontier``): the multi-level frontier
("levels"), TRES's Tree-Frontier ("tree") and a cluster shard's frontier ("shard") go
through the same checks, as Scrapy's scheduler tests do. Links are set up, the DuckDB
file is closed and reopened (a resumed run), and only then are they taken."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from formhunter.catalogue import Catalogue
from formhunter.cluster.shard import ShardFrontier
from formhunter.config import Settings
from formhunter.frontier import Frontier, FrontierStore
from formhunter.interfaces import CrawlFrontier, LinkRecord
from formhunter.strategies import build, get_strategy

KINDS = ("levels", "tree", "shard")
SEEDS = ["http://a.example/", "http://b.example/", "not a url"]
LINKS = ["http://a.example/x", "http://c.example/y", "http://b.example/"]  # last: a seed


def _open(kind: str, db: Path, resumed: bool) -> tuple[CrawlFrontier, Catalogue]:
    settings = Settings()
    cat = Catalogue(db)
    if resumed:
        run = 1
    else:
        run = cat.new_run(domain="hotel", strategy="ache", max_pages=10, config={}, seeds=[])
    store = FrontierStore(cat.con, run)
    cat.add_flusher(store.flush)
    fr: CrawlFrontier
    if kind == "levels":
        fr = Frontier(store, settings.frontier, n_levels=3, commit=cat.commit)
    elif kind == "shard":
        fr = ShardFrontier(store, settings.frontier, n_levels=3, commit=cat.commit, shard=0,
                           n_shards=1)  # fmt: skip
    else:
        learner = build("learner", "tres", domain="hotel", settings=settings,
                        strategy=get_strategy("tres"))  # fmt: skip
        fr = learner.open_frontier(store, settings.frontier, resumed=resumed)
    assert isinstance(fr, CrawlFrontier)
    return fr, cat


def _records(urls: list[str]) -> list[LinkRecord]:
    return [LinkRecord(u, u.split("/")[2], 1, "http://a.example/", "anchor") for u in urls]


@pytest.mark.parametrize("kind", KINDS)
def test_every_frontier_keeps_its_links_across_a_reopen(kind: str, tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    fr, cat = _open(kind, db, resumed=False)
    assert fr.add_seeds(SEEDS) == 1  # "not a url" is not added
    assert not fr.add_seed("http://a.example/", "a.example", "a.example")  # known
    recs = _records(LINKS)
    n = fr.add_scored(recs, [r.site for r in recs], np.zeros(3), np.ones(3), at_page=1)
    assert n == 2  # the seed is known already
    fr.add_skipped(_records(["http://d.example/z"])[0], "d.example", "depth", at_page=1)
    assert fr.add_redirect_target("http://e.example/r", 1, at_page=1)
    assert not fr.add_redirect_target("http://e.example/r", 1, at_page=1)
    assert fr.trap("http://a.example/" + "x" * 5000, 1) == "url-length"
    assert len(fr) == 4 and not fr.exhausted
    cat.commit()
    cat.close()

    fr, cat = _open(kind, db, resumed=True)
    known = [*SEEDS[:2], *LINKS, "http://d.example/z", "http://e.example/r"]
    assert all(fr.seen(u) for u in known) and not fr.seen("http://f.example/")
    assert len(fr) == 4
    taken = []
    now = 0.0
    while (entry := fr.next(now)) is not None:
        assert entry.lid in fr.inflight
        if len(taken) == 1:  # taken but not fetched: it stays queued
            fr.abandon(entry, now)
            entry = fr.next(now)
            assert entry is not None
        taken.append(entry.url)
        fr.done(entry, "fetched", "", now)
        now += 1.0
    assert sorted(taken) == sorted([*SEEDS[:2], *LINKS[:2]])
    assert fr.exhausted and fr.dry and len(fr) == 0 and not fr.inflight
    assert fr.wait_hint(now) is None or math.isfinite(fr.wait_hint(now) or 0.0)
    cat.commit()
    rows = dict(cat.con.execute("SELECT url, state FROM frontier").fetchall())
    assert {u: rows[u] for u in taken} == dict.fromkeys(taken, "fetched")
    assert rows["http://d.example/z"] == "skipped" and rows["http://e.example/r"] == "fetched"
    cat.close()

    fr, cat = _open(kind, db, resumed=True)  # nothing is left after a reopen either
    assert len(fr) == 0 and fr.exhausted and fr.next(now) is None
    cat.close()
