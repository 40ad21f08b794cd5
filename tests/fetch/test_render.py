"""The renderer with a real headless chromium against a small web on loopback.

``VirtualWeb`` is an aiohttp forward proxy on 127.0.0.1 serving a few made-up
hosts (``www.shop.example``, ``cdn.other.example``, ...) and logging every
request; the crawl's ``Fetcher`` reaches it as its proxy, exactly as it reaches
the simulated web. One browser is started per module (fixture ``env``) and
shared by the tests, which run in one event loop. The tests marked ``browser``
are skipped, saying why, when no chromium is installed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from aiohttp import web as aioweb
from loopweb_helpers import Hit

from formhunter.config import RenderSettings
from formhunter.exceptions import RenderError, RenderUnavailable
from formhunter.fetch import Fetcher, FetchSettings
from formhunter.fetch.render import Renderer, find_chromium, maybe_render, open_renderer
from formhunter.model import Page
from formhunter.parse import parse_page

T = TypeVar("T")


def _chromium() -> str | None:
    try:
        return find_chromium("/usr/bin/chromium")
    except RenderUnavailable:
        return None


browser = pytest.mark.browser
needs_chromium = pytest.mark.skipif(
    _chromium() is None,
    reason="no chromium installed (apt-get install chromium, or make setup); "
    "rendering tests need a real browser",
)

SHOP = "www.shop.example"
MIN_DELAY = 0.3
BUILD_JS = (
    "var c=document.getElementById('search-app');var f=document.createElement('form');"
    "f.action='/find';var i=document.createElement('input');i.name='{name}';f.appendChild(i);"
    "c.appendChild(f);"
)


def page_html(body: str, title: str = "Shop") -> str:
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title>"
        "<link rel='stylesheet' href='/css/site.css'></head>"
        f"<body><h1>{title}</h1><img src='/img/logo.png'>{body}</body></html>"
    )


@dataclass
class Resource:
    body: str
    content_type: str = "text/html"
    delay: float = 0.0


@dataclass
class VirtualWeb:
    """A logging forward proxy on 127.0.0.1 that serves made-up hosts."""

    resources: dict[tuple[str, str], Resource] = field(default_factory=dict)
    hits: list[Hit] = field(default_factory=list)
    port: int = 0
    _runner: aioweb.ServerRunner | None = None

    def add(self, host: str, path: str, body: str, content_type: str = "text/html",
            delay: float = 0.0) -> str:  # fmt: skip
        self.resources[(host, path)] = Resource(body, content_type, delay)
        return f"http://{host}{path}"

    async def handle(self, request: aioweb.BaseRequest) -> aioweb.StreamResponse:
        host = (request.host or "").split(":")[0].lower()
        path = request.rel_url.raw_path_qs or "/"
        hit = Hit(host, path, time.monotonic(), request.headers.get("User-Agent", ""))
        self.hits.append(hit)
        try:
            res = self.resources.get((host, path))
            if res is None:
                return aioweb.Response(status=404, text="not here")
            if res.delay:
                await asyncio.sleep(res.delay)
            return aioweb.Response(body=res.body.encode(), content_type=res.content_type)
        finally:
            hit.end = time.monotonic()

    async def start(self) -> None:
        self._runner = aioweb.ServerRunner(aioweb.Server(self.handle), shutdown_timeout=0.5)
        await self._runner.setup()
        site = aioweb.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def paths(self, host: str) -> list[str]:
        return [h.path for h in self.hits if h.host == host]

    def hosts(self) -> set[str]:
        return {h.host for h in self.hits}


def build_web() -> VirtualWeb:
    w = VirtualWeb()
    w.add(SHOP, "/robots.txt", "User-agent: *\nDisallow: /private/\n", "text/plain")
    w.add(SHOP, "/css/site.css", "h1{color:red}", "text/css")
    w.add(SHOP, "/img/logo.png", "PNG", "image/png")
    w.add(SHOP, "/static.html", page_html("<form action='/find'><input name='q'></form>"))
    w.add(
        SHOP,
        "/inline.html",
        page_html(
            "<div id='search-app'></div><script>" + BUILD_JS.format(name="inline") + "</script>"
        ),
    )
    w.add(
        SHOP,
        "/js-form.html",
        page_html("<div id='search-app'></div><script src='/js/build.js'></script>"),
    )
    w.add(SHOP, "/js/build.js", BUILD_JS.format(name="external"), "application/javascript")
    w.add(
        SHOP,
        "/cdn.html",
        page_html(
            "<div id='search-app'></div><img src='http://img.other.example/x.png'>"
            "<script src='http://cdn.other.example/build.js'></script>"
        ),
    )
    w.add("cdn.other.example", "/build.js", BUILD_JS.format(name="cdn"), "application/javascript")
    w.add(
        SHOP,
        "/robots-script.html",
        page_html("<div id='search-app'></div><script src='/private/build.js'></script>"),
    )
    w.add(SHOP, "/private/build.js", BUILD_JS.format(name="private"), "application/javascript")
    w.add(
        SHOP,
        "/xhr.html",
        page_html(
            "<div id='search-app'></div><script>fetch('/api/fields.json').then(r=>r.json())"
            ".then(d=>{" + BUILD_JS.format(name="'+d.name+'") + "});</script>"
        ),
    )
    w.add(SHOP, "/api/fields.json", '{"name": "fromxhr"}', "application/json")
    w.add(
        SHOP,
        "/leave.html",
        page_html(
            "<div id='search-app'></div><script>"
            + BUILD_JS.format(name="stay")
            + "location.href='http://evil.other.example/';</script>"
        ),
    )
    w.add(
        SHOP, "/loop.html", page_html("<div id='search-app'></div><script>while(true){}</script>")
    )
    w.add(
        SHOP,
        "/slow.html",
        page_html(
            "<div id='search-app'></div><script>" + BUILD_JS.format(name="early") + "</script>"
            "<script src='/js/slow.js'></script>"
        ),
    )
    w.add(SHOP, "/js/slow.js", "window.late=1;", "application/javascript", delay=20.0)
    for i in range(6):
        w.add(
            SHOP,
            f"/p{i}.html",
            page_html(
                "<div id='search-app'></div><script>" + BUILD_JS.format(name=f"p{i}") + "</script>"
            ),
        )
    return w


@dataclass
class Env:
    loop: asyncio.AbstractEventLoop
    web: VirtualWeb
    fetcher: Fetcher
    renderer: Renderer

    def run(self, coro: Coroutine[Any, Any, T], limit: float = 60) -> T:
        return self.loop.run_until_complete(asyncio.wait_for(coro, limit))

    async def fetch_parse(self, url: str) -> tuple[Any, Page]:
        result = await self.fetcher.fetch(url)
        assert result.ok, (url, result.error, result.message)
        return result, parse_page(url, result.body, final_url=result.final_url)

    def render(self, url: str, mode: str = "always") -> Page:
        async def go() -> Page:
            result, static = await self.fetch_parse(url)
            page = await maybe_render(mode, self.renderer, result, static)
            assert page is not None
            return page

        return self.run(go())


@pytest.fixture(scope="module")
def env() -> Iterator[Env]:
    loop = asyncio.new_event_loop()
    web = build_web()
    loop.run_until_complete(web.start())
    fetcher = Fetcher(FetchSettings(proxy=web.url, min_delay=MIN_DELAY, retries=0,
                                    read_timeout=5.0, total_timeout=10.0))  # fmt: skip
    loop.run_until_complete(fetcher.start())
    renderer = Renderer(RenderSettings(mode="auto", timeout=5.0), fetcher, pool_size=2,
                        settle=0.5)  # fmt: skip
    try:
        loop.run_until_complete(renderer.start())
        yield Env(loop, web, fetcher, renderer)
    finally:
        loop.run_until_complete(renderer.close())
        loop.run_until_complete(fetcher.close())
        loop.run_until_complete(web.stop())
        pending = asyncio.all_tasks(loop)  # e.g. the server still sleeping on slow.js
        for task in pending:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


def field_names(page: Page) -> list[list[str]]:
    return [[f.name for f in form.fields] for form in page.forms]


@browser
@needs_chromium
def test_script_built_form_found_in_auto_and_always_not_in_never(env: Env) -> None:
    url = f"http://{SHOP}/inline.html"
    never = env.render(url, "never")
    assert never.forms == [] and not never.rendered
    for mode in ("auto", "always"):
        page = env.render(url, mode)
        assert field_names(page) == [["inline"]], mode
        assert page.rendered and page.forms[0].rendered
        assert page.forms[0].action == f"http://{SHOP}/find"
    # a static form: auto does not render; always does, and the form is not "rendered-only"
    static_url = f"http://{SHOP}/static.html"
    auto = env.render(static_url, "auto")
    assert not auto.rendered and field_names(auto) == [["q"]]
    always = env.render(static_url, "always")
    assert always.rendered and field_names(always) == [["q"]]
    assert not always.forms[0].rendered


@browser
@needs_chromium
def test_same_host_script_goes_through_the_fetcher_and_politeness(env: Env) -> None:
    blocked = env.renderer.stats.blocked.copy()
    page = env.render(f"http://{SHOP}/js-form.html")
    assert field_names(page) == [["external"]] and page.forms[0].rendered
    hits = [h for h in env.web.hits if h.host == SHOP]
    main = next(h for h in hits if h.path == "/js-form.html")
    script = next(h for h in hits if h.path == "/js/build.js")
    assert script.user_agent == env.fetcher.settings.user_agent
    # one connection per host, and min_delay between the end of one request and the next
    assert script.start - main.end >= MIN_DELAY - 0.02
    assert "/css/site.css" not in env.web.paths(SHOP)
    assert "/img/logo.png" not in env.web.paths(SHOP)
    assert env.renderer.stats.blocked["type:stylesheet"] > blocked["type:stylesheet"]
    assert env.web.paths(SHOP).count("/js-form.html") == 1  # the page is not fetched twice


@browser
@needs_chromium
def test_other_host_subresources_are_blocked(env: Env) -> None:
    before = env.renderer.stats.blocked["other-host"]
    page = env.render(f"http://{SHOP}/cdn.html")
    assert page.forms == []
    assert not {"cdn.other.example", "img.other.example"} & env.web.hosts()
    assert env.renderer.stats.blocked["other-host"] == before + 1


@browser
@needs_chromium
def test_robots_txt_disallow_is_obeyed_for_rendered_subrequests(env: Env) -> None:
    before = env.renderer.stats.blocked["robots"]
    page = env.render(f"http://{SHOP}/robots-script.html")
    assert page.forms == []
    assert "/private/build.js" not in env.web.paths(SHOP)
    assert env.web.paths(SHOP).count("/robots.txt") == 1
    assert env.renderer.stats.blocked["robots"] == before + 1


@browser
@needs_chromium
def test_xhr_data_is_fetched_and_the_page_settles(env: Env) -> None:
    page = env.render(f"http://{SHOP}/xhr.html")
    assert field_names(page) == [["fromxhr"]]
    assert "/api/fields.json" in env.web.paths(SHOP)


@browser
@needs_chromium
def test_script_navigation_is_blocked_and_the_dom_kept(env: Env) -> None:
    before = env.renderer.stats.blocked["navigation"]
    page = env.render(f"http://{SHOP}/leave.html")
    assert field_names(page) == [["stay"]]
    assert "evil.other.example" not in env.web.hosts()
    assert env.renderer.stats.blocked["navigation"] == before + 1


@browser
@needs_chromium
def test_page_pool_is_reused(env: Env) -> None:
    r = env.renderer
    launches, opened, renders = r.stats.launches, r.stats.pages_opened, r.stats.renders

    async def go() -> list[Page]:
        pages = []
        for i in range(6):
            result, static = await env.fetch_parse(f"http://{SHOP}/p{i}.html")
            pages.append((result, static))
        return list(await asyncio.gather(*(maybe_render("auto", r, res, st) for res, st in pages)))  # type: ignore[arg-type]

    pages = env.run(go())
    assert [field_names(p) for p in pages] == [[[f"p{i}"]] for i in range(6)]
    assert r.stats.renders == renders + 6
    assert (r.stats.launches, r.stats.pages_opened) == (launches, opened) == (1, 2)


@browser
@needs_chromium
def test_hanging_page_is_cut_off_and_its_page_replaced(env: Env) -> None:
    r = env.renderer
    opened, timeouts = r.stats.pages_opened, r.stats.timeouts
    r.timeout = 1.5
    try:

        async def go() -> float:
            result, _ = await env.fetch_parse(f"http://{SHOP}/loop.html")
            t0 = time.monotonic()
            with pytest.raises(RenderError) as info:
                await r.render(result.final_url, result.body, result.headers)
            assert info.value.kind == "render-timeout"
            return time.monotonic() - t0

        elapsed = env.run(go())
        assert elapsed < 1.5 + 3.0
        assert r.stats.timeouts == timeouts + 1
        assert r.stats.pages_opened == opened + 1  # the hung page was replaced
        # a slow sub-resource: cut off too, but the DOM built so far is kept
        t0 = time.monotonic()
        page = env.render(f"http://{SHOP}/slow.html")
        assert field_names(page) == [["early"]]
        assert time.monotonic() - t0 < 1.5 + MIN_DELAY + 3.0
        assert r.stats.partial >= 1
    finally:
        r.timeout = 5.0
    # the pool still works
    assert field_names(env.render(f"http://{SHOP}/inline.html")) == [["inline"]]


@browser
@needs_chromium
def test_a_dead_browser_is_launched_again(env: Env) -> None:
    r = env.renderer
    launches = r.stats.launches
    env.run(r._browser.close())  # as if chromium had crashed
    for i in range(3):  # every pool page is replaced, none fails
        assert field_names(env.render(f"http://{SHOP}/p{i}.html", "auto")) == [[f"p{i}"]]
    assert r.stats.launches == launches + 1


def test_no_browser_gives_a_clear_message_and_the_crawl_goes_on(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("FORMHUNTER_CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(RenderUnavailable, match="apt-get install chromium"):
        find_chromium()

    async def go() -> Renderer | None:
        return await open_renderer(RenderSettings(mode="auto"), None)

    with caplog.at_level(logging.WARNING):
        assert asyncio.run(go()) is None
    assert "rendering is off" in caplog.text and "make setup" in caplog.text
    assert asyncio.run(open_renderer(RenderSettings(mode="never"), None)) is None
