"""The crawl engine end to end against the simulated web, through the real proxy on loopback."""

from __future__ import annotations

import asyncio
import gc
import random
from collections import defaultdict
from collections.abc import Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from engine_helpers import crawl_once, loopback_settings
from protego import Protego

from formhunter.catalogue import Catalogue
from formhunter.config import Settings, load_settings
from formhunter.engine import Engine
from formhunter.fetch import Fetcher
from formhunter.interfaces import LinkRecord, LinkScorer, PageOutcome, RecordScorer
from formhunter.registry import register
from formhunter.simweb.server import ProxyHandle, running_proxy
from formhunter.strategies import Strategy, add_strategy
from formhunter.urls import canonicalize


@pytest.fixture(scope="module")
def proxy() -> Iterator[ProxyHandle]:
    with running_proxy(seed=11, n_sites=40, slow_delay=1.5) as px:
        yield px


def _settings(proxy: ProxyHandle, db: Path, **sections: dict[str, Any]) -> Settings:
    crawl = {"domain": "airfare", "strategy": "bfs", "max_pages": 100, "commit_every_pages": 50}
    return loopback_settings(proxy, db, {"crawl": crawl}, **sections)


_crawl = crawl_once


def _check_log(web: Any, log: list[dict[str, Any]], min_delay: float) -> dict[str, int]:
    """robots.txt first and obeyed, spacing >= max(min_delay, Crawl-delay); pages per host."""
    by_host: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in log:
        by_host[rec["host"]].append(rec)
    counts = {}
    for host, recs in by_host.items():
        assert recs[0]["path"] == "/robots.txt", f"{host}: robots.txt is asked first"
        robots = Protego.parse(web.fetch(f"http://{host}/robots.txt").text())
        delay = max(min_delay, float(robots.crawl_delay("formhunter") or 0.0))
        pages = [r for r in recs if r["path"] != "/robots.txt"]
        for r in pages:
            url = f"http://{host}{r['path']}"
            assert robots.can_fetch(url, "formhunter"), f"fetched a disallowed {url}"
        times = [r["time"] for r in pages]
        for a, b in pairwise(times):
            assert b - a >= delay - 0.05, f"{host}: {b - a:.3f}s between requests < {delay}"
        counts[host] = len(pages)
    return counts


def test_robots_and_politeness_from_the_server_log(proxy: ProxyHandle, tmp_path: Path) -> None:
    web = proxy.web
    hostile = web.hostile()
    seeds = [*hostile["robots_disallow"][:2], *web.seeds("airfare", 2)]
    start = len(proxy.log)
    settings = _settings(proxy, tmp_path / "c.duckdb", crawl={"max_pages": 60},
                         fetch={"min_delay": 0.25})  # fmt: skip
    result, cat = _crawl(settings, seeds)
    assert result.stats.pages == 60 and not result.stats.faults
    assert result.stats.skipped["robots"] >= 1  # the disallowed seeds
    counts = _check_log(web, proxy.log[start:], 0.25)
    assert max(counts.values()) >= 3
    fetched = {r[0] for r in cat.con.execute("SELECT url FROM pages").fetchall()}
    assert len(fetched) == 60
    cat.close()
    # A host asking for Crawl-delay: 1, crawled alone (depth 0: only the seeds).
    slow = hostile["crawl_delay"][0]
    inside = [u for u, _ in web.outlinks(slow) if u.startswith(slow)][:3]
    start = len(proxy.log)
    settings = _settings(proxy, tmp_path / "d.duckdb", crawl={"max_pages": 10},
                         fetch={"min_delay": 0.0}, frontier={"max_depth": 0})  # fmt: skip
    result, cat = _crawl(settings, [slow, *inside])
    cat.close()
    counts = _check_log(web, proxy.log[start:], 0.0)
    assert counts == {slow.split("/")[2]: len({slow, *inside})}


def test_hostile_parts_are_counted_and_do_not_stop_the_crawl(
    proxy: ProxyHandle, tmp_path: Path
) -> None:
    web = proxy.web
    seeds = [u for urls in web.hostile().values() for u in urls]
    # requeue_failed 0: each failure is counted once, at its first fetch (a transient
    # one would otherwise come back twice first, maybe after the 150 pages;
    # tests/engine/test_requeue.py tests the requeue)
    settings = _settings(proxy, tmp_path / "h.duckdb", crawl={"max_pages": 150},
                         frontier={"max_depth": 6, "requeue_failed": 0})  # fmt: skip
    result, cat = _crawl(settings, seeds)
    st = result.stats
    assert st.requeued == 0
    assert result.reason in ("budget", "exhausted") and not st.faults
    for kind in ("http-4xx", "http-5xx", "content-type", "too-large", "timeout",
                 "redirect-loop"):  # fmt: skip
        assert st.errors[kind] >= 1, (kind, st.errors)
    assert st.skipped["robots"] >= 1
    rows = cat.con.execute(
        "SELECT error, count(*) FROM pages WHERE error <> '' GROUP BY error"
    ).fetchall()
    assert dict(rows) == dict(st.errors)
    assert cat.stats(result.run_id)["pages"] == st.pages
    # session ids are canonicalised away: no URL is fetched twice
    urls = [r[0] for r in cat.con.execute("SELECT url FROM pages").fetchall()]
    assert len(urls) == len(set(urls)) and all(canonicalize(u) == u for u in urls)
    cat.close()


def test_site_limits_and_form_paths(proxy: ProxyHandle, tmp_path: Path) -> None:
    web = proxy.web
    settings = _settings(proxy, tmp_path / "s.duckdb", crawl={"strategy": "baseline",
                         "max_pages": 120}, stopping={"max_pages_per_site": 6,
                         "max_forms_per_site": 0, "extend_pages": 0})  # fmt: skip
    result, cat = _crawl(settings, web.seeds("airfare", 5))
    assert not result.stats.faults
    per_site = cat.con.execute("SELECT max(n) FROM (SELECT count(*) n FROM pages GROUP BY site)")
    assert per_site.fetchall()[0][0] <= 6 + 2  # fetches in flight when a site closes
    forms = cat.con.execute("SELECT form_id, page_url, site, signature FROM forms").fetchall()
    assert forms and len({(f[2], f[3]) for f in forms}) == len(forms)
    for form_id, page_url, _, _ in forms:
        hops = cat.con.execute(
            "SELECT url FROM form_paths WHERE form_id = ? ORDER BY hop", [form_id]
        ).fetchall()
        assert hops[-1][0] == page_url
        assert canonicalize(hops[0][0]) in {canonicalize(s) for s in web.seeds("airfare", 5)}
    cat.close()


def test_page_limit_grows_when_nothing_else_is_queued(proxy: ProxyHandle, tmp_path: Path
                                                       ) -> None:  # fmt: skip
    """Sites left at the page limit get ``extend_pages`` more once the frontier runs dry:
    their skipped links are queued again, and the crawl goes on past the old limit."""
    stopping = {"max_pages_per_site": 6, "max_forms_per_site": 0}
    seeds = proxy.web.seeds("airfare", 5)
    crawl = {"strategy": "baseline", "max_pages": 400}
    fixed, cat = _crawl(_settings(proxy, tmp_path / "f.duckdb", crawl=crawl,
                                  stopping=stopping | {"extend_pages": 0}), seeds)  # fmt: skip
    assert fixed.reason == "site-limits" and fixed.stats.sites_extended == 0
    fixed_pages = fixed.stats.pages
    cat.close()
    grown, cat = _crawl(_settings(proxy, tmp_path / "g.duckdb", crawl=crawl,
                                  stopping=stopping | {"extend_pages": 6}), seeds)  # fmt: skip
    st = grown.stats
    assert not st.faults and st.sites_extended >= 1
    assert st.pages > fixed_pages
    per_site = dict(cat.con.execute("SELECT site, count(*) FROM pages GROUP BY site").fetchall())
    assert max(per_site.values()) > 6 + 2
    assert max(per_site.values()) <= 6 * (1 + st.sites_extended) + 2
    # the skipped links were queued again, not added twice: no page is fetched twice
    twice = cat.con.execute("SELECT count(*) - count(DISTINCT url) FROM pages").fetchall()
    assert twice[0][0] == 0
    cat.close()


class _Swapper:
    """A learner that swaps in a new scorer every 25 pages and records the iteration."""

    def __init__(self, catalogue: Catalogue, run_id: int) -> None:
        self.catalogue, self.run_id, self.n = catalogue, run_id, 0

    def observe(self, outcome: PageOutcome) -> Any:
        self.n += 1
        assert outcome.path[-1] == outcome.page.url
        if self.n % 25:
            return None
        self.catalogue.record_learning(self.run_id, at_page=self.n, n_paths=1, seconds=0.0,
                                       features={"url": ["fly"]}, learner="swapper")  # fmt: skip
        return _Levels2()

    def failed(self, link: LinkRecord, lid: int) -> None:
        pass

    def finish(self) -> None:
        self.finished = True

    def state(self) -> bytes:
        return b""

    def restore(self, state: bytes) -> LinkScorer | None:
        return None


class _Levels2(RecordScorer):
    n_levels = 2

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        lv = np.array([0 if "flight" in lk.url else 1 for lk in links])
        return lv, np.ones(len(links))


@register("learner", "test-swapper")
def _swapper(catalogue: Catalogue, run_id: int) -> _Swapper:
    return _Swapper(catalogue, run_id)


def test_learner_swaps_scorer_and_frontier_is_reranked(
    proxy: ProxyHandle, tmp_path: Path
) -> None:
    add_strategy(Strategy(name="test-learning", description="test", scorer="bfs",
                          learners=("test-swapper",), site_limits=False))  # fmt: skip
    settings = _settings(proxy, tmp_path / "l.duckdb",
                         crawl={"strategy": "test-learning", "max_pages": 60})  # fmt: skip
    result, cat = _crawl(settings, proxy.web.seeds("airfare", 3))
    assert not result.stats.faults
    assert result.stats.reranks >= 2 and result.stats.learning_iterations >= 2
    rows = cat.con.execute("SELECT iteration, learner FROM learning_iterations").fetchall()
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1)) and rows[0][1] == "swapper"
    levels = cat.con.execute(
        "SELECT DISTINCT level FROM frontier WHERE state = 'queued'"
    ).fetchall()
    assert {r[0] for r in levels} <= {0, 1, 2}
    cat.close()


class _CountingCritic:
    """The keyword critic, recording the size of every judge_many call."""

    def __init__(self, domain: str) -> None:
        from formhunter.critics.keywords import KeywordCritic
        from formhunter.keywords import domain_keywords

        self.inner = KeywordCritic(domain, domain_keywords(domain))
        self.calls: list[int] = []

    def judge(self, forms: Sequence[Any], page: Any) -> list[Any]:
        raise AssertionError("the engine must call judge_many")

    def judge_many(self, batch: Sequence[tuple[Any, Any]]) -> list[list[Any]]:
        self.calls.append(len(batch))
        return self.inner.judge_many(batch)

    def models(self) -> dict[str, Any]:
        return self.inner.models()


class _CountingPages:
    """The keyword page classifier, recording the size of every page_scores call."""

    def __init__(self, domain: str) -> None:
        from formhunter.keywords import domain_keywords
        from formhunter.page_classifiers.keywords import KeywordPageClassifier

        self.inner = KeywordPageClassifier(domain_keywords(domain))
        self.calls: list[int] = []

    def page_score(self, page: Any) -> float:
        raise AssertionError("the engine must call page_scores")

    def page_scores(self, pages: Sequence[Any]) -> list[float]:
        self.calls.append(len(pages))
        return self.inner.page_scores(pages)


_COUNTERS: dict[str, Any] = {}


@register("critic", "test-counting")
def _counting_critic(domain: str) -> _CountingCritic:
    _COUNTERS["critic"] = _CountingCritic(domain)
    return _COUNTERS["critic"]


@register("page_classifier", "test-counting")
def _counting_pages(domain: str) -> _CountingPages:
    _COUNTERS["pages"] = _CountingPages(domain)
    return _COUNTERS["pages"]


def test_pages_are_classified_and_judged_in_batches(proxy: ProxyHandle, tmp_path: Path) -> None:
    """Completed fetches are batched: one classifier call per batch, every page once."""
    settings = _settings(proxy, tmp_path / "b.duckdb",
                         crawl={"max_pages": 120, "critic": "test-counting",
                                "page_classifier": "test-counting",
                                "parse_workers": 0},  # the crawl thread's parse stage
                         fetch={"concurrency": 32})  # fmt: skip
    threshold = gc.get_threshold()
    result, cat = _crawl(settings, proxy.web.seeds("airfare", 8))
    assert gc.get_threshold() == threshold and gc.get_freeze_count() == 0  # restored
    st = result.stats
    assert result.reason == "budget" and not st.faults
    pages, critic = _COUNTERS["pages"], _COUNTERS["critic"]
    assert sum(pages.calls) == st.parsed and max(pages.calls) > 1
    assert len(pages.calls) < st.parsed / 2  # batched, not page by page
    assert critic.calls and sum(critic.calls) <= st.parsed
    rows = cat.con.execute("SELECT count(*), count(DISTINCT url) FROM pages").fetchall()
    assert rows == [(st.pages, st.pages)]
    fetched = cat.con.execute(
        "SELECT count(*) FROM frontier WHERE state = 'fetched' AND reason <> 'redirect-target'"
    ).fetchall()
    assert fetched[0][0] == st.pages - st.n_errors
    for key in ("parse", "classify", "catalogue"):
        assert st.stage_cpu[key] > 0 and st.stage[key] > 0
    wall, cpu = st.seconds, st.cpu_seconds
    sum(range(200_000))
    assert cpu > 0 and (st.seconds, st.cpu_seconds) == (wall, cpu)  # frozen at the end
    cat.close()


class _JitteryFetcher(Fetcher):
    """The real fetcher, each fetch held back a random 0-30 ms first: another machine load."""

    def __init__(self, settings: Any, seed: int) -> None:
        super().__init__(settings)
        self.rng = random.Random(seed)

    async def fetch(self, url: str) -> Any:
        await asyncio.sleep(self.rng.random() * 0.03)
        return await super().fetch(url)


def test_ordered_blocks_make_a_learning_crawl_independent_of_fetch_timing(
        proxy: ProxyHandle, tmp_path: Path) -> None:  # fmt: skip
    """With crawl.ordered_block, pages are recorded in hand-out order: two crawls whose
    fetches come back in other orders fetch the same pages, learn at the same pages and
    find the same forms (no crawl-delay: politeness waits are timing too)."""
    runs = []
    for i, jitter in enumerate((1, 2)):
        settings = _settings(proxy, tmp_path / f"o{i}.duckdb",
                             crawl={"strategy": "ache", "max_pages": 150, "ordered_block": 8},
                             learning={"threshold": 2, "retrain_pages": 20},
                             fetch={"concurrency": 16, "max_crawl_delay": 0.0})  # fmt: skip
        cat = Catalogue(settings.crawl.db)
        result = asyncio.run(Engine(settings, cat, seeds=proxy.web.seeds("airfare", 6),
                                    fetcher=_JitteryFetcher(settings.fetch, jitter)).run())
        assert result.reason == "budget" and not result.stats.faults
        runs.append([cat.con.execute(q).fetchall() for q in (
            "SELECT url FROM pages ORDER BY seq",
            "SELECT at_page FROM learning_iterations ORDER BY iteration",
            "SELECT site, signature, found_after_pages FROM forms ORDER BY form_id")])
        cat.close()
    assert runs[0][1], "the crawl learned"
    assert runs[0] == runs[1]


def test_batch_settings(tmp_path: Path) -> None:
    """crawl.batch_pages/batch_seconds are settings (TOML or overrides), validated."""
    from formhunter.exceptions import ConfigError

    s = load_settings(None)
    assert (s.crawl.batch_pages, s.crawl.batch_seconds) == (64, 0.05)
    cfg = tmp_path / "b.toml"
    cfg.write_text("[crawl]\nbatch_pages = 8\nbatch_seconds = 0.01\n")
    s = load_settings(cfg, {"crawl": {"batch_seconds": 0.0}})
    assert (s.crawl.batch_pages, s.crawl.batch_seconds) == (8, 0.0)
    for bad in ({"batch_pages": 0}, {"batch_seconds": -0.1}, {"batch_seconds": 11.0}):
        with pytest.raises(ConfigError, match="batch_"):
            load_settings(None, {"crawl": bad})


@pytest.mark.browser
class _NothingOnTopic:
    """A page classifier that finds every page off topic."""

    def __init__(self, domain: str) -> None:
        self.domain = domain

    def page_score(self, page: Any) -> float:
        return 0.0

    def page_scores(self, pages: Sequence[Any]) -> list[float]:
        return [0.0] * len(pages)


register("page_classifier", "test-nothing-on-topic")(_NothingOnTopic)


def test_on_topic_policy_follows_seeds_whatever_their_score(
    proxy: ProxyHandle, tmp_path: Path
) -> None:
    """Baseline follows outlinks of on-topic pages only, but a seed is always a way in
    (without the reserve, the other links are dropped and the end reason says so)."""
    seeds = proxy.web.seeds("airfare", 2)
    settings = _settings(proxy, tmp_path / "f.duckdb",
                         crawl={"strategy": "baseline", "max_pages": 2000,
                                "page_classifier": "test-nothing-on-topic"},
                         frontier={"reserve": False})  # fmt: skip
    result, cat = _crawl(settings, seeds)
    st = result.stats
    assert result.reason == "not-followed" and not st.faults
    rows = cat.con.execute("SELECT depth, on_topic FROM pages").fetchall()
    cat.close()
    assert {d for d, _ in rows} == {0, 1}, "the seeds' links, and nothing beyond"
    assert sum(d == 1 for d, _ in rows) > len(seeds)
    assert not any(t for _, t in rows)
    assert st.links_not_followed > 0 and not st.links_reserved


def test_reserve_keeps_a_crawl_going_until_its_budget(proxy: ProxyHandle,
                                                      tmp_path: Path) -> None:  # fmt: skip
    """The same crawl that ran dry at the seeds' links (above) goes on with the links
    of off-topic pages kept in reserve, best first, until its budget; the frontier
    still holds allowed links at the end."""
    seeds = proxy.web.seeds("airfare", 2)
    settings = _settings(proxy, tmp_path / "f.duckdb",
                         crawl={"strategy": "baseline", "max_pages": 300,
                                "page_classifier": "test-nothing-on-topic"})  # fmt: skip
    result, cat = _crawl(settings, seeds)
    st = result.stats
    assert result.reason == "budget" and not st.faults
    assert st.pages == 300
    assert st.reserve_opened >= 1 and st.links_reserved > 0
    depths = {r[0] for r in cat.con.execute("SELECT DISTINCT depth FROM pages").fetchall()}
    assert max(depths) >= 2, "pages beyond the seeds' links were fetched"
    left = cat.con.execute("SELECT count(*) FROM frontier WHERE state IN ('queued', 'reserve')"
                           ).fetchall()[0][0]  # fmt: skip
    end = cat.con.execute("SELECT end_reason FROM runs").fetchall()[0][0]
    cat.close()
    assert left > 0 and end == "budget"


def test_render_auto_finds_script_built_forms(proxy: ProxyHandle, tmp_path: Path) -> None:
    from formhunter.simweb.truth import form_rows

    web = proxy.web
    url = web.hostile()["js_form"][0]
    spec = web.page(url)
    assert spec is not None
    js_only = {f["signature"] for f in form_rows(spec) if f["js_only"]}
    static = {f["signature"] for f in form_rows(spec) if not f["js_only"]}
    settings = _settings(proxy, tmp_path / "r.duckdb", crawl={"max_pages": 1},
                         render={"mode": "auto"}, frontier={"max_depth": 0})  # fmt: skip
    result, cat = _crawl(settings, [url])
    assert not result.stats.faults and result.stats.stage["render"] > 0
    rows = dict(cat.con.execute("SELECT signature, rendered FROM forms").fetchall())
    assert js_only and all(rows.get(sig) is True for sig in js_only), rows
    assert all(rows.get(sig) is False for sig in static), rows
    assert cat.con.execute("SELECT rendered FROM pages").fetchall() == [(True,)]
    cat.close()
