"""One contract, every selector (``interfaces.CrawlFrontier``) over the run's
``FrontierStore``: the multi-level frontier ("levels"), TRES's Tree-Frontier ("tree") and a
cluster shard's ("shard": the multi-level selector over a ``ShardStore``) go through the
same checks, as Scrapy's scheduler tests do. Links are set up, the DuckDB file is closed
and reopened (a resumed run), and only then are they taken."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from formhunter.catalogue import Catalogue
from formhunter.cluster.shard import TABLES, ShardStore
from formhunter.config import Settings
from formhunter.frontier import Frontier, FrontierStore, add_seeds
from formhunter.frontier.policy import trap
from formhunter.interfaces import CrawlFrontier, LinkRecord, RecordScorer
from formhunter.pipeline import PathIndex
from formhunter.strategies import build, get_strategy

KINDS = ("levels", "tree", "shard")
SEEDS = ["http://a.example/", "http://b.example/", "not a url"]
LINKS = ["http://a.example/x", "http://c.example/y", "http://b.example/"]  # last: a seed


def _open(kind: str, db: Path, resumed: bool) -> tuple[CrawlFrontier, FrontierStore, Catalogue]:
    settings = Settings()
    cat = Catalogue(db)
    if resumed:
        run = 1
    else:
        run = cat.new_run(domain="hotel", strategy="ache", max_pages=10, config={}, seeds=[])
    store: FrontierStore
    if kind == "shard":
        outbox: dict = {name: [] for name in TABLES}
        store = ShardStore(cat.con, run, outbox, shard=0, n_shards=1, max_lid=0,
                           paths=PathIndex())  # fmt: skip
    else:
        store = FrontierStore(cat.con, run)
    cat.add_flusher(store.flush)
    fr: CrawlFrontier
    if kind in ("levels", "shard"):
        fr = Frontier(store, settings.frontier, n_levels=3)
    else:
        learner = build("learner", "tres", domain="hotel", settings=settings,
                        strategy=get_strategy("tres"))  # fmt: skip
        fr = learner.open_frontier(store, settings.frontier, resumed=resumed)
    assert isinstance(fr, CrawlFrontier)
    return fr, store, cat


def _records(urls: list[str]) -> list[LinkRecord]:
    return [LinkRecord(u, u.split("/")[2], 1, "http://a.example/", "anchor") for u in urls]


class _Flat(RecordScorer):
    n_levels = 1

    def score(self, links: object) -> tuple[np.ndarray, np.ndarray]:
        n = len(links)  # type: ignore[arg-type]
        return np.zeros(n, dtype=np.int64), np.ones(n)


@pytest.mark.parametrize("kind", KINDS)
def test_every_frontier_keeps_its_links_across_a_reopen(kind: str, tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    fr, store, cat = _open(kind, db, resumed=False)
    assert add_seeds(fr, SEEDS) == 1  # "not a url" is not added
    assert add_seeds(fr, ["http://a.example/"]) == 0 and len(fr) == 2  # known: not again
    recs = _records(LINKS)
    n = fr.add_scored(recs, [r.site for r in recs], np.zeros(3), np.ones(3), at_page=1)
    assert n == 2  # the seed is known already
    store.add_skipped(_records(["http://d.example/z"])[0], "d.example", "depth", at_page=1)
    assert store.add_redirect_target("http://e.example/r", 1, at_page=1)
    assert not store.add_redirect_target("http://e.example/r", 1, at_page=1)
    assert trap("http://a.example/" + "x" * 5000, 1, Settings().frontier) == "url-length"
    assert len(fr) == 4 and not fr.dry
    cat.commit()
    cat.close()

    fr, store, cat = _open(kind, db, resumed=True)
    known = [*SEEDS[:2], *LINKS, "http://d.example/z", "http://e.example/r"]
    assert all(u in store.seen for u in known) and "http://f.example/" not in store.seen
    assert len(fr) == 4
    taken = []
    now = 0.0
    while (entry := fr.next(now)) is not None:
        assert not fr.dry  # one is in flight
        if len(taken) == 1:  # taken but not fetched: it stays queued
            fr.abandon(entry, now)
            entry = fr.next(now)
            assert entry is not None
        taken.append(entry.url)
        fr.done(entry, "fetched", "", now)
        now += 1.0
    assert sorted(taken) == sorted([*SEEDS[:2], *LINKS[:2]])
    assert fr.dry and len(fr) == 0 and not store.n_reserve
    assert fr.wait_hint(now) is None or math.isfinite(fr.wait_hint(now) or 0.0)
    cat.commit()
    rows = dict(cat.con.execute("SELECT url, state FROM frontier").fetchall())
    assert {u: rows[u] for u in taken} == dict.fromkeys(taken, "fetched")
    assert rows["http://d.example/z"] == "skipped" and rows["http://e.example/r"] == "fetched"
    cat.close()

    fr, store, cat = _open(kind, db, resumed=True)  # nothing is left after a reopen either
    assert len(fr) == 0 and fr.dry and fr.next(now) is None
    cat.close()


@pytest.mark.parametrize("kind", KINDS)
def test_every_frontier_keeps_the_reserve_in_the_store_or_drops_it(
        kind: str, tmp_path: Path) -> None:  # fmt: skip
    """Links bound for the reserve wait in the store; the policy opens the reserve (the
    store queues them, the selector re-ranks) for a selector that ``takes_back``; a
    selector that does not drops them. A re-rank places what is queued."""
    fr, store, cat = _open(kind, tmp_path / "c.duckdb", resumed=False)
    add_seeds(fr, ["http://a.example/"])
    recs = _records(["http://r.example/1", "http://r.example/2"])
    k = fr.add_scored(recs, [r.site for r in recs], np.zeros(2), np.ones(2), state="reserve")
    assert k == (2 if fr.takes_back else 0) and store.n_reserve == k
    assert fr.rerank(_Flat()) >= (1 if fr.takes_back else 0)
    got = []
    while (entry := fr.next(0.0)) is not None:
        got.append(entry.url)
        fr.done(entry, "fetched")
    assert got == ["http://a.example/"] and fr.dry
    if fr.takes_back:
        assert store.open_reserve() == 2 and not store.n_reserve
        fr.rerank(_Flat())
        while (entry := fr.next(0.0)) is not None:
            got.append(entry.url)
            fr.done(entry, "fetched")
        assert sorted(got[1:]) == [r.url for r in recs]
    assert fr.dry and not store.n_reserve
    cat.commit()
    states = dict(cat.con.execute("SELECT state, count(*) FROM frontier GROUP BY state").fetchall())
    assert states == {"fetched": len(got)}
    cat.close()
