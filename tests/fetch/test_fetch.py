"""The fetcher against real HTTP servers on loopback (aiohttp.web on 127.0.0.1:0).

``LoopWeb`` serves virtual hosts: asked directly it is one host
(127.0.0.1:port); asked as an HTTP forward proxy (absolute-form requests) it
serves any host name, which is how the proxy mode and two-host politeness are
tested. Every request is logged with its arrival and end time.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import socket
import time
import zlib
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, TypeVar

import pytest
from aiohttp import web
from loopweb_helpers import HTML, LoopWeb

from formhunter.exceptions import ProxyUnreachable
from formhunter.fetch import Fetcher, FetchSettings
from formhunter.fetch.http import retry_after_seconds
from formhunter.fetch.settings import DEFAULT_USER_AGENT

T = TypeVar("T")


def aio(fn: Callable[..., Coroutine[Any, Any, T]]) -> Callable[..., T]:
    """Run an async test in a fresh event loop, bounded in time."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        return asyncio.run(asyncio.wait_for(fn(*args, **kwargs), 60))

    return wrapper


def settings(**kw: Any) -> FetchSettings:
    """Loopback settings: fast, private addresses allowed, small back-off."""
    base: dict[str, Any] = {
        "allow_private": True, "min_delay": 0.0, "backoff_base": 0.05,
        "connect_timeout": 2.0, "read_timeout": 2.0, "total_timeout": 5.0,
    }
    base.update(kw)
    return FetchSettings(**base)


async def stream(
    request: web.Request, content_type: str, total: int, chunk: int = 64 * 1024,
    length: bool = False, pause: float = 0.0, written: list[int] | None = None,
) -> web.StreamResponse:
    """Stream ``total`` bytes, stopping quietly when the client goes away."""
    resp = web.StreamResponse(headers={"Content-Type": content_type})
    if length:
        resp.content_length = total
    await resp.prepare(request)
    sent = 0
    try:
        while sent < total:
            n = min(chunk, total - sent)
            await resp.write(b"<" + b"x" * (n - 1))
            sent += n
            if written is not None:
                written[0] = sent
            await asyncio.sleep(pause)
        await resp.write_eof()
    except (ConnectionError, asyncio.CancelledError):
        pass
    return resp


@contextlib.asynccontextmanager
async def raw_server(body: bytes) -> AsyncIterator[int]:
    """A bare HTTP/1.0 server answering every request with ``body`` and no Content-Type."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


# --------------------------------------------------------------------- basics


@aio
async def test_success_returns_body_headers_and_honest_user_agent() -> None:
    async with LoopWeb() as w:
        w.html("/page")
        async with Fetcher(settings()) as f:
            r = await f.fetch(w.base + "/page#frag")
        assert r.ok and r.error == "" and r.status == 200
        assert r.body == HTML.encode()
        assert r.content_type == "text/html"
        assert r.headers["content-type"].startswith("text/html")
        assert all(k == k.lower() for k in r.headers)
        assert r.final_url == w.base + "/page" and r.redirects == [] and r.attempts == 1
        assert r.elapsed > 0
        page_hit = next(h for h in w.hits if h.path == "/page")
        assert page_hit.user_agent == DEFAULT_USER_AGENT
        assert page_hit.user_agent.startswith("formhunter/") and "+https://" in DEFAULT_USER_AGENT
        assert f.stats.ok == 1 and f.stats.fetches == 1 and f.stats.bytes == len(HTML)


@aio
async def test_bad_urls_are_errors_not_exceptions() -> None:
    async with Fetcher(settings()) as f:
        for url in ("ftp://example.com/x", "not a url", "mailto:a@b.c", ""):
            r = await f.fetch(url)
            assert r.error == "bad-url" and r.body == b"" and r.attempts == 0
        assert f.stats.errors["bad-url"] == 4


def test_fetch_outside_context_is_a_programming_error() -> None:
    with pytest.raises(RuntimeError):
        asyncio.run(Fetcher(settings()).fetch("http://127.0.0.1/"))


# ------------------------------------------------------------------ redirects


@aio
async def test_redirect_chain_is_followed_hop_by_hop() -> None:
    async with LoopWeb() as w:
        for a, b in (("/r1", "/r2"), ("/r2", "r3?x=1"), ("/r3", f"{w.base}/page")):
            async def red(_: web.Request, to: str = b) -> web.StreamResponse:
                raise web.HTTPFound(to)

            w.route(a, red)
        w.html("/page")
        async with Fetcher(settings()) as f:
            r = await f.fetch(w.base + "/r1")
        assert r.ok and r.body == HTML.encode()
        assert r.redirects == [w.base + "/r2", w.base + "/r3?x=1", w.base + "/page"]
        assert r.final_url == w.base + "/page" and r.attempts == 4
        assert w.paths() == ["/robots.txt", "/r1", "/r2", "/r3?x=1", "/page"]


@aio
async def test_redirect_hops_are_checked_against_robots() -> None:
    async with LoopWeb() as w:
        w.robots("User-agent: *\nDisallow: /secret\n")

        async def red(_: web.Request) -> web.StreamResponse:
            raise web.HTTPMovedPermanently("/secret/page")

        w.route("/open", red)
        w.html("/secret/page")
        async with Fetcher(settings()) as f:
            r = await f.fetch(w.base + "/open")
        assert r.error == "robots" and r.redirects == [w.base + "/secret/page"]
        assert "/secret/page" not in w.paths()


@aio
async def test_redirect_loop_is_detected() -> None:
    async with LoopWeb() as w:
        async def one(_: web.Request) -> web.StreamResponse:
            raise web.HTTPFound("/two")

        async def two(_: web.Request) -> web.StreamResponse:
            raise web.HTTPTemporaryRedirect("/one")

        w.route("/one", one)
        w.route("/two", two)
        async with Fetcher(settings()) as f:
            r = await f.fetch(w.base + "/one")
        assert r.error == "redirect-loop" and r.body == b""
        assert w.paths().count("/one") == 1 and w.paths().count("/two") == 1


@aio
async def test_an_unparsable_location_is_a_bad_redirect(caplog: pytest.LogCaptureFixture) -> None:
    """``Location: http://[::1`` (issue 29): recorded as bad-redirect, no traceback."""
    async with LoopWeb() as w:
        for i, location in enumerate(["http://[::1", "http://[zz]/", "http://a b/", " "]):
            async def bad(_: web.Request, location: str = location) -> web.StreamResponse:
                return web.Response(status=302, headers={"Location": location})

            w.route(f"/bad{i}", bad)
        async with Fetcher(settings()) as f:
            results = [await f.fetch(f"{w.base}/bad{i}") for i in range(4)]
    assert [r.error for r in results] == ["bad-redirect"] * 4, [r.error for r in results]
    assert not [r for r in caplog.records if r.exc_info]


@aio
async def test_too_many_redirects() -> None:
    async with LoopWeb() as w:
        async def chain(request: web.Request) -> web.StreamResponse:
            n = int(request.query.get("n", "0"))
            raise web.HTTPFound(f"/chain?n={n + 1}")

        w.route("/chain", chain)
        async with Fetcher(settings(max_redirects=3)) as f:
            r = await f.fetch(w.base + "/chain")
        assert r.error == "too-many-redirects"
        assert len(r.redirects) == 3
        assert len([p for p in w.paths() if p.startswith("/chain")]) == 4


# ------------------------------------------------------- statuses and retries


@aio
async def test_404_is_not_retried_500_is_retried_with_backoff() -> None:
    async with LoopWeb() as w:
        async def boom(_: web.Request) -> web.StreamResponse:
            return web.Response(status=500, text="oops")

        async def not_impl(_: web.Request) -> web.StreamResponse:
            return web.Response(status=501, text="no")

        w.route("/boom", boom)
        w.route("/ni", not_impl)
        async with Fetcher(settings(retries=2, backoff_base=0.2)) as f:
            missing = await f.fetch(w.base + "/missing")
            broken = await f.fetch(w.base + "/boom")
            ni = await f.fetch(w.base + "/ni")
        assert missing.error == "http-4xx" and missing.status == 404 and missing.attempts == 1
        assert w.paths().count("/missing") == 1
        assert broken.error == "http-5xx" and broken.status == 500 and broken.attempts == 3
        assert broken.body == b""
        times = [h.start for h in w.hits if h.path == "/boom"]
        assert len(times) == 3
        # back-off with jitter: at least half of base * 2**n before attempt n + 1
        assert times[1] - times[0] >= 0.1 - 0.01
        assert times[2] - times[1] >= 0.2 - 0.01
        assert ni.error == "http-5xx" and ni.attempts == 1
        assert f.stats.retries == 2 and f.stats.errors["http-5xx"] == 2


@aio
async def test_transient_503_then_success() -> None:
    async with LoopWeb() as w:
        calls = [0]

        async def flaky(_: web.Request) -> web.StreamResponse:
            calls[0] += 1
            if calls[0] == 1:
                return web.Response(status=503, text="busy")
            return web.Response(text=HTML, content_type="text/html")

        w.route("/flaky", flaky)
        async with Fetcher(settings(retries=2)) as f:
            r = await f.fetch(w.base + "/flaky")
        assert r.ok and r.attempts == 2 and r.status == 200 and calls[0] == 2


@aio
async def test_429_retry_after_is_honoured() -> None:
    async with LoopWeb() as w:
        calls = [0]

        async def limited(_: web.Request) -> web.StreamResponse:
            calls[0] += 1
            if calls[0] == 1:
                return web.Response(status=429, headers={"Retry-After": "1"})
            return web.Response(text=HTML, content_type="text/html")

        async def never(_: web.Request) -> web.StreamResponse:
            return web.Response(status=429, headers={"Retry-After": "3600"})

        w.route("/limited", limited)
        w.route("/never", never)
        async with Fetcher(settings(retries=2, max_retry_after=60)) as f:
            r = await f.fetch(w.base + "/limited")
            gone = await f.fetch(w.base + "/never")
        assert r.ok and r.attempts == 2
        t = [h.start for h in w.hits if h.path == "/limited"]
        assert t[1] - t[0] >= 1.0
        assert gone.error == "http-4xx" and gone.status == 429 and gone.attempts == 1
        assert "Retry-After" in gone.message


def test_retry_after_parsing() -> None:
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


# ------------------------------------------------------- timeouts and size caps


@aio
async def test_slow_answer_times_out() -> None:
    async with LoopWeb() as w:
        async def slow(_: web.Request) -> web.StreamResponse:
            await asyncio.sleep(10)
            return web.Response(text=HTML, content_type="text/html")

        async def drip(request: web.Request) -> web.StreamResponse:
            return await stream(request, "text/html", 10_000, chunk=10, pause=0.05)

        w.route("/slow", slow)
        w.route("/drip", drip)
        async with Fetcher(settings(read_timeout=0.3, total_timeout=1.0, retries=2)) as f:
            t0 = time.monotonic()
            r = await f.fetch(w.base + "/slow")
            assert r.error == "timeout" and r.body == b"" and r.attempts == 1
            assert time.monotonic() - t0 < 2.0
            t0 = time.monotonic()
            r = await f.fetch(w.base + "/drip")  # every chunk in time, the whole too slow
            assert r.error == "timeout" and r.body == b""
            assert time.monotonic() - t0 < 2.5


@aio
async def test_oversized_bodies_are_cut_and_dropped() -> None:
    async with LoopWeb() as w:
        big = 3 * 1024 * 1024
        written = [0]

        async def declared(request: web.Request) -> web.StreamResponse:
            return await stream(request, "text/html", big, length=True)

        async def chunked(request: web.Request) -> web.StreamResponse:
            return await stream(request, "text/html", 64 * big, pause=0.001, written=written)

        w.route("/declared", declared)
        w.route("/chunked", chunked)
        w.html("/small")
        async with Fetcher(settings(max_bytes=1024 * 1024)) as f:
            a = await f.fetch(w.base + "/declared")
            b = await f.fetch(w.base + "/chunked")
            c = await f.fetch(w.base + "/small")
        assert a.error == "too-large" and a.body == b"" and a.status == 200
        assert b.error == "too-large" and b.body == b""
        assert written[0] < 16 * 1024 * 1024  # reading stopped long before the end
        assert f.stats.bytes < 3 * 1024 * 1024
        assert c.ok


@aio
async def test_non_html_is_refused_before_the_body_is_read() -> None:
    async with LoopWeb() as w:
        written = [0]
        total = 200 * 1024 * 1024

        async def pdf(request: web.Request) -> web.StreamResponse:
            return await stream(request, "application/pdf", total, pause=0.001, written=written)

        w.route("/doc.pdf", pdf)
        async with Fetcher(settings()) as f:
            t0 = time.monotonic()
            r = await f.fetch(w.base + "/doc.pdf")
            assert time.monotonic() - t0 < 2.0
        assert r.error == "content-type" and r.content_type == "application/pdf"
        assert r.body == b"" and f.stats.bytes < 1024 * 1024
        await asyncio.sleep(0.2)
        assert written[0] < 32 * 1024 * 1024


@aio
async def test_missing_content_type_is_sniffed() -> None:
    async with (
        raw_server(HTML.encode()) as html_port,
        raw_server(b"%PDF-1.4 x") as pdf_port,
        Fetcher(settings(obey_robots=False)) as f,
    ):
        sniffed = await f.fetch(f"http://127.0.0.1:{html_port}/")
        binary = await f.fetch(f"http://127.0.0.1:{pdf_port}/")
    assert sniffed.ok and sniffed.content_type == "text/html" and sniffed.body == HTML.encode()
    assert binary.error == "content-type" and binary.body == b""


@aio
async def test_compression_bomb_is_cut_after_max_bytes() -> None:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip
    zeros = bytes(1 << 20)
    bomb = b"".join(packer.compress(zeros) for _ in range(64)) + packer.flush()
    assert len(bomb) < 200_000

    async def gz(_: web.Request) -> web.StreamResponse:
        return web.Response(
            body=bomb, headers={"Content-Type": "text/html", "Content-Encoding": "gzip"}
        )

    async with LoopWeb() as w:
        w.route("/bomb", gz)
        async with Fetcher(settings(max_bytes=1 << 20)) as f:
            r = await f.fetch(w.base + "/bomb")
        assert r.error == "too-large" and r.body == b""
        assert f.stats.bytes < 4 << 20  # decoded bytes read: about the cap, not 64 MiB


# ------------------------------------------------------------------- robots


@aio
async def test_robots_disallow_is_obeyed_and_fetched_once() -> None:
    async with LoopWeb() as w:
        w.robots("User-agent: formhunter\nDisallow: /private\n\nUser-agent: *\nDisallow: /\n")
        w.html("/public")
        w.html("/private/x")
        async with Fetcher(settings()) as f:
            results = await asyncio.gather(
                *(f.fetch(w.base + p) for p in ("/public", "/private/x", "/public?2"))
            )
        assert [r.error for r in results] == ["", "robots", ""]
        assert w.paths().count("/robots.txt") == 1
        assert "/private/x" not in w.paths()
        assert f.stats.robots_fetches == 1


@aio
async def test_robots_unavailable_allows_unreachable_disallows() -> None:
    async with LoopWeb() as w:
        w.html("/page")
        async with Fetcher(settings()) as f:  # no robots.txt: 404 -> allow all
            assert (await f.fetch(w.base + "/page")).ok

        async def err(_: web.Request) -> web.StreamResponse:
            return web.Response(status=503)

        w.route("/robots.txt", err)
        w.hits.clear()
        async with Fetcher(settings()) as f:  # 5xx -> disallow all for a while
            r = await f.fetch(w.base + "/page")
            r2 = await f.fetch(w.base + "/page")
        assert r.error == r2.error == "robots-unreachable"
        assert w.paths() == ["/robots.txt"]

        w.hits.clear()
        async with Fetcher(settings(obey_robots=False)) as f:
            assert (await f.fetch(w.base + "/page")).ok
        assert w.paths() == ["/page"]


@aio
async def test_cancelled_fetch_does_not_break_others_waiting_for_robots() -> None:
    async with LoopWeb() as w:
        async def slow_robots(_: web.Request) -> web.StreamResponse:
            await asyncio.sleep(0.4)
            return web.Response(text="User-agent: *\nDisallow: /no\n")

        w.route("/robots.txt", slow_robots)
        w.html("/page")
        async with Fetcher(settings()) as f:
            first = asyncio.create_task(f.fetch(w.base + "/page?1"))
            await asyncio.sleep(0.1)
            second = asyncio.create_task(f.fetch(w.base + "/page?2"))
            await asyncio.sleep(0.1)
            first.cancel()
            r = await second  # the robots.txt look-up is redone for it, not cancelled
            assert first.cancelled()
            assert r.ok
            assert w.paths().count("/robots.txt") == 2
            assert (await f.fetch(w.base + "/no")).error == "robots"


@aio
async def test_robots_redirect_to_another_host_is_followed() -> None:
    async with LoopWeb() as w:
        async def moved(_: web.Request) -> web.StreamResponse:
            raise web.HTTPMovedPermanently("http://b.example/robots.txt")

        w.route("/robots.txt", moved, host="a.example")
        w.robots("User-agent: *\nDisallow: /x\n", host="b.example")
        w.html("/x")
        async with Fetcher(settings(proxy=w.base)) as f:
            assert (await f.fetch("http://a.example/x")).error == "robots"
            assert (await f.fetch("http://a.example/y")).error == "http-4xx"
            assert (await f.fetch("http://b.example/x")).error == "robots"
            assert f.stats.robots_fetches == 1  # b.example's answer served both origins
        assert ("a.example", "/x") not in [(h.host, h.path) for h in w.hits]
        assert w.paths().count("/robots.txt") == 2  # a.example's 301 and b.example's 200


@aio
async def test_crawl_delay_spaces_one_host_while_hosts_overlap() -> None:
    """Through the proxy: a.example asks for Crawl-delay 1, b.example for none."""
    async with LoopWeb() as w:
        w.robots("User-agent: *\nCrawl-delay: 1\n", host="a.example")
        w.robots("User-agent: *\nAllow: /\n", host="b.example")

        async def slowish(_: web.Request) -> web.StreamResponse:
            await asyncio.sleep(0.3)
            return web.Response(text=HTML, content_type="text/html")

        w.route("/p", slowish)
        s = settings(proxy=w.base, allow_private=False, min_delay=0.2)
        async with Fetcher(s) as f:
            urls = [f"http://{h}.example/p?{i}" for i in range(3) for h in "ab"]
            results = await asyncio.gather(*(f.fetch(u) for u in urls))
            assert f.delay_for("a.example") == 1.0 and f.delay_for("b.example") == 0.2
        assert all(r.ok for r in results), [r.error for r in results]
        for host, gap in (("a.example", 1.0), ("b.example", 0.2)):
            hits = sorted((h for h in w.hits if h.host == host), key=lambda h: h.start)
            assert len(hits) == 4  # robots.txt + 3 pages
            for prev, nxt in itertools.pairwise(hits):
                assert nxt.start - prev.start >= gap
                assert nxt.start >= prev.end  # one connection per host
        a = [h for h in w.hits if h.host == "a.example" and h.path != "/robots.txt"]
        b = [h for h in w.hits if h.host == "b.example" and h.path != "/robots.txt"]
        assert any(x.start < y.end and y.start < x.end for x in a for y in b)


@aio
async def test_crawl_delay_is_capped_and_host_ready_in_reports_waits() -> None:
    async with LoopWeb() as w:
        w.robots("User-agent: *\nCrawl-delay: 100\n")
        w.html("/page")
        async with Fetcher(settings(min_delay=0.1, max_crawl_delay=0.5)) as f:
            assert f.host_ready_in(w.base + "/page") == 0.0
            assert (await f.fetch(w.base + "/page")).ok
            assert f.delay_for("127.0.0.1") == 0.5
            wait = f.host_ready_in(w.base + "/other")
            assert 0.0 < wait <= 0.5
            assert f.host_ready_in("http://elsewhere.example/") == 0.0
            t0 = time.monotonic()
            assert (await f.fetch(w.base + "/page")).ok
            assert time.monotonic() - t0 >= wait - 0.05


# -------------------------------------------------------- guard and proxy


@aio
async def test_guard_refuses_loopback_unless_allowed() -> None:
    async with LoopWeb() as w:
        w.html("/page")
        port = w.port
        urls = [
            f"http://127.0.0.1:{port}/page", f"http://localhost:{port}/page",
            f"http://0x7f000001:{port}/page", f"http://2130706433:{port}/page",
            f"http://0177.0.0.1:{port}/page", f"http://127.1:{port}/page",
            f"http://[::1]:{port}/page", f"http://[::ffff:127.0.0.1]:{port}/page",
            "http://10.1.2.3/", "http://169.254.169.254/latest/meta-data/",
            "http://192.168.0.1/", "http://0.0.0.0/",
        ]
        async with Fetcher(settings(allow_private=False)) as f:
            for url in urls:
                r = await f.fetch(url)
                assert r.error == "forbidden-address", (url, r)
        assert w.hits == []
        async with Fetcher(settings(allow_private=True)) as f:
            for url in urls[:6]:
                assert (await f.fetch(url)).ok, url


@aio
async def test_guard_checks_resolved_names_and_redirect_targets() -> None:
    """Direct mode resolves names: the machine's own name is refused at connect time."""
    async with LoopWeb() as w:
        w.html("/page")

        async def away(_: web.Request) -> web.StreamResponse:
            raise web.HTTPFound("http://169.254.169.254/latest/meta-data/")

        w.route("/away", away)
        async with Fetcher(settings(proxy=w.base, allow_private=False)) as f:
            r = await f.fetch("http://a.example/away")
        assert r.error == "forbidden-address" and r.redirects
        assert all(h.host != "169.254.169.254" for h in w.hits)

        name = socket.gethostname()
        try:
            infos = socket.getaddrinfo(name, w.port, type=socket.SOCK_STREAM)
        except socket.gaierror:
            pytest.skip("the machine's name does not resolve")
        if not any(i[4][0] == "127.0.0.1" for i in infos):
            pytest.skip("the machine's name does not resolve to 127.0.0.1")
        async with Fetcher(settings(allow_private=False)) as f:
            r = await f.fetch(f"http://{name}:{w.port}/page")
            assert r.error == "forbidden-address" and "resolves to" in r.message
        async with Fetcher(settings(allow_private=True)) as f:
            assert (await f.fetch(f"http://{name}:{w.port}/page")).ok


@aio
async def test_proxy_mode_reaches_virtual_hosts_without_resolving_them() -> None:
    async with LoopWeb() as w:
        w.html("/", "<html><body>foo air</body></html>", host="www.foo-air.example")
        async with Fetcher(settings(proxy=w.base, allow_private=False)) as f:
            r = await f.fetch("http://www.foo-air.example/")
            assert r.ok and b"foo air" in r.body
            # literals and local names are still refused in proxy mode
            for url in (f"{w.base}/", "http://localhost/", "http://[::1]/", "http://10.0.0.1/"):
                assert (await f.fetch(url)).error == "forbidden-address", url
        assert [(h.host, h.path) for h in w.hits] == [
            ("www.foo-air.example", "/robots.txt"), ("www.foo-air.example", "/"),
        ]
        assert w.hits[1].user_agent == DEFAULT_USER_AGENT


@aio
async def test_unreachable_proxy_is_reported_at_start() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proxy = f"http://127.0.0.1:{port}"
    with pytest.raises(ProxyUnreachable, match=f"proxy {proxy} does not answer"):
        async with Fetcher(settings(proxy=proxy)):
            pass


@aio
async def test_proxy_gone_mid_crawl_is_a_per_url_error() -> None:
    async with LoopWeb() as w:
        w.html("/")
        guarded = Fetcher(settings(proxy=w.base, retries=1))
        plain = Fetcher(settings(proxy=w.base, retries=1, obey_robots=False))
        await guarded.start()
        await plain.start()
    try:  # the proxy is gone now
        r = await guarded.fetch("http://www.foo-air.example/")
        assert r.error == "robots-unreachable"  # robots.txt could not be asked for
        r = await plain.fetch("http://www.foo-air.example/")
        assert r.error == "proxy" and r.attempts == 2 and r.status == 0
    finally:
        await guarded.close()
        await plain.close()


def test_settings_are_validated() -> None:
    from formhunter.exceptions import ConfigError

    with pytest.raises(ConfigError):
        FetchSettings(concurrency=0)
    with pytest.raises(ConfigError):
        FetchSettings(proxy="socks5://127.0.0.1:1080")
    with pytest.raises(ConfigError):
        FetchSettings(read_timeout=0)
    s = FetchSettings(allowed_content_types=(" Text/HTML ",))
    assert s.allowed_content_types == ("text/html",)
    assert FetchSettings().max_bytes == 5 * 1024 * 1024
