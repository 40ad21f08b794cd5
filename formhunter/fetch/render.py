"""Rendering pages in headless chromium (Playwright) where scripts build forms.

``Renderer`` drives Debian's chromium through the ``playwright`` package's
async API and ``executable_path`` (never ``playwright install``). One browser
is launched per renderer (fresh temporary profile, flags in ``LAUNCH_ARGS``)
with one context and a small pool of pages that are reused: ``pool_size``
pages, which is also the number of renders at a time.

The browser has no network of its own. Every request it makes is intercepted
(``page.route``) and either answered by us or aborted, and the browser's proxy
points at a closed port so that anything that slips past interception fails:

* the main document is the body the ``Fetcher`` already fetched (fulfilled
  with its content type; the page is not fetched twice);
* scripts, XHR and fetch requests (GET only) to the *same host* as the page go
  through a second ``Fetcher`` that shares the crawl fetcher's address guard,
  robots.txt cache and per-host politeness (so every rule of plain fetching
  holds: guard, robots.txt, Crawl-delay, one connection per host, proxy);
  sub-resources of other hosts are aborted (no CDN scripts: a form built by a
  script from another host is missed; this keeps every request under the
  crawl's own politeness and never contacts hosts the frontier did not pick);
* images are not even requested (``imagesEnabled=false``); media, fonts,
  stylesheets and everything else are aborted: the DOM does not need them; so
  are frames and non-GET requests (a crawler never submits data). Further
  navigations of the page (JavaScript redirects, reloads) get ``204 No
  Content``, which cancels them and keeps the DOM.

Paths that are not HTTP requests are closed as well (``formhunter.fetch.browser``).
Links a script built that carry ICE candidates are dropped (``merge_rendered``).

Set-Cookie headers are dropped: the browser keeps no state between pages, as
the fetcher keeps none.

A render waits until the document is complete (``readyState``, i.e. the load
event: every inline, external, deferred and async script has run), then lets
the page settle (a timer tick, and in-flight sub-requests, for at most
``settle`` seconds) and returns the serialised DOM. The whole render is
bounded by ``timeout`` seconds: when it runs out, the DOM built so far is
returned if the page still answers, else ``RenderError("render-timeout")`` is
raised; either way the page is closed and replaced (a script in an endless
loop cannot block the pool). A crashed page or browser
is replaced too (``stats.launches`` counts browser launches).

``maybe_render`` is what the engine calls: it applies ``--render
never|auto|always`` (``auto`` asks ``needs_render``), parses the rendered DOM
with the same ``parse_page`` and marks the forms only the rendered DOM has.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import ada_url

from formhunter.config import ParseSettings, RenderSettings
from formhunter.exceptions import RenderError, RenderUnavailable
from formhunter.fetch.browser import (
    BLACKHOLE_PROXY,
    INSTALL_HINT,
    LAUNCH_ARGS,
    LOCKDOWN_JS,
    find_chromium,
)
from formhunter.fetch.guard import normalize_host
from formhunter.fetch.http import Fetcher, FetchResult
from formhunter.fetch.needs_render import RenderDecision, needs_render
from formhunter.fetch.rendered import merge_rendered
from formhunter.model import Page
from formhunter.parse import parse_page

log = logging.getLogger(__name__)

__all__ = ["LAUNCH_ARGS", "RenderStats", "Renderer", "find_chromium",
           "maybe_render", "merge_rendered", "open_renderer"]  # fmt: skip

#: Sub-resource types fetched for the page (same host, GET); all others are aborted.
FETCHED_TYPES = frozenset({"script", "xhr", "fetch"})
#: Content types the sub-resource fetcher accepts.
SUB_CONTENT_TYPES = (
    "text/html", "application/xhtml+xml", "application/javascript", "text/javascript",
    "application/x-javascript", "application/ecmascript", "text/ecmascript",
    "application/json", "text/json", "text/plain", "application/xml", "text/xml",
)  # fmt: skip
_PASSED_HEADERS = ("content-type", "content-language", "content-security-policy")
_SUB_HEADERS = ("content-type", "access-control-allow-origin", "access-control-allow-credentials")
_NOT_FETCHED = frozenset({"robots", "robots-unreachable", "forbidden-address", "bad-url"})
_TICK_JS = "() => new Promise(r => setTimeout(r, 0))"
_COMPLETE_JS = """() => new Promise(r => {
  const done = () => document.readyState === 'complete' && (r(), true);
  if (!done()) document.addEventListener('readystatechange', done);
})"""


@dataclass(slots=True)
class RenderStats:
    """Counters of a renderer.

    ``renders`` asked, ``ok`` returned a DOM (``partial`` of them cut off by the
    time limit), ``timeouts`` hit the limit, ``failures`` raised RenderError;
    ``launches`` browsers started; ``pages_opened`` pool pages created (a page
    is replaced after a hang or crash); ``fetched`` sub-resources fetched;
    ``blocked`` aborted requests by reason (``type:image``, ``other-host``,
    ``robots``, ``navigation``, ``method``, ...); ``seconds`` spent rendering
    (from getting a pool page to giving it back).
    """

    renders: int = 0
    ok: int = 0
    partial: int = 0
    timeouts: int = 0
    failures: int = 0
    launches: int = 0
    pages_opened: int = 0
    fetched: int = 0
    blocked: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["blocked"] = dict(self.blocked)
        return d


@dataclass(slots=True)
class _Job:
    url: str
    host: str
    body: bytes
    headers: dict[str, str]
    status: int
    deadline: float
    main_served: bool = False
    pending: int = 0
    started: int = 0
    over: bool = False


@dataclass(slots=True)
class _Slot:
    page: Any  # playwright Page
    generation: int  # the browser launch the page belongs to
    job: _Job | None = None
    crashed: bool = False


def _host(url: str) -> str:
    try:
        return normalize_host(ada_url.URL(url).hostname)
    except ValueError:
        return ""


class Renderer:
    """A pool of headless chromium pages (module doc).

    Use as ``async with Renderer(settings, fetcher) as r: html = await r.render(url, body,
    headers)``. Entering raises ``RenderUnavailable`` when no browser can be started.
    ``fetcher`` is the crawl's (started) ``Fetcher``, whose guard, robots.txt cache and
    politeness the sub-resource fetches share; without one, every sub-resource is
    aborted (inline scripts still run). ``timeout`` (default ``settings.timeout``)
    bounds one render in seconds.
    """

    def __init__(
        self,
        settings: RenderSettings | None = None,
        fetcher: Fetcher | None = None,
        *,
        pool_size: int = 2,
        timeout: float | None = None,
        settle: float = 1.0,
        executable: str | None = None,
    ) -> None:
        if pool_size < 1:
            raise ValueError("pool_size must be at least 1")
        self.settings = settings if settings is not None else RenderSettings()
        self.fetcher = fetcher
        self.pool_size = pool_size
        self.timeout = float(timeout if timeout is not None else self.settings.timeout)
        self.settle = settle
        self.executable = executable
        # without settings (a renderer made by hand), no limit
        self.max_rendered = settings.max_rendered if settings is not None else 0
        self.told_exhausted = False
        self.stats = RenderStats()
        self._pw: Any = None
        self._browser: Any = None
        self._context: Any = None
        self._pool: asyncio.Queue[_Slot] | None = None
        self._sub: Fetcher | None = None
        self._launch_lock: asyncio.Lock | None = None
        self._path = ""

    async def __aenter__(self) -> Renderer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def exhausted(self) -> bool:
        """True when ``max_rendered`` renders were done (0 = no limit)."""
        return bool(self.max_rendered) and self.stats.renders >= self.max_rendered

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Find and launch the browser, open the page pool; ``RenderUnavailable`` if not."""
        if self._browser is not None:
            return
        path = find_chromium(self.executable or self.settings.browser)
        try:
            from playwright.async_api import async_playwright
        except ImportError as exc:  # pragma: no cover - a dependency of formhunter
            raise RenderUnavailable(
                f"the playwright package is missing ({exc}); pip install playwright"
            ) from exc
        self._launch_lock = asyncio.Lock()
        self._path = path
        self._pw = await async_playwright().start()
        try:
            await self._launch(path)
            self._pool = asyncio.Queue()
            for _ in range(self.pool_size):
                self._pool.put_nowait(await self._new_slot())
            if self.fetcher is not None:
                self._sub = self._sub_fetcher(self.fetcher)
                await self._sub.start()
        except BaseException as exc:
            await self.close()
            if isinstance(exc, Exception) and not isinstance(exc, RenderUnavailable):
                raise RenderUnavailable(
                    f"chromium at {path} did not start ({type(exc).__name__}: "
                    f"{str(exc).splitlines()[0] if str(exc) else ''}); {INSTALL_HINT}"
                ) from exc
            raise

    async def _launch(self, path: str) -> None:
        self._browser = await self._pw.chromium.launch(
            executable_path=path,
            headless=True,
            args=list(LAUNCH_ARGS),
            proxy={"server": BLACKHOLE_PROXY, "bypass": "<-loopback>"},
            timeout=30_000,
        )
        self.stats.launches += 1
        ua = self.fetcher.settings.user_agent if self.fetcher is not None else None
        self._context = await self._browser.new_context(
            user_agent=ua, service_workers="block", accept_downloads=False,
            viewport={"width": 1280, "height": 900},
        )  # fmt: skip
        await self._context.add_init_script(script=LOCKDOWN_JS)

    async def _new_slot(self) -> _Slot:
        page = await self._context.new_page()
        self.stats.pages_opened += 1
        slot = _Slot(page, self.stats.launches)

        def crashed(_: Any) -> None:
            slot.crashed = True

        page.on("crash", crashed)

        async def handler(route: Any) -> None:
            await self._route(slot, route)

        await page.route("**/*", handler)
        return slot

    @staticmethod
    def _sub_fetcher(fetcher: Fetcher) -> Fetcher:
        s = fetcher.settings
        sub = Fetcher(
            dataclasses.replace(
                s, allowed_content_types=SUB_CONTENT_TYPES, retries=0,
                max_redirects=min(s.max_redirects, 3), concurrency=min(s.concurrency, 8),
            )
        )  # fmt: skip
        # one guard, one robots.txt cache, one politeness budget for the whole crawl
        sub.guard = fetcher.guard
        sub.robots = fetcher.robots
        sub.politeness = fetcher.politeness
        return sub

    async def close(self) -> None:
        """Close pages, browser, Playwright and the sub-resource fetcher."""
        for closer in (
            self._context.close if self._context is not None else None,
            self._browser.close if self._browser is not None else None,
            self._pw.stop if self._pw is not None else None,
            self._sub.close if self._sub is not None else None,
        ):
            if closer is None:
                continue
            try:
                await asyncio.wait_for(closer(), 10)
            except Exception as exc:  # closing is best effort
                log.debug("renderer close: %s", exc)
        self._context = self._browser = self._pw = self._sub = None
        self._pool = None

    # ------------------------------------------------------------ rendering

    async def render(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str] | None = None,
        *,
        status: int = 200,
    ) -> str:
        """The serialised DOM of ``body`` (already fetched from ``url``) after its
        scripts ran. Raises ``RenderError`` (kind ``render-timeout`` or
        ``render-failed``) when no DOM could be had."""
        if self._pool is None:
            raise RuntimeError("Renderer.render called outside 'async with Renderer(...)'")
        self.stats.renders += 1
        slot = await self._pool.get()
        started = time.monotonic()
        job = _Job(
            url=url, host=_host(url), body=body,
            headers={k.lower(): v for k, v in (headers or {}).items()},
            status=status if 200 <= status < 300 else 200,
            deadline=time.monotonic() + self.timeout,
        )  # fmt: skip
        healthy = True
        try:
            try:
                if (slot.crashed or slot.generation != self.stats.launches
                        or not self._browser.is_connected()):  # fmt: skip
                    slot = await self._replace(slot)
                slot.job = job
                html = await self._load(slot, job)
            except TimeoutError:
                self.stats.timeouts += 1
                healthy = False
                job.over = True
                salvaged = await self._salvage(slot)
                if salvaged is None:
                    self.stats.failures += 1
                    raise RenderError(
                        "render-timeout", f"{url} did not finish in {self.timeout:g}s"
                    ) from None
                self.stats.partial += 1
                html = salvaged
            except RenderError:
                healthy = False
                self.stats.failures += 1
                raise
            except asyncio.CancelledError:
                slot.generation = -1  # may be mid-load or hung: replaced at its next use
                raise
            except Exception as exc:  # playwright errors: crash, closed target, ...
                healthy = False
                self.stats.failures += 1
                msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise RenderError("render-failed", f"{url}: {msg}") from exc
            self.stats.ok += 1
            return html
        finally:
            job.over = True
            slot.job = None
            self.stats.seconds += time.monotonic() - started
            await self._release(slot, healthy)

    async def _load(self, slot: _Slot, job: _Job) -> str:
        page = slot.page
        async with asyncio.timeout_at(self._loop_deadline(job)):
            # "commit", then readyState "complete" seen from inside the page: after a
            # script starts a navigation (cancelled, see _answer) Playwright never
            # sees the load event, so goto(wait_until="load") would wait forever
            await page.goto(job.url, wait_until="commit", timeout=0)
            await page.evaluate(_COMPLETE_JS)
            await self._settle(page, job)
            html: str = await page.content()
        if slot.crashed:
            raise RenderError("render-failed", f"{job.url}: page crashed")
        return html

    @staticmethod
    def _loop_deadline(job: _Job) -> float:
        return asyncio.get_running_loop().time() + max(0.0, job.deadline - time.monotonic())

    async def _settle(self, page: Any, job: _Job) -> None:
        """Let timers and in-flight sub-requests finish, up to ``settle`` seconds."""
        end = min(job.deadline, time.monotonic() + self.settle)
        while True:
            seen = job.started
            await page.evaluate(_TICK_JS)
            while job.pending and time.monotonic() < end:
                await asyncio.sleep(0.02)
            if job.started == seen or time.monotonic() >= end:
                return

    async def _salvage(self, slot: _Slot) -> str | None:
        """The DOM of a page cut off by the time limit, if it still answers."""
        if slot.crashed:
            return None
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1.0):
                html: str = await slot.page.content()
                return html
        return None

    async def _release(self, slot: _Slot, healthy: bool) -> None:
        """Back to the pool; a page that hung or crashed is replaced first.

        A healthy page keeps its last document until the next ``goto`` (a
        navigation to about:blank would cost more than the render's parse);
        requests it makes meanwhile are aborted (no job)."""
        assert self._pool is not None
        pool = self._pool
        if not healthy or slot.crashed:
            try:
                slot = await self._replace(slot)
            except Exception as exc:
                log.warning("renderer: could not open a new page (%s); retrying later", exc)
                slot.crashed = True  # replaced at its next use
        pool.put_nowait(slot)

    async def _replace(self, slot: _Slot) -> _Slot:
        """A fresh page (and browser, if it died) instead of ``slot``'s."""
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5.0):
                await slot.page.close(run_before_unload=False)
        assert self._launch_lock is not None
        async with self._launch_lock:
            if self._browser is None or not self._browser.is_connected():
                log.warning("renderer: the browser is gone; launching it again")
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._browser.close(), 5)
                await self._launch(self._path)
        return await self._new_slot()

    # ------------------------------------------------------------ interception

    async def _route(self, slot: _Slot, route: Any) -> None:
        """Answer or abort one request of the browser (module doc). Never raises."""
        try:
            await self._answer(slot, route)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the page went away meanwhile, or a bug: abort
            log.debug("renderer route: %s", exc)
            with contextlib.suppress(Exception):
                await route.abort("failed")

    async def _block(self, route: Any, reason: str) -> None:
        self.stats.blocked[reason] += 1
        await route.abort("blockedbyclient")

    async def _answer(self, slot: _Slot, route: Any) -> None:
        req = route.request
        job = slot.job
        if job is None or job.over:
            await self._block(route, "no-job")
            return
        kind = req.resource_type
        if kind == "document":
            if not job.main_served and req.frame.parent_frame is None:
                job.main_served = True
                headers = {k: job.headers[k] for k in _PASSED_HEADERS if k in job.headers}
                headers.setdefault("content-type", "text/html")
                await route.fulfill(status=job.status, headers=headers, body=job.body)
            elif req.frame.parent_frame is None:
                # 204 No Content cancels a navigation and keeps the current document
                # (an aborted one would replace it with an error page)
                self.stats.blocked["navigation"] += 1
                await route.fulfill(status=204, body=b"")
            else:
                await self._block(route, "frame")
            return
        if kind not in FETCHED_TYPES:
            await self._block(route, f"type:{kind}")
            return
        if req.method != "GET":
            await self._block(route, "method")
            return
        url = req.url
        if _host(url) != job.host or not url.startswith(("http://", "https://")):
            await self._block(route, "other-host")
            return
        if self._sub is None:
            await self._block(route, "no-fetcher")
            return
        job.pending += 1
        job.started += 1
        try:
            remaining = job.deadline - time.monotonic()
            if remaining <= 0:
                await self._block(route, "time-limit")
                return
            try:
                result = await asyncio.wait_for(self._sub.fetch(url), remaining)
            except TimeoutError:
                await self._block(route, "time-limit")
                return
            await self._fulfil_sub(route, result)
        finally:
            job.pending -= 1

    async def _fulfil_sub(self, route: Any, result: FetchResult) -> None:
        if result.error in _NOT_FETCHED:
            await self._block(route, result.error)
            return
        if not result.status:
            await self._block(route, result.error or "failed")
            return
        self.stats.fetched += 1
        headers = {k: result.headers[k] for k in _SUB_HEADERS if k in result.headers}
        await route.fulfill(status=result.status, headers=headers, body=result.body)


# ---------------------------------------------------------------- engine glue


async def maybe_render(
    mode: str,
    renderer: Renderer | None,
    result: FetchResult,
    static: Page | None,
    *,
    decision: RenderDecision | None = None,
    limits: ParseSettings | None = None,
) -> Page | None:
    """The page the engine should use for a fetched ``result`` whose static parse is
    ``static``.

    ``never``, no renderer, a failed fetch or parse (``static`` None), a used-up
    ``max_rendered``: ``static`` as it is.
    ``auto``: rendered only when ``needs_render`` (or the given ``decision``) says so.
    ``always``: rendered. A render that fails (``RenderError``) falls back to
    ``static``; anything else a renderer raises is a bug and propagates. The rendered
    DOM is parsed within ``limits`` (the crawl's ``[parse]``).
    """
    if mode == "never" or renderer is None or result.error or static is None:
        return static
    if renderer.exhausted:
        if not renderer.told_exhausted:
            renderer.told_exhausted = True
            log.warning("render: max_rendered (%d) pages rendered; no more rendering in this run",
                        renderer.max_rendered)  # fmt: skip
        return static
    if mode == "auto":
        decision = decision if decision is not None else needs_render(static, result.body)
        if not decision:
            return static
    elif mode != "always":
        raise ValueError(f"render mode must be never, auto or always, not {mode!r}")
    url = result.final_url or result.url
    try:
        html = await renderer.render(url, result.body, result.headers, status=result.status)
    except RenderError as exc:
        log.info("render failed, static page kept: %s", exc)
        return static
    try:
        page = parse_page(
            static.url, html.encode("utf-8"), final_url=url, status=result.status,
            content_type="text/html", encoding="utf-8", depth=static.depth, limits=limits,
        )  # fmt: skip
    except Exception as exc:  # a DOM the browser produced should parse; keep the static one
        log.warning("rendered DOM of %s did not parse: %s", url, exc)
        return static
    return merge_rendered(static, page)


async def open_renderer(
    settings: RenderSettings, fetcher: Fetcher | None, *, pool_size: int = 2
) -> Renderer | None:
    """A started ``Renderer`` for ``settings.mode`` auto/always, or None (mode never,
    or no browser: then a warning is logged once and the crawl goes on without)."""
    if settings.mode == "never":
        return None
    renderer = Renderer(settings, fetcher, pool_size=pool_size)
    try:
        await renderer.start()
    except RenderUnavailable as exc:
        log.warning("rendering is off: %s", exc)
        return None
    return renderer
