"""Parsing in worker processes (crawl.parse_workers): same pages, failures and a broken
pool fall back on parsing in the crawl; the engine with workers records every page."""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
from pathlib import Path

import pytest

from formhunter.catalogue import Catalogue
from formhunter.config import ParseSettings, load_settings
from formhunter.engine import Engine
from formhunter.exceptions import ConfigError
from formhunter.model import Field, Form, Link, Page
from formhunter.parse import parse_page
from formhunter.parse_pool import ParsePool, parse_chunk, worker_count, worker_main
from formhunter.simweb import SimWeb
from formhunter.simweb.server import running_proxy

PAGE = b"""<html><head><title>Cheap flights</title></head><body><h1>Find flights</h1>
<p>Fly to <a href="/paris">Paris</a> or <a href="http://other.example/x">elsewhere</a></p>
<form action="/search"><label>From <input name=origin></label>
<select name=cls><option>Economy</option><option>First</option></select>
<button>Search flights</button></form></body></html>"""


def test_pages_pickle_as_constructor_arguments() -> None:
    page = parse_page("http://ex.com/", PAGE, depth=3)
    page.rendered = True
    assert page.links and page.forms and page.forms[0].fields
    again = pickle.loads(pickle.dumps(page))
    assert again == page and type(again.links[0]) is Link and type(again.forms[0]) is Form
    assert type(again.forms[0].fields[0]) is Field and again.rendered and again.depth == 3
    assert Page.__reduce__(page)[0] is Page


def test_parse_chunk_equals_parse_page() -> None:
    jobs = [("http://ex.com/", PAGE, None, 200, "text/html", 2),
            ("http://ex.com/a", PAGE, "http://ex.com/b", 200, "text/html", 0),
            ("http://ex.com/empty", b"", None, 200, "text/html", 0),
            ("http://ex.com/bin", b"\x00\x01\x02" * 200, None, 200, "text/html", 0)]  # fmt: skip
    pages, cpu = parse_chunk(jobs)
    assert pages[0] == parse_page("http://ex.com/", PAGE, depth=2)
    assert pages[1] == parse_page("http://ex.com/a", PAGE, final_url="http://ex.com/b")
    assert pages[2] is None and pages[3] is None  # failures: parsed again in the crawl
    assert cpu >= 0


def test_pool_parses_in_chunks_and_falls_back_when_broken() -> None:
    async def run() -> None:
        pool = ParsePool(2, chunk=4, flush_seconds=0.01)
        assert await pool.parse(("http://ex.com/", PAGE, None, 200, "text/html", 0)) is None
        await pool.start()
        try:
            jobs = [(f"http://ex.com/{i}", PAGE, None, 200, "text/html", i) for i in range(10)]
            pages = await asyncio.gather(*(pool.parse(j) for j in jobs))
            assert pages == [parse_page(u, b, depth=d) for u, b, _, _, _, d in jobs]
            assert pool.chunks == 3 and pool.cpu_seconds > 0  # 4 + 4 + 2 (flushed by timer)
            bad = await pool.parse(("http://ex.com/e", b"", None, 200, "text/html", 0))
            assert bad is None and pool.running  # a failure is parsed again in the crawl
            # a worker killed: the pool turns itself off, pages come back None
            os.kill(pool._workers[0].proc.pid, signal.SIGKILL)
            results = await asyncio.gather(*(pool.parse(j) for j in jobs[:6]))
            assert None in results
            await asyncio.sleep(0.2)
            assert not pool.running and await pool.parse(jobs[0]) is None
        finally:
            await pool.aclose()
        assert not pool.running

    asyncio.run(run())
    with pytest.raises(ValueError):
        ParsePool(0)


def test_worker_protocol_in_process() -> None:
    """The worker loop: ready line, one answer per chunk (parsed within the chunk's
    [parse] limits), exit at end of input."""
    import io
    import struct

    limits = ParseSettings(max_links=1)
    chunk = pickle.dumps((limits, [("http://ex.com/", PAGE, None, 200, "text/html", 1)]))
    stdin = io.BytesIO(struct.pack("!Q", len(chunk)) + chunk + b"\x00\x00")
    stdout = io.BytesIO()
    handler = signal.getsignal(signal.SIGINT)
    try:
        assert worker_main(stdin, stdout) == 0
    finally:
        signal.signal(signal.SIGINT, handler)
    out = stdout.getvalue()
    assert out.startswith(b"formhunter-parse-worker-ready\n")
    body = out[len(b"formhunter-parse-worker-ready\n"):]
    (n,) = struct.unpack("!Q", body[:8])
    pages, cpu = pickle.loads(body[8:8 + n])
    assert pages == [parse_page("http://ex.com/", PAGE, depth=1, limits=limits)] and cpu >= 0
    assert len(pages[0].links) == 1 < len(parse_page("http://ex.com/", PAGE).links)


def test_engine_with_parse_workers(tmp_path: Path) -> None:
    """Every fetched page is parsed (in the worker) and recorded, the crawl thread's
    parse stage is empty, the workers' CPU is counted apart; unlike settings refused."""
    with pytest.raises(ConfigError, match="parse_workers"):
        load_settings(None, {"crawl": {"parse_workers": -1}})
    with pytest.raises(ConfigError, match="parse_workers"):
        load_settings(None, {"crawl": {"parse_workers": "many"}})
    web = SimWeb(seed=5, n_sites=20, slow_delay=0.0)
    with running_proxy(web=web, port=0, log_file=None) as proxy:
        settings = load_settings(None, {
            "crawl": {"domain": "airfare", "strategy": "bfs", "max_pages": 60,
                      "db": str(tmp_path / "w.duckdb"), "parse_workers": 1},
            "fetch": {"proxy": proxy.url, "min_delay": 0.0, "concurrency": 8, "retries": 0},
        })  # fmt: skip
        cat = Catalogue(settings.crawl.db)
        engine = Engine(settings, cat, seeds=web.seeds("airfare", 4))
        result = asyncio.run(engine.run())
    st = result.stats
    assert result.reason == "budget" and not st.faults
    assert engine.components["parse_workers"] == "1" and not engine.parse_pool.running
    assert st.parsed == st.pages - st.n_errors > 0
    assert st.worker_cpu > 0 and st.stage_cpu["parse"] == 0.0
    rows = cat.con.execute("SELECT count(*), count(title) FILTER (WHERE title <> '')"
                           " FROM pages WHERE error = ''").fetchall()  # fmt: skip
    assert rows[0][0] == st.parsed and rows[0][1] > 0
    assert st.links_new > 0
    cat.close()


def test_parsing_runs_on_every_core_by_default_and_finds_the_same(tmp_path: Path) -> None:
    """The default ("auto") is one worker per core (none on one core); a default crawl finds
    exactly the pages, links, forms and verdicts of a crawl that parses in its thread
    (ordered blocks: what is recorded does not depend on fetch timing)."""
    cores = len(os.sched_getaffinity(0))
    assert worker_count("auto") == (cores if cores > 1 else 0)
    assert worker_count(0) == 0 and worker_count(3) == 3
    web = SimWeb(seed=5, n_sites=20, slow_delay=0.0, page_kb=20)
    seen = []
    with running_proxy(web=web, port=0, log_file=None) as proxy:
        for name, workers in (("thread", {"parse_workers": 0}), ("default", {})):
            settings = load_settings(None, {
                "crawl": {"domain": "airfare", "strategy": "ache", "max_pages": 80,
                          "ordered_block": 8, "db": str(tmp_path / f"{name}.duckdb"),
                          **workers},
                "fetch": {"proxy": proxy.url, "min_delay": 0.0, "concurrency": 8,
                          "retries": 0},
            })  # fmt: skip
            with Catalogue(settings.crawl.db) as cat:
                engine = Engine(settings, cat, seeds=web.seeds("airfare", 4))
                result = asyncio.run(engine.run())
                assert result.reason == "budget" and not result.stats.faults
                assert engine.components.get("parse_workers") == (
                    None if workers else (str(cores) if cores > 1 else None))
                assert engine.parse_pool is None or not engine.parse_pool.running
                seen.append((
                    cat.con.execute("SELECT url, title, n_links, on_topic FROM pages ORDER BY seq"
                                    ).fetchall(),
                    cat.con.execute("SELECT page_url, signature, searchable, domain, relevant"
                                    " FROM forms ORDER BY page_url, signature").fetchall(),
                    cat.con.execute("SELECT url, state FROM frontier ORDER BY url").fetchall(),
                    result.stats.links_new,
                ))  # fmt: skip
    assert seen[0][0] and seen[0][1]
    assert seen[0] == seen[1]
