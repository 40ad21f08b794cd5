"""The HTTP fetcher: one async client for the whole crawl (aiohttp).

``Fetcher.fetch(url)`` never raises for a failure of that URL: it returns a
``FetchResult`` whose ``error`` names the kind of failure (empty on success).
Each fetch, for every hop of a redirect chain:

1. normalises the URL (WHATWG, ``ada-url``; http and https only, no fragment);
2. asks the address guard (``fetch.guard``) whether the host may be fetched;
3. asks robots.txt (``fetch.robots``) when ``obey_robots`` is set;
4. waits for the host's politeness slot (``fetch.politeness``) whose spacing is
   ``max(min_delay, min(Crawl-delay, max_crawl_delay))``, then for one of the
   ``concurrency`` global request slots;
5. sends GET without following redirects; a 3xx with ``Location`` becomes the
   next hop (``max_redirects`` at most; a URL seen before in the chain is a
   loop); transient failures (connect errors, 5xx except 501, 429) are tried
   again up to ``retries`` times after exponential back-off or the server's
   ``Retry-After``, during which no other request goes to that host;
6. checks the content type from the headers *before* reading the body, refuses
   a declared ``Content-Length`` above ``max_bytes``, and stops reading as soon
   as more than ``max_bytes`` (decoded) arrived.

``Fetcher.fetch_document(url, max_bytes=, content_types=)`` fetches a file that is not a
page (an XML sitemap: ``fetch.sitemaps``) the same way, of other media types.

Error kinds (``FetchResult.error``): ``bad-url``, ``bad-redirect``, ``dns``,
``forbidden-address``, ``robots``, ``robots-unreachable``, ``connect``,
``disconnected``, ``timeout``, ``proxy``, ``tls``, ``bad-response``,
``payload``, ``too-large``, ``content-type``, ``redirect-loop``,
``too-many-redirects``, ``http-3xx``, ``http-4xx``, ``http-5xx``, ``internal``.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import logging
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import ada_url
import aiohttp
from yarl import URL

from formhunter.config import ROBOTS_TOKEN, FetchSettings
from formhunter.exceptions import FetchError, ForbiddenAddress, ProxyUnreachable
from formhunter.fetch.guard import AddressGuard, ForbiddenResolution, GuardResolver, normalize_host
from formhunter.fetch.politeness import Politeness
from formhunter.fetch.robots import RobotsCache

log = logging.getLogger(__name__)

REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
ROBOTS_MAX_BYTES = 512 * 1024
_DRAIN_LIMIT = 64 * 1024  # small error/redirect bodies are read so the connection is reused
_CHUNK = 64 * 1024
_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"


@dataclass(slots=True)
class FetchResult:
    """The outcome of one ``Fetcher.fetch``.

    ``url`` is the URL asked for; ``final_url`` the (normalised) URL of the last
    hop; ``status`` the last HTTP status (0 when no HTTP answer came);
    ``headers`` of the last answer with lower-case keys; ``body`` the decoded
    body bytes of a successful HTML answer (``b""`` otherwise); ``content_type``
    the media type without parameters; ``error`` ``""`` on success, else a
    short kind (module doc) and ``message`` a human-readable detail;
    ``elapsed`` seconds including politeness waits; ``redirects`` the URLs
    redirected to, in order; ``attempts`` HTTP requests sent for this fetch
    (hops and retries, robots.txt excluded).
    """

    url: str
    final_url: str = ""
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    content_type: str = ""
    error: str = ""
    elapsed: float = 0.0
    redirects: list[str] = field(default_factory=list)
    attempts: int = 0
    message: str = ""

    @property
    def ok(self) -> bool:
        """True when the page was fetched and its body is usable."""
        return not self.error

    def fail(self, kind: str, message: str = "") -> None:
        self.error = kind
        self.message = message
        self.body = b""


@dataclass(slots=True)
class FetchStats:
    """Counters of a fetcher: fetch calls, HTTP requests, bytes, errors by kind."""

    fetches: int = 0
    ok: int = 0
    requests: int = 0
    retries: int = 0
    redirects: int = 0
    robots_fetches: int = 0
    documents: int = 0  # files that are not pages (``fetch_document``: sitemaps)
    bytes: int = 0
    errors: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        return {
            "fetches": self.fetches,
            "ok": self.ok,
            "requests": self.requests,
            "retries": self.retries,
            "redirects": self.redirects,
            "robots_fetches": self.robots_fetches,
            "documents": self.documents,
            "bytes": self.bytes,
            "errors": dict(self.errors),
        }


def normalize_url(url: str) -> str | None:
    """The WHATWG-normalised http(s) URL without fragment, or None if unusable."""
    try:
        parsed = ada_url.URL(url.strip())
    except ValueError:
        return None
    if parsed.protocol not in ("http:", "https:") or not parsed.hostname:
        return None
    parsed.hash = ""
    return str(parsed.href)


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds asked for by a ``Retry-After`` header (delta or HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    ref = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - ref)


def _media_type(header: str) -> str:
    return header.split(";", 1)[0].strip().lower()


def _looks_like_html(head: bytes) -> bool:
    start = head[:1024].lstrip().lower()
    return start.startswith((b"<!doctype html", b"<html", b"<head", b"<body", b"<?xml")) or (
        b"<html" in start or b"<body" in start
    )


@dataclass(slots=True)
class _Retry:
    wait: float | None  # seconds asked by the server, None: use back-off


class Fetcher:
    """Async HTTP fetcher with robots.txt, politeness and an address guard.

    Use as ``async with Fetcher(settings) as f: result = await f.fetch(url)``.
    Entering raises ``ProxyUnreachable`` when a proxy is configured and does
    not accept a TCP connection; nothing else is raised for a single URL.
    """

    def __init__(self, settings: FetchSettings | None = None) -> None:
        self.settings = settings or FetchSettings()
        s = self.settings
        self.guard = AddressGuard(
            allow_private=s.allow_private, via_proxy=s.proxy is not None, ttl=s.dns_ttl
        )
        self.politeness = Politeness(s.per_host_connections)
        self.robots = RobotsCache(
            self._fetch_robots, token=ROBOTS_TOKEN, ttl=s.robots_ttl,
            error_ttl=s.robots_error_ttl, max_bytes=ROBOTS_MAX_BYTES,
        )
        self.stats = FetchStats()
        self._session: aiohttp.ClientSession | None = None
        self._slots: asyncio.Semaphore | None = None
        self._proxy = URL(s.proxy) if s.proxy else None

    async def __aenter__(self) -> Fetcher:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self) -> None:
        """Open the client session (checking the proxy first, if any)."""
        if self._session is not None:
            return
        s = self.settings
        if self._proxy is not None:
            await self._check_proxy()
        resolver = (
            GuardResolver(self.guard) if s.proxy is None and not s.allow_private else None
        )
        connector = aiohttp.TCPConnector(
            limit=s.concurrency,
            limit_per_host=s.per_host_connections,
            resolver=resolver,
            use_dns_cache=resolver is None,
            ttl_dns_cache=int(s.dns_ttl),
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=aiohttp.ClientTimeout(
                total=None, connect=None, sock_connect=s.connect_timeout, sock_read=s.read_timeout
            ),
            headers={"User-Agent": s.user_agent, "Accept": _ACCEPT},
            cookie_jar=aiohttp.DummyCookieJar(),
            trust_env=False,
            auto_decompress=True,
        )
        self._slots = asyncio.Semaphore(s.concurrency)

    async def close(self) -> None:
        """Close the session; the fetcher can be started again."""
        if self._session is not None:
            session, self._session = self._session, None
            await session.close()

    async def _check_proxy(self) -> None:
        assert self._proxy is not None
        host = self._proxy.host or ""
        port = self._proxy.port or (443 if self._proxy.scheme == "https" else 80)
        try:
            _, writer = await asyncio.wait_for(
                asyncio.open_connection(host, port), self.settings.connect_timeout
            )
        except (OSError, TimeoutError) as exc:
            raise ProxyUnreachable(
                f"the proxy {self.settings.proxy} does not answer "
                f"({type(exc).__name__}: {exc or 'timed out'}); is it running?"
            ) from exc
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()

    # ------------------------------------------------------------------ public

    def delay_for(self, host: str) -> float:
        """Seconds kept between two requests to ``host`` (min_delay, Crawl-delay)."""
        s = self.settings
        asked = self.robots.crawl_delay(normalize_host(host))
        if asked is None:
            return s.min_delay
        return max(s.min_delay, min(asked, s.max_crawl_delay))

    def host_ready_in(self, url: str) -> float:
        """Seconds until a request to ``url``'s host could start without waiting."""
        try:
            host = normalize_host(ada_url.URL(url).hostname)
        except ValueError:
            return 0.0
        return self.politeness.ready_in(host, self.delay_for(host)) if host else 0.0

    def take_robots(self) -> list[tuple[str, str, int, bytes, str, float]]:
        """The robots.txt answers fetched since the last call, oldest first."""
        return self.robots.take_fetched()

    def preload_robots(self, rows: Sequence[tuple[str, str, int, bytes, float]]) -> None:
        """A resumed run's stored robots.txt answers (their TTLs still run)."""
        self.robots.preload_all(rows)

    def http(self) -> Fetcher:
        return self

    async def fetch(self, url: str) -> FetchResult:
        """Fetch one page (module doc). Never raises for a failure of this URL."""
        if self._session is None:
            raise RuntimeError("Fetcher.fetch called outside 'async with Fetcher(...)'")
        started = time.monotonic()
        result = FetchResult(url=url, final_url=url)
        self.stats.fetches += 1
        try:
            await self._run(
                result,
                check_robots=self.settings.obey_robots,
                check_type=True,
                max_bytes=self.settings.max_bytes,
                truncate=False,
                retries=self.settings.retries,
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never let one URL stop the crawl; count it
            log.exception("unexpected failure fetching %s", url)
            result.fail("internal", f"{type(exc).__name__}: {exc}")
        result.elapsed = time.monotonic() - started
        if result.error:
            self.stats.errors[result.error] += 1
        else:
            self.stats.ok += 1
        return result

    async def fetch_document(self, url: str, *, max_bytes: int,
                             content_types: Sequence[str]) -> FetchResult:  # fmt: skip
        """Fetch a file that is not a page (a sitemap) as ``fetch`` does -- address guard,
        robots.txt, politeness, retries -- but of ``content_types`` (any type when the
        answer names none) and at most ``max_bytes`` ("too-large" beyond). Never raises
        for a failure of this URL; not counted in the fetcher's page counters."""
        if self._session is None:
            raise RuntimeError("Fetcher.fetch_document called outside 'async with Fetcher(...)'")
        started = time.monotonic()
        result = FetchResult(url=url, final_url=url)
        self.stats.documents += 1
        try:
            await self._run(result, check_robots=self.settings.obey_robots, check_type=True,
                            max_bytes=max_bytes, truncate=False, retries=self.settings.retries,
                            types=tuple(content_types))  # fmt: skip
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never let one URL stop the crawl
            log.exception("unexpected failure fetching %s", url)
            result.fail("internal", f"{type(exc).__name__}: {exc}")
        result.elapsed = time.monotonic() - started
        return result

    # ---------------------------------------------------------------- internal

    async def _fetch_robots(self, url: str) -> tuple[int, bytes, str]:
        self.stats.robots_fetches += 1
        result = FetchResult(url=url, final_url=url)
        await self._run(
            result, check_robots=False, check_type=False,
            max_bytes=ROBOTS_MAX_BYTES, truncate=True, retries=0,
        )
        log.debug("robots %s -> %s %s", url, result.status, result.error)
        if result.error in ("", "http-3xx", "http-4xx", "http-5xx", "redirect-loop",
                            "too-many-redirects"):
            return result.status, result.body, result.final_url
        return 0, b"", result.final_url

    async def _run(
        self,
        result: FetchResult,
        *,
        check_robots: bool,
        check_type: bool,
        max_bytes: int,
        truncate: bool,
        retries: int,
        types: tuple[str, ...] = (),
    ) -> None:
        current = normalize_url(result.url)
        if current is None:
            result.fail("bad-url", f"not an http(s) URL: {result.url!r}")
            return
        result.final_url = current
        seen = {current}
        while True:
            host = normalize_host(ada_url.URL(current).hostname)
            try:
                await self.guard.check(host)
            except ForbiddenAddress as exc:
                result.fail("forbidden-address", str(exc))
                return
            except FetchError as exc:
                result.fail(exc.kind, str(exc))
                return
            if check_robots:
                verdict = await self.robots.verdict(current)
                if verdict:
                    why = (
                        f"robots.txt forbids {current}" if verdict == "robots"
                        else f"robots.txt for {host} could not be fetched; retried later"
                    )
                    result.fail(verdict, why)
                    return
            location = await self._with_retries(
                current, host, result, check_type, max_bytes, truncate, retries, types
            )
            if location is None:
                return
            if len(result.redirects) >= self.settings.max_redirects:
                result.fail("too-many-redirects", f"more than {self.settings.max_redirects}")
                return
            target = _redirect_target(current, location)
            if target is None:
                result.fail("bad-redirect", f"unusable Location {location!r}")
                return
            if target in seen:
                result.fail("redirect-loop", f"{current} -> {target}")
                return
            seen.add(target)
            result.redirects.append(target)
            result.final_url = current = target
            self.stats.redirects += 1

    async def _with_retries(
        self,
        url: str,
        host: str,
        result: FetchResult,
        check_type: bool,
        max_bytes: int,
        truncate: bool,
        retries: int,
        types: tuple[str, ...] = (),
    ) -> str | None:
        """Send the request, again after transient failures; the Location to follow.
        ``types``: the media types read (() = ``allowed_content_types``, a page's)."""
        s = self.settings
        for attempt in range(retries + 1):
            result.error = result.message = ""
            async with self.politeness.slot(host, lambda: self.delay_for(host)):
                assert self._slots is not None
                async with self._slots:
                    outcome = await self._request(url, result, check_type, max_bytes, truncate,
                                                  types)  # fmt: skip
            if not isinstance(outcome, _Retry):
                return outcome
            if attempt == retries:
                return None
            if outcome.wait is not None:
                if outcome.wait > s.max_retry_after:
                    result.message += f" (Retry-After {outcome.wait:.0f}s too long)"
                    return None
                wait = outcome.wait
            else:
                wait = min(s.backoff_max, s.backoff_base * 2**attempt)
                wait *= 0.5 + random.random() / 2  # jitter: spread retries of many clients
            self.politeness.defer(host, wait)
            self.stats.retries += 1
            log.debug("retry %s in %.2fs after %s", url, wait, result.error)
        return None

    async def _request(
        self, url: str, result: FetchResult, check_type: bool, max_bytes: int, truncate: bool,
        types: tuple[str, ...] = (),
    ) -> str | _Retry | None:
        """One HTTP request: fills ``result``; returns a Location, None, or _Retry."""
        assert self._session is not None
        s = self.settings
        self.stats.requests += 1
        result.attempts += 1
        result.status, result.headers, result.content_type, result.body = 0, {}, "", b""
        try:
            async with asyncio.timeout(s.total_timeout), self._session.get(
                URL(url, encoded=True), allow_redirects=False, proxy=self._proxy
            ) as resp:
                return await self._answer(resp, result, check_type, max_bytes, truncate, types)
        except ForbiddenAddress as exc:
            result.fail("forbidden-address", str(exc))
        except aiohttp.ClientConnectorDNSError as exc:
            if isinstance(exc.os_error, ForbiddenResolution):
                result.fail("forbidden-address", str(exc.os_error))
            else:
                result.fail("dns", str(exc))
        except aiohttp.ClientProxyConnectionError as exc:
            result.fail("proxy", str(exc))
            return _Retry(None)
        except aiohttp.ClientHttpProxyError as exc:
            result.fail("proxy", f"proxy answered {exc.status}: {exc.message}")
        except aiohttp.ClientSSLError as exc:
            result.fail("tls", str(exc))
        except aiohttp.ConnectionTimeoutError as exc:
            result.fail("connect", f"connect timed out: {exc}")
            return _Retry(None)
        except aiohttp.ClientConnectorError as exc:
            result.fail("connect", str(exc))
            return _Retry(None)
        except TimeoutError as exc:  # read timeout or the total cap
            result.fail("timeout", str(exc) or "timed out")
        except aiohttp.ServerDisconnectedError as exc:
            result.fail("disconnected", str(exc))
            return _Retry(None)
        except aiohttp.ClientPayloadError as exc:
            result.fail("payload", str(exc))
        except aiohttp.InvalidURL as exc:
            result.fail("bad-url", str(exc))
        except aiohttp.ClientResponseError as exc:
            result.fail("bad-response", f"{exc.status}: {exc.message}")
        except (aiohttp.ClientError, OSError) as exc:
            result.fail("connect", f"{type(exc).__name__}: {exc}")
        return None

    async def _answer(
        self,
        resp: aiohttp.ClientResponse,
        result: FetchResult,
        check_type: bool,
        max_bytes: int,
        truncate: bool,
        types: tuple[str, ...] = (),
    ) -> str | _Retry | None:
        status = resp.status
        result.status = status
        headers: dict[str, str] = {}
        for key, value in resp.headers.items():
            k = key.lower()
            headers[k] = f"{headers[k]}, {value}" if k in headers else value
        result.headers = headers
        raw_type = headers.get("content-type", "")
        result.content_type = _media_type(raw_type)
        length = resp.content_length

        if not 200 <= status < 300:
            await self._drain(resp, length)
            if status in REDIRECT_CODES and "location" in headers:
                return headers["location"]
            kind = f"http-{status // 100}xx" if 300 <= status < 600 else "bad-response"
            result.fail(kind, f"HTTP {status}")
            if status == 429 or (status >= 500 and status != 501):
                return _Retry(retry_after_seconds(headers.get("retry-after")))
            return None

        allowed = types or self.settings.allowed_content_types
        if check_type and raw_type and result.content_type not in allowed:
            resp.close()  # drop the connection rather than download the body
            result.fail("content-type", result.content_type)
            return None
        if length is not None and length > max_bytes and not truncate:
            resp.close()
            result.fail("too-large", f"Content-Length {length} > {max_bytes}")
            return None

        chunks: list[bytes] = []
        total = 0
        async for chunk in resp.content.iter_chunked(_CHUNK):
            total += len(chunk)
            self.stats.bytes += len(chunk)
            if total > max_bytes:
                if truncate:
                    chunks.append(chunk[: len(chunk) - (total - max_bytes)])
                    break
                resp.close()
                result.fail("too-large", f"more than {max_bytes} bytes")
                return None
            chunks.append(chunk)
        body = b"".join(chunks)
        if check_type and not raw_type and not types:  # a page without a type: sniffed
            if not _looks_like_html(body):
                result.fail("content-type", "no Content-Type and not HTML")
                return None
            result.content_type = "text/html"
        result.body = body
        return None

    async def _drain(self, resp: aiohttp.ClientResponse, length: int | None) -> None:
        """Read a small unwanted body so the connection can be reused; else drop it."""
        if length is not None and length <= _DRAIN_LIMIT:
            try:
                await resp.read()
                return
            except (aiohttp.ClientError, TimeoutError):
                pass
        resp.close()


def _redirect_target(current: str, location: str) -> str | None:
    """The absolute, normalised URL a ``Location`` header points at; None when it is
    empty or unparsable (``http://[::1``): the fetch fails as ``bad-redirect``."""
    if not location:
        return None
    try:
        return normalize_url(ada_url.join_url(current, location))
    except ValueError:
        return None
