"""Tree-Frontier: routing, selection over leaf candidates only, politeness, store."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from policy_helpers import FlatScorer

from formhunter.catalogue import Catalogue
from formhunter.config import Settings, TresSettings
from formhunter.frontier import FrontierStore, add_seeds
from formhunter.frontier.policy import CrawlPolicy, SiteBudget
from formhunter.interfaces import LinkRecord
from formhunter.stats import CrawlStats
from formhunter.strategies import get_strategy
from formhunter.tres.tree_frontier import TreeFrontier, TreeRouter

D = 4


def _featurize(records: Sequence[LinkRecord]) -> np.ndarray:
    """Feature 0 = the number at the end of the URL / 1000 (the 'good' links are >= 0.5)."""
    out = np.zeros((len(records), D))
    for i, r in enumerate(records):
        n = int(r.url.rsplit("/", 1)[1])
        out[i] = [n / 1000.0, (n % 7) / 7.0, (n % 3) / 3.0, 0.5]
    return out


def _recs(n: int, hosts: int = 50, start: int = 0) -> tuple[list[LinkRecord], list[str]]:
    recs = [LinkRecord(f"http://h{i % hosts}.example/x{i}/{(i * 7919) % 1000}",
                       f"h{i % hosts}.example", 1) for i in range(start, start + n)]  # fmt: skip
    return recs, [f"h{i % hosts}.example" for i in range(start, start + n)]


def _trained(fr: TreeFrontier, n: int = 400, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(n):
        x = rng.random(D)
        fr.learn(x, float(x[0] >= 0.5))


def test_rebuild_splits_on_the_rewarding_feature_and_routes_links() -> None:
    fr = TreeFrontier(_featurize, D, tres=TresSettings(max_leaves=8, min_samples_leaf=5,
                                                      rebuild_every=400))
    recs, hosts = _recs(2000)
    fr.add_scored(recs, hosts)
    assert fr.n_leaves == 1 and len(fr) == 2000  # no tree yet: one leaf
    _trained(fr)
    assert fr.rebuilds == 1 and 2 <= fr.n_leaves <= 8
    assert fr.router.feature[0] == 0 and abs(fr.router.threshold[0] - 0.5) < 0.05
    sizes = fr.leaf_sizes()
    assert sum(sizes.values()) == 2000
    # every link sits in the leaf the tree's own apply() gives
    tree = fr.router.tree
    assert tree is not None
    live = np.flatnonzero(fr._leaf >= 0)
    np.testing.assert_array_equal(tree.apply(fr._X[live]), fr._leaf[live])
    # a new link is routed on add, O(depth), to the same leaf as apply()
    more, mh = _recs(10, start=5000)
    fr.add_scored(more, mh)
    live = np.flatnonzero(fr._leaf >= 0)
    np.testing.assert_array_equal(tree.apply(fr._X[live]), fr._leaf[live])
    assert TreeRouter(tree).route_one(fr._X[live[0]]) == fr._leaf[live[0]]


def test_select_scores_one_candidate_per_leaf_not_the_frontier() -> None:
    seen_rows: list[int] = []

    def greedy(X: np.ndarray) -> int:
        seen_rows.append(len(X))
        return int(np.argmax(X[:, 0]))

    fr = TreeFrontier(_featurize, D, chooser=greedy,
                      tres=TresSettings(max_leaves=16, min_samples_leaf=5, rebuild_every=10**9))
    recs, hosts = _recs(10_000, hosts=5000)
    fr.add_scored(recs, hosts)
    _trained(fr)
    fr.rebuild()
    picked = []
    for _ in range(50):
        e = fr.next(0.0)
        assert e is not None
        picked.append(int(e.url.rsplit("/", 1)[1]) / 1000.0)
        fr.done(e, "fetched")
    assert max(seen_rows) <= fr.n_leaves <= 16  # never more rows than leaves
    assert fr.candidates_scored <= 50 * 16
    assert min(picked) >= 0.5  # the greedy chooser always finds a good leaf
    assert len(fr) == 10_000 - 50


def test_politeness_busy_and_waiting_hosts_are_not_taken() -> None:
    wait = {"slow.example": 3.0}
    fr = TreeFrontier(_featurize, D, ready_in=lambda u: wait.get(u.split("/")[2], 0.0),
                      tres=TresSettings(draws_per_leaf=5))  # fmt: skip
    fr.add_scored([LinkRecord("http://slow.example/a/1", "slow.example", 1)], ["slow.example"])
    assert fr.next(0.0) is None and fr.wait_hint(0.0) == 3.0
    fr.add_scored([LinkRecord("http://busy.example/a/2", "busy.example", 1),
                   LinkRecord("http://busy.example/b/3", "busy.example", 1)],
                  ["busy.example"] * 2)  # fmt: skip
    first = fr.next(0.0)
    assert first is not None and first.host == "busy.example"
    for _ in range(5):
        assert fr.next(0.0) is None  # the other busy.example link waits for its host
    fr.done(first, "fetched")
    second = fr.next(0.0)
    assert second is not None and second.host == "busy.example"
    fr.abandon(second)  # taken but not fetched: back in the tree
    assert len(fr) == 2 and not fr.inflight and fr.features_of(second.lid) is None
    wait.clear()
    got = {e.host for e in iter(lambda: fr.next(0.0), None)}
    assert got == {"slow.example", "busy.example"} and len(fr) == 0


def test_seeds_and_seen_links_and_exhaustion() -> None:
    fr = TreeFrontier(_featurize, D)
    assert add_seeds(fr, ["http://s.example/"]) == 0 and len(fr) == 1
    assert add_seeds(fr, ["http://s.example/"]) == 0 and len(fr) == 1  # known
    e = fr.next(0.0)
    assert e is not None and e.depth == 0 and fr.features_of(e.lid) is not None
    assert not fr.dry  # in flight
    fr.add_scored([LinkRecord("http://s.example/", "s.example", 1)], ["s.example"])
    assert len(fr) == 0  # already seen
    fr.done(e, "fetched")
    assert fr.dry


def test_with_the_persistent_store_and_resume(tmp_path: Path) -> None:
    cat = Catalogue(tmp_path / "c.duckdb")
    run = cat.new_run(domain="book", strategy="tres", max_pages=10, config={}, seeds=[])
    store = FrontierStore(cat.con, run)
    cat.add_flusher(store.flush)
    fr = TreeFrontier(_featurize, D, store=store)
    recs, hosts = _recs(30, hosts=30)
    assert fr.add_scored(recs, hosts) == 30
    store.add_skipped(LinkRecord("http://trap.example/t/1", "trap.example", 40), "trap.example",
                   "depth")  # fmt: skip
    e = fr.next(0.0)
    assert e is not None
    fr.done(e, "fetched")
    cat.commit()
    assert store.states() == {"queued": 29, "fetched": 1, "skipped": 1}
    cat.close()
    cat = Catalogue(tmp_path / "c.duckdb")
    store = FrontierStore(cat.con, run)
    fr2 = TreeFrontier(_featurize, D, store=store)
    assert fr2.restore() == 29 and len(fr2) == 29
    assert e.url in store.seen and "http://trap.example/t/1" in store.seen
    cat.close()


def test_an_empty_tree_takes_back_what_the_dry_rules_queue_again(tmp_path: Path) -> None:
    """A site the page limit closed is extended and its skipped links come back; the
    reserve is kept in the store and opened: every link is taken once (issue 25: tres
    ended with half its budget left and sites it could extend)."""
    settings = Settings().replace(stopping={"max_pages_per_site": 2, "extend_pages": 2,
                                            "max_pages_without_form": 0,
                                            "exhausted_pages": 0})  # fmt: skip
    cat = Catalogue(tmp_path / "c.duckdb")
    run = cat.new_run(domain="book", strategy="tres", max_pages=100, config={}, seeds=[])
    store = FrontierStore(cat.con, run)
    cat.add_flusher(store.flush)
    fr = TreeFrontier(_featurize, D, store=store)
    stats = CrawlStats()
    policy = CrawlPolicy(settings, get_strategy("tres"), frontier=fr, store=store,
                         budget=SiteBudget(settings.stopping), stats=stats,
                         scorer=lambda: FlatScorer(0, 0.5, 1))  # fmt: skip
    a = [LinkRecord(f"http://a.example/p/{i}", "a.example", 1) for i in range(5)]
    b = [LinkRecord(f"http://b.example/q/{i}", "b.example", 2) for i in range(3)]
    nan = np.full(5, np.nan)
    assert fr.takes_back
    assert fr.add_scored(a, ["a.example"] * 5, np.zeros(5), nan) == 5
    fr.add_scored(b, ["b.example"] * 3, np.zeros(3), nan[:3], state="reserve")
    assert len(fr) == 5 and store.n_reserve == 3 and store.n_unloaded == 0
    # a followed page links b/0 after all: it leaves the reserve for the tree
    assert fr.add_scored(b[:1], ["b.example"], np.zeros(1), nan[:1]) == 1
    assert len(fr) == 6 and store.n_reserve == 2
    taken: list[str] = []
    while (e := policy.next_link(0.0)) is not None:
        taken.append(e.url)
        fr.done(e, "fetched")
        policy.page(e.site, 0, 0)
        if len(taken) == 3:
            cat.commit()  # skipped links both committed and buffered are taken back
    assert sorted(taken) == sorted(r.url for r in a + b)  # each once
    assert stats.sites_extended >= 1 and stats.reserve_opened == 1
    assert policy.exhausted() and fr.dry
    cat.commit()
    assert store.states() == {"fetched": 8}
    cat.close()
