"""Transient fetch failures: a crawl against a real HTTP server on loopback whose pages
fail (a read timeout, 503s) before they answer (``[frontier] requeue_failed``)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from formhunter.catalogue import Catalogue
from formhunter.cli import main
from formhunter.config import load_settings
from formhunter.engine import CrawlResult, Engine
from formhunter.frontier.policy import transient
from formhunter.reads import runs_table
from formhunter.web.queries import runs as web_runs

FORM = ("<form action='/find' method='get'><input name='from'><input name='to'>"
        "<input type='submit' value='Search flights'></form>")  # fmt: skip


def _page(body: str) -> str:
    return f"<html><head><title>Flights</title></head><body>{body}</body></html>"


class FlakySite:
    """/ links to /slow (times out on its first request), /busy (503 twice) and /down
    (503 always); each answered page holds a form."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        self.hits[path] += 1
        n = self.hits[path]
        if path == "/robots.txt":
            return web.Response(text="User-agent: *\nAllow: /\n", content_type="text/plain")
        if path == "/":
            links = "".join(f"<a href='/{p}'>{p} flights</a>" for p in ("slow", "busy", "down"))
            return web.Response(text=_page(links), content_type="text/html")
        if path == "/slow" and n == 1:
            await asyncio.sleep(2.0)  # past the read timeout
        elif (path == "/busy" and n <= 2) or path == "/down":
            return web.Response(status=503, text="busy")
        elif path not in ("/slow", "/busy"):
            return web.Response(status=404, text="not here")
        return web.Response(text=_page(f"<h1>Flights {path}</h1>{FORM}"), content_type="text/html")


async def _crawl(tmp_path: Path, requeue: int) -> tuple[CrawlResult, FlakySite, dict[str, Any]]:
    site = FlakySite()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", site.handle)
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = runner.addresses[0][1]
    settings = load_settings(None, {
        "crawl": {"db": str(tmp_path / f"r{requeue}.duckdb"), "domain": "airfare",
                  "strategy": "bfs", "max_pages": 20},
        "fetch": {"min_delay": 0.0, "retries": 0, "read_timeout": 0.4, "total_timeout": 1.0,
                  "allow_private": True, "concurrency": 4},
        "frontier": {"requeue_failed": requeue},
    })  # fmt: skip
    cat = Catalogue(settings.crawl.db)
    try:
        result = await Engine(settings, cat, seeds=[f"http://127.0.0.1:{port}/"]).run()
        rows = cat.con.execute("SELECT url, error FROM pages").fetchall()
        states = cat.con.execute("SELECT url, state FROM frontier").fetchall()
        forms = cat.con.execute("SELECT page_url FROM forms").fetchall()
        listed = [runs_table(cat).to_pylist()[0]["requeued"], web_runs(cat.con)[0]["requeued"]]
    finally:
        cat.close()
        await runner.cleanup()
    pages = {u.rsplit("/", 1)[1] or "/": e for u, e in rows}
    return result, site, {"pages": pages, "states": {u.rsplit("/", 1)[1]: s for u, s in states},
                          "forms": len(forms), "requeued": listed}


def test_transient_failures_are_queued_again_and_cost_no_page(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    result, site, seen = asyncio.run(_crawl(tmp_path, requeue=2))
    assert result.reason == "exhausted" and not result.stats.faults
    # each page recorded once: the failed attempts are neither pages nor rows
    assert seen["pages"] == {"/": "", "slow": "", "busy": "", "down": "http-5xx"}
    assert result.stats.pages == 4
    assert (site.hits["/slow"], site.hits["/busy"], site.hits["/down"]) == (2, 3, 3)
    assert result.stats.requeued == 1 + 2 + 2  # /down: tried 1 + requeue_failed times
    assert seen["states"]["slow"] == seen["states"]["busy"] == "fetched"
    assert seen["states"]["down"] == "failed"
    assert seen["forms"] == 1  # the site's one form (on /slow and /busy)
    # the count reaches the runs table: `formhunter runs` and the web page
    assert seen["requeued"] == [5, 5]
    assert main(["runs", "--db", str(tmp_path / "r2.duckdb"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["requeued"] == 5


def test_without_requeue_a_transient_failure_loses_the_page(tmp_path: Path) -> None:
    result, site, seen = asyncio.run(_crawl(tmp_path, requeue=0))
    assert seen["pages"] == {"/": "", "slow": "timeout", "busy": "http-5xx", "down": "http-5xx"}
    assert result.stats.requeued == 0 and seen["forms"] == 0 and seen["requeued"] == [0, 0]
    assert (site.hits["/slow"], site.hits["/busy"], site.hits["/down"]) == (1, 1, 1)


def test_which_failures_are_transient() -> None:
    assert transient("timeout", 0) and transient("connect", 0) and transient("disconnected", 0)
    assert transient("http-5xx", 503) and transient("http-4xx", 429)
    assert not transient("http-5xx", 501) and not transient("http-4xx", 404)
    assert not transient("dns", 0) and not transient("too-large", 200)
    assert not transient("", 503)
