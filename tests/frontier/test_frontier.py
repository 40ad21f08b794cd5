"""The multi-level frontier: level order, politeness, refill from DuckDB, traps, re-rank."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from formhunter.catalogue import Catalogue
from formhunter.config import FrontierSettings, StoppingSettings
from formhunter.frontier import (
    Entry,
    Frontier,
    FrontierStore,
    Levels,
    SiteBudget,
    add_seeds,
    insert_queued,
    trap,
)
from formhunter.interfaces import LinkRecord, RecordScorer


def _e(lid: int, host: str, level: int, score: float) -> Entry:
    return Entry(lid, host, level, score, LinkRecord(f"http://{host}/{lid}", host, 1))


def test_levels_order_first_level_then_score_then_discovery() -> None:
    lv = Levels(3)
    for e in [_e(1, "a", 2, 9.0), _e(2, "b", 1, 0.1), _e(3, "c", 1, 0.5), _e(4, "d", 1, 0.5),
              _e(5, "e", 0, -1.0)]:  # fmt: skip
        lv.push(e)
    got = []
    while (e := lv.pop(0.0)) is not None:
        got.append(e.lid)
        lv.release(e, 0.0)
    assert got == [5, 3, 4, 2, 1]


def test_levels_skip_busy_and_unready_hosts_without_starving() -> None:
    ready = {"slow": 5.0}
    lv = Levels(2, ready_in=lambda url: ready.get(url.split("/")[2], 0.0))
    lv.push(_e(1, "slow", 0, 1.0))
    lv.push(_e(2, "busy", 0, 0.9))
    lv.push(_e(3, "busy", 0, 0.8))
    lv.push(_e(4, "other", 1, 0.1))
    first = lv.pop(0.0)
    assert first is not None and first.lid == 2  # slow host parked, busy host taken
    second = lv.pop(0.0)
    assert second is not None and second.lid == 4  # lid 3's host is busy: parked
    assert lv.pop(0.0) is None and lv.n_parked == 2
    assert lv.next_wakeup(0.0) == 5.0
    lv.release(first, 1.0)  # busy host free again -> its parked link comes back
    third = lv.pop(1.0)
    assert third is not None and third.lid == 3
    ready["slow"] = 0.0
    fourth = lv.pop(5.0)
    assert fourth is not None and fourth.lid == 1
    assert len(lv) == 0


def _store(tmp_path: Path) -> tuple[Catalogue, FrontierStore]:
    cat = Catalogue(tmp_path / "c.duckdb")
    run = cat.new_run(domain="book", strategy="bfs", max_pages=10, config={}, seeds=[])
    store = FrontierStore(cat.con, run)
    cat.add_flusher(store.flush)
    return cat, store


def _rec(i: int, site: str = "s.example", depth: int = 1) -> LinkRecord:
    return LinkRecord(f"http://www.{site}/p{i}", site, depth, "http://www.s.example/",
                      f"anchor {i}", f"around {i}", 0.5)  # fmt: skip


def test_new_links_wait_in_store_until_memory_runs_dry(tmp_path: Path) -> None:
    cat, store = _store(tmp_path)
    fr = Frontier(store, FrontierSettings(refill_per_level=2), n_levels=3)
    assert add_seeds(fr, ["http://www.s.example/", "http://www.s.example/"]) == 0
    assert len(fr) == 1  # known seeds are not added again
    seed = fr.next(0.0)
    assert seed is not None and seed.level == 0 and fr.refills == 1
    recs = [_rec(i) for i in range(5)]
    lv = np.array([1, 0, 1, 0, 0])
    fr.add_scored(recs, ["www.s.example"] * 5, lv, np.array([0.1, 0.2, 0.3, 0.4, 0.5]))
    fr.done(seed, "fetched")
    assert store.count() == 1  # not written yet: the refill writes them (no commit)
    got = []
    while (e := fr.next(0.0)) is not None:
        got.append(e.url.rsplit("/", 1)[1])
        fr.done(e, "fetched")
    # quota 2 per level: best two of level 0, best two of level 1, then the rest
    assert got == ["p4", "p3", "p2", "p0", "p1"]
    cat.commit()
    assert store.states() == {"fetched": 6}
    assert fr.dry and not store.n_reserve
    cat.close()


def test_store_survives_reopen(tmp_path: Path) -> None:
    cat, store = _store(tmp_path)
    fr = Frontier(store, FrontierSettings(), n_levels=2)
    fr.add_scored([_rec(i) for i in range(10)], [f"h{i}" for i in range(10)], np.zeros(10),
                  np.arange(10.0))  # fmt: skip
    e = fr.next(0.0)
    assert e is not None and e.url.endswith("/p9")  # the refill wrote the 10 links
    fr.done(e, "fetched")
    e2 = fr.next(0.0)  # in flight when we "crash": stays queued
    assert e2 is not None
    cat.commit()
    cat.close()
    cat = Catalogue(tmp_path / "c.duckdb")
    store = FrontierStore(cat.con, 1)
    assert len(store.seen) == 10 and store.next_lid == 11 and store.n_unloaded == 9
    fr = Frontier(store, FrontierSettings(), n_levels=2)
    again = fr.next(0.0)
    assert again is not None and again.url == e2.url
    cat.close()


def test_trap_limits() -> None:
    s = FrontierSettings(max_url_length=60, max_depth=3, max_repeated_segments=2)
    assert trap("http://a.example/x/y", 1, s) == ""
    assert trap("http://a.example/" + "x" * 80, 1, s) == "url-length"
    assert trap("http://a.example/x", 4, s) == "depth"
    assert trap("http://a.example/a/b/a/c/a/d", 1, s) == "repeated-segments"
    assert trap("http://a.example/a/b/a?x=/a/a/a", 1, s) == ""


def test_site_budget_closes_sites() -> None:
    # exhausted_pages 0: no site is "still giving" (tests/frontier/test_routes.py has it on)
    b = SiteBudget(StoppingSettings(max_pages_per_site=3, max_forms_per_site=2,
                                    max_pages_without_form=0, exhausted_pages=0))  # fmt: skip
    b.page("a", 0, 0)
    b.page("a", 0, 0)
    assert b.reason("a") == ""
    b.page("a", 0, 0)
    assert b.reason("a") == "site-pages"
    b.page("b", 2, 0)
    assert b.reason("b") == "site-forms"
    # relevant forms never count: a site with one booking form per property stays open
    b.page("h", 2, 2)
    b.page("h", 1, 1)
    assert b.reason("h") == ""
    b.page("h", 1, 0)
    assert b.reason("h") == "site-pages"  # its third page: the page limit still holds
    b.page("m", 3, 1)
    assert b.reason("m") == "site-forms"  # two searchable forms that are not relevant
    c = SiteBudget(StoppingSettings(max_pages_per_site=0, max_forms_per_site=0,
                                    max_pages_without_form=2))  # fmt: skip
    c.page("x", 1, 0)
    c.page("x", 0, 0)
    assert c.reason("x") == ""
    c.page("x", 0, 0)
    assert c.reason("x") == "site-no-forms"


def test_site_budget_extends_the_page_limit() -> None:
    b = SiteBudget(StoppingSettings(max_pages_per_site=2, max_forms_per_site=1,
                                    extend_pages=3))  # fmt: skip
    for _ in range(2):
        b.page("a", 0, 0)
    b.page("f", 1, 0)
    assert b.reason("a") == "site-pages" and b.reason("f") == "site-forms"
    assert b.extend() == ["a"]  # a site closed by its forms stays closed
    assert b.reason("a") == "" and b.reason("f") == "site-forms"
    assert b.extend() == []  # nothing closed by the page limit: no change
    for _ in range(3):
        b.page("a", 0, 0)
    assert b.reason("a") == "site-pages" and b.pages["a"] == 5
    off = SiteBudget(StoppingSettings(max_pages_per_site=2, extend_pages=0))
    off.page("a", 0, 0)
    off.page("a", 0, 0)
    assert off.extend() == [] and off.reason("a") == "site-pages"


class _ByDigits(RecordScorer):
    """A scorer that likes URLs ending in 7 (level 0) and scores by the number."""

    n_levels = 2

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        nums = np.array([int(lk.url.rsplit("p", 1)[1]) for lk in links])
        return (nums % 10 != 7).astype(np.int64), nums.astype(np.float64)


class _ByDigitsFrame(_ByDigits):
    def score_frame(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        nums = frame["url"].str.rsplit("p", n=1).str[1].astype(np.int64).to_numpy()
        return (nums % 10 != 7).astype(np.int64), nums.astype(np.float64)


def test_rerank_100k_links(tmp_path: Path) -> None:
    cat, store = _store(tmp_path)
    fr = Frontier(store, FrontierSettings(refill_per_level=3, rerank_batch=30_000), n_levels=2)
    n = 100_000
    recs = [_rec(i) for i in range(n)]
    fr.add_scored(recs, [f"h{i}" for i in range(n)], np.zeros(n), np.zeros(n))
    first = fr.next(0.0)  # in flight during the re-rank: must not come back
    assert first is not None and first.url.endswith("/p0")
    expected = [["p99997", "p99987", "p99977", "p99999"], ["p99967", "p99957", "p99947", "p99998"]]
    for k, scorer in enumerate((_ByDigits(), _ByDigitsFrame())):
        assert fr.rerank(scorer) == n - 4 * k
        assert fr.n_levels == 3
        got = []
        for _ in range(4):
            e = fr.next(0.0)
            assert e is not None
            got.append(e.url.rsplit("/", 1)[1])
            fr.done(e, "fetched")
        assert got == expected[k]
        assert first.lid in fr.inflight
    cat.commit()
    row = cat.con.execute(
        "SELECT count(*) FILTER (WHERE level = 0), count(*) FROM frontier WHERE state='queued'"
    ).fetchall()[0]
    assert row == (n // 10 - 6, n - 8)  # p0 is still in flight
    cat.close()


def test_refill_when_only_waiting_hosts_are_left_is_throttled(tmp_path: Path) -> None:
    cat, store = _store(tmp_path)
    waits = {"slow": 10.0}
    fs = FrontierSettings(refill_per_level=2, refill_interval=1.0)
    fr = Frontier(store, fs, n_levels=1,
                  ready_in=lambda url: waits.get(url.split("/")[2], 0.0))  # fmt: skip
    recs = [LinkRecord(f"http://slow/{i}", "slow", 1) for i in range(2)]
    recs += [LinkRecord(f"http://h{i}/", f"h{i}", 1) for i in range(4)]
    hosts = [r.site for r in recs]
    fr.add_scored(recs, hosts, np.zeros(6), np.array([9.0, 8.0, 3.0, 2.0, 1.0, 0.5]))
    assert fr.next(0.0) is None  # refill 1 loaded the two best links: their host must wait
    assert fr.refills == 1 and fr.levels.n_parked == 2
    assert fr.next(0.5) is None and fr.refills == 1  # too soon for another refill
    got = fr.next(1.5)
    assert got is not None and got.host.startswith("h") and fr.refills == 2
    cat.close()


def test_insert_queued_defaults_and_hosts(tmp_path: Path) -> None:
    with Catalogue(tmp_path / "c.duckdb") as cat:
        run = cat.new_run(domain="airfare", strategy="bfs", max_pages=1, config={}, seeds=[])
        links = pa.table({"url": ["http://WWW.A.example:8080/x", "https://b.example/y?q=1"],
                          "site": ["a.example", "b.example"]})  # fmt: skip
        assert insert_queued(cat.con, run, links, first_lid=7) == 9
        got = cat.con.execute(
            "SELECT lid, host, depth, level, score, state, parent, parent_score, loaded"
            " FROM frontier ORDER BY lid"
        ).fetchall()
    assert got == [(7, "www.a.example", 0, 0, None, "queued", "", 0.0, False),
                   (8, "b.example", 0, 0, None, "queued", "", 0.0, False)]  # fmt: skip
