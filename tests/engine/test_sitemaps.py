"""XML sitemaps named by robots.txt (``fetch.sitemaps``): crawls through a real HTTP
server on loopback, asked as a forward proxy for virtual hosts (``loopweb_helpers``),
with the address guard on (no ``allow_private``)."""

from __future__ import annotations

import asyncio
import gzip
import time
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from loopweb_helpers import LoopWeb
from policy_helpers import FlatScorer, policy_over_store

from formhunter.catalogue import Catalogue
from formhunter.config import Settings, SitemapSettings, load_settings
from formhunter.engine import CrawlResult, Engine, Listener
from formhunter.exceptions import ConfigError
from formhunter.fetch.sitemaps import parse_sitemap
from formhunter.frontier.policy import Follow

SITE = "http://www.fly-cheap.test"
FORM = ("<form action='/results' method='get'><input name='from'><input name='to'>"
        "<input name='depart' type='date'><input type='submit' value='Search flights'></form>")
HOME = ("<html><head><title>Fly cheap: flights and airfare</title></head><body>"
        "<h1>Cheap flights</h1><a href='/about'>About us</a> <a href='/deals'>Deals</a>"
        "</body></html>")  # fmt: skip


def _html(title: str, body: str = "") -> str:
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>"


def _urlset(*paths: str, base: str = SITE) -> bytes:
    urls = "".join(f"<url><loc>{p if '://' in p else base + p}</loc></url>" for p in paths)
    return (b'<?xml version="1.0" encoding="UTF-8"?>'
            b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            + urls.encode() + b"</urlset>")  # fmt: skip


def _index(*paths: str) -> bytes:
    maps = "".join(f"<sitemap><loc>{SITE}{p}</loc></sitemap>" for p in paths)
    return (b'<?xml version="1.0" encoding="UTF-8"?>'
            b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            + maps.encode() + b"</sitemapindex>")  # fmt: skip


def _file(w: LoopWeb, path: str, body: bytes, content_type: str = "application/xml") -> None:
    async def handler(_: web.Request) -> web.StreamResponse:
        return web.Response(body=body, content_type=content_type)

    w.route(path, handler)


def _site(w: LoopWeb, robots: str) -> None:
    """The site: a home page and three pages; its flight search form is on
    /flight-search, which no page links to."""
    w.robots(robots)
    w.html("/", HOME)
    w.html("/about", _html("About fly cheap"))
    w.html("/deals", _html("Flight deals", "<p>Cheap airfare to Rome</p>"))
    w.html("/flight-search", _html("Search flights", FORM))


async def _crawl(tmp_path: Path, w: LoopWeb, strategy: str, name: str,
                 listener: Listener | None = None,
                 **sections: dict[str, Any]) -> tuple[CrawlResult, dict[str, Any]]:  # fmt: skip
    base: dict[str, dict[str, Any]] = {
        "crawl": {"db": str(tmp_path / f"{name}.duckdb"), "domain": "airfare",
                  "strategy": strategy, "max_pages": 40},
        "fetch": {"proxy": w.base, "min_delay": 0.0, "retries": 0, "read_timeout": 2.0,
                  "total_timeout": 5.0, "concurrency": 4},
    }  # fmt: skip
    for k, v in sections.items():
        base.setdefault(k, {}).update(v)
    settings = load_settings(None, base)
    cat = Catalogue(settings.crawl.db)
    try:
        engine = Engine(settings, cat, seeds=[SITE + "/"])
        if listener is not None:
            engine.listen(listener)
        result = await engine.run()
        seen = {
            "pages": {r[0].removeprefix(SITE): r[1] for r in
                      cat.con.execute("SELECT url, error FROM pages").fetchall()},
            "forms": [r[0].removeprefix(SITE) for r in
                      cat.con.execute("SELECT page_url FROM forms").fetchall()],
            "frontier": {r[0]: (r[1], r[2], r[3]) for r in cat.con.execute(
                "SELECT url, state, reason, parent FROM frontier").fetchall()},
        }  # fmt: skip
    finally:
        cat.close()
    return result, seen


@pytest.mark.parametrize("strategy", ["bfs", "ache"])
def test_a_search_page_linked_only_from_the_sitemap_is_found(tmp_path: Path,
                                                              strategy: str) -> None:  # fmt: skip
    robots = f"User-agent: *\nDisallow: /private/\nSitemap: {SITE}/sitemap_index.xml\n"

    async def run() -> tuple[list[str], CrawlResult, dict[str, Any], CrawlResult,
                             dict[str, Any]]:  # fmt: skip
        async with LoopWeb() as w:
            _site(w, robots)
            _file(w, "/sitemap_index.xml", _index("/sitemap-pages.xml.gz", "/sitemap-news.xml"))
            _file(w, "/sitemap-pages.xml.gz", gzip.compress(_urlset(
                "/about", "/flight-search", "/private/admin", "http://10.0.0.1/search",
                "http://www.elsewhere.test/search")), "application/gzip")  # fmt: skip
            _file(w, "/sitemap-news.xml", _urlset("/deals", "/deals"))
            off = await _crawl(tmp_path, w, strategy, "off", sitemaps={"max_per_site": 0})
            w.hits.clear()
            on = await _crawl(tmp_path, w, strategy, "on")
            return w.paths(), *off, *on

    paths, off, seen_off, on, seen_on = asyncio.run(run())
    assert seen_off["forms"] == [] and on.stats.sitemaps == 0 + 3
    assert off.stats.sitemaps == 0 and "/flight-search" not in seen_off["pages"]
    # with sitemaps, the page only the sitemap names is crawled and its form found
    assert seen_on["forms"] == ["/flight-search"], seen_on
    assert seen_on["pages"]["/flight-search"] == ""
    state, _, parent = seen_on["frontier"][SITE + "/flight-search"]
    assert state == "fetched" and parent == SITE + "/sitemap-pages.xml.gz"
    # each sitemap fetched once, politely (robots.txt first), never the robots-disallowed page
    assert paths.count("/sitemap_index.xml") == paths.count("/sitemap-pages.xml.gz") == 1
    assert paths.count("/robots.txt") == 1 and paths[0] == "/robots.txt"
    assert "/private/admin" not in paths
    # other sites' URLs and a private address are not taken from the site's sitemap
    assert on.stats.sitemap_errors == {"off-site": 2}
    assert not any("10.0.0.1" in u or "elsewhere" in u for u in seen_on["frontier"])
    assert seen_on["frontier"][SITE + "/private/admin"][:2] in (("skipped", "robots"),
                                                               ("queued", ""),
                                                               ("reserve", ""))  # fmt: skip
    assert not on.stats.faults and not off.stats.faults


@pytest.mark.parametrize("ordered", [False, True])
def test_a_slow_sitemap_holds_no_page_but_in_ordered_mode(tmp_path: Path, ordered: bool) -> None:
    """The sitemap is read beside the crawl: the page whose fetch claimed it is recorded
    before the sitemap answers, and its links still join a later batch. In ordered mode
    the fetch task reads it, so the page waits for it (its links join the page's batch)."""
    robots = f"User-agent: *\nSitemap: {SITE}/sitemap.xml\n"

    async def run() -> tuple[list[float], list[float], dict[str, Any], CrawlResult]:
        answered: list[float] = []
        recorded: list[float] = []

        async def slow(_: web.Request) -> web.StreamResponse:
            await asyncio.sleep(1.0)
            answered.append(time.monotonic())
            return web.Response(body=_urlset("/flight-search"), content_type="application/xml")

        def listener(event: str, _: Engine) -> None:
            if event == "page":
                recorded.append(time.monotonic())

        async with LoopWeb() as w:
            _site(w, robots)
            w.route("/sitemap.xml", slow)
            crawl: dict[str, Any] = {"ordered_block": 4} if ordered else {}
            result, seen = await _crawl(tmp_path, w, "bfs", "slow", listener, crawl=crawl)
        return answered, recorded, seen, result

    answered, recorded, seen, result = asyncio.run(run())
    assert len(answered) == 1 and recorded
    if ordered:
        assert recorded[0] > answered[0]
    else:
        assert recorded[0] < answered[0] - 0.5
    assert seen["forms"] == ["/flight-search"], seen
    assert result.stats.sitemaps == 1 and result.stats.sitemap_links >= 1
    assert not result.stats.faults


def test_hostile_sitemaps_are_refused_within_their_caps_and_lose_nothing(tmp_path: Path) -> None:
    """Huge, a compression bomb, entity expansion, malformed, an index too deep, a
    private address, not XML at all: each refused and counted; the crawl goes on and
    finds what the site links to, and the one good sitemap's page."""
    maps = ["/huge.xml", "/bomb.xml.gz", "/lol.xml", "/broken.xml", "/deep.xml", "/private.xml",
            "/page.xml", "/good.xml", "/missing.xml"]  # fmt: skip
    robots = "User-agent: *\nAllow: /\n" + "".join(f"Sitemap: {SITE}{m}\n" for m in maps)
    laughs = "".join(f'<!ENTITY b{n} "{(f"&b{n - 1};" if n else "&a;") * 10}">' for n in range(8))
    lol = (f'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY a "aaaaaaaaaa">{laughs}]>'
           f"<urlset><url><loc>{SITE}/&b7;</loc></url></urlset>").encode()

    async def huge(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "application/xml"})
        await resp.prepare(request)
        try:
            await resp.write(b"<urlset>")
            for _ in range(64):  # 4 MB, over max_bytes (1 MB), no Content-Length
                await resp.write(b" " * 65536)
            await resp.write_eof()
        except (ConnectionError, asyncio.CancelledError):
            pass
        return resp

    async def run() -> tuple[list[str], CrawlResult, dict[str, Any]]:
        async with LoopWeb() as w:
            _site(w, robots)
            w.html("/about", _html("About fly cheap", "<a href='/flights'>Our flights</a>"))
            w.html("/flights", _html("Our flights"))
            w.route("/huge.xml", huge)
            _file(w, "/bomb.xml.gz", gzip.compress(b"<urlset>" + b" " * (64 << 20) + b"</urlset>"),
                  "application/x-gzip")  # fmt: skip
            _file(w, "/lol.xml", lol)
            _file(w, "/broken.xml", b"<urlset><url><loc>" + SITE.encode() + b"/x</loc></url")
            _file(w, "/deep.xml", _index("/deep2.xml"))
            _file(w, "/deep2.xml", _index("/deep3.xml"))
            _file(w, "/deep3.xml", _urlset("/deals"))
            _file(w, "/private.xml", _urlset("http://10.0.0.1/search", "http://127.0.0.1/search",
                                             "http://localhost/search"))  # fmt: skip
            _file(w, "/page.xml", HOME.encode(), "text/html")
            _file(w, "/good.xml", _urlset("/flight-search"))
            result = await _crawl(tmp_path, w, "bfs", "hostile",
                                  sitemaps={"max_bytes": 1 << 20, "max_per_site": 12,
                                            "max_depth": 1})  # fmt: skip
            return w.paths(), *result

    paths, result, seen = asyncio.run(run())
    errors = result.stats.sitemap_errors
    assert errors["fetch-too-large"] == 1  # huge.xml, cut off at 1 MB
    assert errors["too-large"] == 1  # bomb.xml.gz: 40 KB that would be 64 MB
    assert errors["doctype"] == 1 and errors["malformed"] == 1
    assert errors["depth"] == 1  # deep.xml -> deep2.xml -> deep3.xml: 2 indexes deep
    assert errors["off-site"] == 3  # the private and local addresses
    assert errors["fetch-content-type"] == 1  # page.xml is an HTML page
    assert errors["fetch-http-4xx"] == 1  # missing.xml
    assert result.stats.sitemaps == 4  # deep.xml, deep2.xml (indexes), private.xml, good.xml
    assert paths.count("/deep.xml") == paths.count("/deep2.xml") == 1
    assert "/deep3.xml" not in paths
    # nothing lost: the linked pages and the good sitemap's form page are crawled
    assert {"/", "/about", "/deals", "/flights", "/flight-search"} <= set(seen["pages"])
    assert seen["forms"] == ["/flight-search"]
    assert result.reason == "exhausted" and not result.stats.faults
    assert not any(h in u for u in seen["frontier"] for h in ("10.0.0.1", "127.0.0.1", "localhost"))


def test_a_robots_txt_without_sitemap_costs_no_request(tmp_path: Path) -> None:
    async def run() -> tuple[list[str], CrawlResult]:
        async with LoopWeb() as w:
            _site(w, "User-agent: *\nDisallow: /private/\n")
            result, _ = await _crawl(tmp_path, w, "bfs", "none")
            return w.paths(), result

    paths, result = asyncio.run(run())
    assert sorted(paths) == ["/", "/about", "/deals", "/robots.txt"]
    assert result.stats.sitemaps == 0 and not result.stats.sitemap_errors


def test_parse_sitemap_reads_urlsets_indexes_text_and_gzip_within_max_urls() -> None:
    urlset = _urlset("/a", "/b", "/c")
    assert parse_sitemap(urlset, max_bytes=10_000, max_urls=2).urls == (SITE + "/a", SITE + "/b")
    assert parse_sitemap(urlset, max_bytes=10_000, max_urls=2).cut == 1
    assert parse_sitemap(gzip.compress(urlset), max_bytes=10_000, max_urls=9).kind == "urlset"
    assert parse_sitemap(_index("/s.xml"), max_bytes=10_000, max_urls=9).urls == (SITE + "/s.xml",)
    text = parse_sitemap(b"http://a.test/x\n junk\nhttps://a.test/y \n", max_bytes=99, max_urls=9)
    assert (text.kind, text.urls) == ("text", ("http://a.test/x", "https://a.test/y"))
    assert parse_sitemap(urlset, max_bytes=50, max_urls=9).error == "too-large"
    assert parse_sitemap(b"\x1f\x8b\x08garbage", max_bytes=99, max_urls=9).error == "gzip"
    assert parse_sitemap(b"<html><body/></html>", max_bytes=99, max_urls=9).error == "not-sitemap"


def test_sitemap_pages_naming_a_search_route_are_queued_the_rest_placed_as_off_topic_links(
        tmp_path: Path) -> None:  # fmt: skip
    flat = FlatScorer(1, 0.5, 3)
    for strategy, other in (("ache", Follow.RESERVE), ("bfs", Follow.QUEUE)):
        (tmp_path / strategy).mkdir()
        policy, _, cat = policy_over_store(tmp_path / strategy, Settings(), flat,
                                           strategy=strategy, domain="hotel", n_levels=4)
        try:
            assert policy.sitemap_follow(SITE + "/advanced-search", 1) is Follow.QUEUE
            assert policy.sitemap_follow(SITE + "/buchung/zimmer", 1) is Follow.QUEUE
            assert policy.sitemap_follow(SITE + "/about-us", 1) is other
        finally:
            cat.close()


def test_sitemap_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="sitemaps: max_bytes"):
        SitemapSettings(max_bytes=0)
    with pytest.raises(ConfigError, match="sitemaps: max_depth"):
        SitemapSettings(max_depth=-1)
