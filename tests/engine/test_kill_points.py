"""Kills at named points (formhunter.killpoints), then ``--resume``: the run goes on to its
budget with no page, form, path or frontier row lost or duplicated, committed pages are
not fetched again, and the learner goes on from what it had learned (issue 18, 6-8).
Also: a [parse] table in the config changes the crawl, and a huge page parses off the
event loop."""

from __future__ import annotations

import asyncio
import itertools
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import loopback_settings
from kill_helpers import check_catalogue, requested

from formhunter.catalogue import Catalogue
from formhunter.config import load_settings
from formhunter.engine import Engine
from formhunter.fetch import FetchResult
from formhunter.frontier import Entry
from formhunter.interfaces import LinkRecord
from formhunter.parse_pool import TaskParser
from formhunter.simweb.server import ProxyHandle, running_proxy
from formhunter.stats import CrawlStats

MAX_PAGES = 120


@pytest.fixture(scope="module")
def proxy() -> Iterator[ProxyHandle]:
    with running_proxy(seed=5, n_sites=40, slow_delay=0.5) as px:
        yield px


def _run(args: list[str], kill_at: str = "",
         timeout: float = 240) -> subprocess.CompletedProcess[bytes]:  # fmt: skip
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    env.pop("FORMHUNTER_KILL_AT", None)
    if kill_at:
        env["FORMHUNTER_KILL_AT"] = kill_at
    return subprocess.run([sys.executable, "-m", "formhunter.cli", *args], env=env,
                          capture_output=True, timeout=timeout, check=False)  # fmt: skip


def _config(tmp_path: Path, extra: str = "") -> Path:
    cfg = tmp_path / "crawl.toml"
    cfg.write_text(
        "[crawl]\ncommit_every_pages = 20\ncommit_every_seconds = 30.0\n"
        "[fetch]\nmin_delay = 0.02\nconcurrency = 8\nretries = 0\nread_timeout = 0.5\n"
        "total_timeout = 2.0\nmax_bytes = 1000000\n" + extra
    )
    return cfg


@pytest.mark.parametrize(("strategy", "point"), [
    ("bfs", "start-up"), ("bfs", "mid-batch:30"), ("bfs", "commit:3"), ("ache", "learn:60"),
])  # fmt: skip
def test_kill_at_a_named_point_then_resume(proxy: ProxyHandle, tmp_path: Path, strategy: str,
                                           point: str) -> None:  # fmt: skip
    web = proxy.web
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("\n".join(web.seeds("airfare", 6)) + "\n")
    db = tmp_path / "crawl.duckdb"
    first = ["crawl", "--domain", "airfare", "--seeds", str(seeds), "--db", str(db),
             "--max-pages", str(MAX_PAGES), "--strategy", strategy, "--proxy", proxy.url,
             "--config", str(_config(tmp_path)), "--quiet"]  # fmt: skip
    killed = _run(first, kill_at=point)
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    with Catalogue(db, read_only=True) as cat:
        committed = {r[0] for r in cat.con.execute("SELECT url FROM pages").fetchall()}
        robots_known = {r[0] for r in cat.con.execute("SELECT host FROM robots").fetchall()}
        run = cat.run()
        assert run is not None and run.status == "running" and run.seeds
    mark = len(proxy.log)
    resumed = _run(["crawl", "--resume", "--db", str(db), "--quiet"])
    assert resumed.returncode == 0, resumed.stderr.decode()[-2000:]
    check_catalogue(db, MAX_PAGES)
    again, _ = requested(proxy, mark)
    assert not committed & set(again), sorted(committed & set(again))[:5]
    # robots.txt answers committed before the kill are not asked again
    robots_again = {r["host"].split(":")[0] for r in proxy.log[mark:] if r["path"] == "/robots.txt"}
    assert not robots_known & robots_again, sorted(robots_known & robots_again)[:5]
    assert robots_known or not point.startswith("learn")  # 60 pages: commits came before


@pytest.mark.parametrize("point", [
    "start-up:1:TERM",
    pytest.param("start-up:1:HUP", marks=pytest.mark.slow),
    pytest.param("commit:2:TERM", marks=pytest.mark.slow),
    pytest.param("mid-batch:10:INT", marks=pytest.mark.slow),
    "finish:1:HUP",  # the loop over, the learners saving: found by scripts/kill_soak.py
])  # fmt: skip
def test_a_signal_at_any_moment_is_a_clean_stop(proxy: ProxyHandle, tmp_path: Path,
                                                point: str) -> None:  # fmt: skip
    """SIGTERM/SIGHUP/SIGINT, during start-up too (issue 29): exit 130, the run marked
    interrupted, and --resume finishes it with nothing lost or duplicated."""
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("\n".join(proxy.web.seeds("airfare", 6)) + "\n")
    db = tmp_path / "crawl.duckdb"
    first = ["crawl", "--domain", "airfare", "--seeds", str(seeds), "--db", str(db),
             "--max-pages", str(MAX_PAGES), "--strategy", "bfs", "--proxy", proxy.url,
             "--config", str(_config(tmp_path)), "--quiet"]  # fmt: skip
    stopped = _run(first, kill_at=point)
    assert stopped.returncode == 130, stopped.stderr.decode()[-2000:]
    assert b"Traceback" not in stopped.stderr, stopped.stderr.decode()[-2000:]
    with Catalogue(db, read_only=True) as cat:
        run = cat.run()
        assert run is not None and run.status == "interrupted" and run.seeds
    resumed = _run(["crawl", "--resume", "--db", str(db), "--quiet"])
    assert resumed.returncode == 0, resumed.stderr.decode()[-2000:]
    check_catalogue(db, MAX_PAGES)


def _settings(proxy: ProxyHandle, db: Path, **sections: dict[str, Any]) -> Any:
    crawl = {"domain": "airfare", "strategy": "ache", "max_pages": 150, "commit_every_pages": 25}
    return loopback_settings(proxy, db, {"crawl": crawl, "learning": {"threshold": 3}}, **sections)


def test_resume_keeps_what_the_learner_learned(proxy: ProxyHandle, tmp_path: Path) -> None:
    db = tmp_path / "ache.duckdb"
    seeds = proxy.web.seeds("book", 6)
    book = {"domain": "book", "critic": "keywords"}  # finds relevant forms in 150 pages
    with Catalogue(db) as cat:
        first = Engine(_settings(proxy, db, crawl=book), cat, seeds=seeds)
        assert asyncio.run(first.run()).reason == "budget"
    learner = first.pipeline.components.learners[0][1]
    assert learner.pages_seen > 0 and len(learner.repository) > 0 and learner.iterations
    with Catalogue(db) as cat:
        second = Engine(_settings(proxy, db, crawl={**book, "max_pages": 300}), cat,
                        resume=True)  # fmt: skip
        assert asyncio.run(second.run()).stats.pages == 300
        again = second.pipeline.components.learners[0][1]
        # the path repository, the counters and the iterations went on from the first session
        assert again.pages_seen > learner.pages_seen
        assert len(again.repository) >= len(learner.repository)
        assert set(map(tuple, learner.repository.paths)) <= set(map(tuple, again.repository.paths))
        assert again.iterations[:len(learner.iterations)] == learner.iterations
        rows = cat.con.execute("SELECT iteration, at_page FROM learning_iterations"
                               " ORDER BY iteration").fetchall()  # fmt: skip
        at = [r[1] for r in rows]
        assert [r[0] for r in rows] == list(range(1, len(rows) + 1)) and at == sorted(at)
        assert cat.learner_states(1).keys() == {"ache-online"}


def test_a_parse_table_in_the_config_changes_the_crawl(proxy: ProxyHandle,
                                                       tmp_path: Path) -> None:  # fmt: skip
    seeds = proxy.web.seeds("airfare", 4)
    n_links = {}
    for name, parse in (("default", {}), ("limited", {"max_links": 2, "max_forms": 1})):
        db = tmp_path / f"{name}.duckdb"
        settings = _settings(proxy, db, crawl={"strategy": "bfs", "max_pages": 30},
                             parse=parse)  # fmt: skip
        with Catalogue(db) as cat:
            asyncio.run(Engine(settings, cat, seeds=seeds).run())
            n_links[name] = cat.con.execute(
                "SELECT max(n_links), max(n_forms) FROM pages").fetchall()[0]  # fmt: skip
    assert n_links["default"][0] > 2 and n_links["limited"] == (2, 1), n_links


def test_a_huge_page_parses_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """While a big page parses, the loop keeps running (it would stall for the whole parse
    on the loop)."""

    body = b"<html><body>" + b"<div><p>text <a href='/x'>x</a></p></div>" * 60_000 + b"</body>"
    settings = load_settings(None, {"crawl": {"domain": "airfare"}})

    stats = CrawlStats()
    parser = TaskParser(settings.parse, stats)  # the fetch task's parser (Engine._fetch)
    result = FetchResult(url="http://big.example/", status=200, body=body,
                         content_type="text/html")  # fmt: skip
    entry = Entry(1, "big.example", 0, 1.0, LinkRecord("http://big.example/", "big.example", 0))

    async def run() -> tuple[Any, list[float]]:
        ticks: list[float] = []

        async def ticker() -> None:
            while True:
                ticks.append(time.perf_counter())
                await asyncio.sleep(0.01)

        t = asyncio.ensure_future(ticker())
        await asyncio.sleep(0.02)
        t0 = time.perf_counter()
        out = result, await parser.parse(entry, result)
        ticks.append(time.perf_counter() - t0)  # the parse's duration, last
        t.cancel()
        return out, ticks

    (_, page), ticks = asyncio.run(run())
    parse_seconds = ticks.pop()
    assert page is not None and len(page.links) >= 1 and stats.parsed_off_loop == 1
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    # on the loop, one gap would be the whole parse
    assert parse_seconds > 0.2 and max(gaps) < parse_seconds / 3, (parse_seconds, max(gaps))
