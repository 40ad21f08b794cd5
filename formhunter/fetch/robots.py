"""robots.txt, read by ``protego`` and cached per origin (RFC 9309).

One robots.txt is fetched per origin (scheme, host, port), through the
fetcher's own session, proxy, address guard and politeness, and kept for
``ttl`` seconds. What the answer means:

* 2xx: the rules apply (the first ``max_bytes`` are parsed); ``Crawl-delay``
  and ``Request-rate`` (as seconds per request) for our token are exposed.
* 3xx left over (more redirects than the fetcher follows) and 4xx except 429:
  robots.txt is unavailable, everything is allowed (RFC 9309 2.3.1.3).
* 429, 5xx and no answer at all (timeout, connect error): unreachable,
  everything is disallowed (RFC 9309 2.3.1.4) for ``error_ttl`` seconds, after
  which robots.txt is tried again.

Every answer fetched is also kept in ``fetched`` (``take_fetched`` drains it) so that a
crawl can save it with its commit points; ``preload`` gives a resumed crawl those
answers back, aged by the time since they were fetched (no robots.txt fetched again).

Concurrent questions about one origin share one fetch. A robots.txt request
redirected to another origin's ``/robots.txt`` (``foo.example`` ->
``www.foo.example``) also fills that origin's entry, saving a second fetch.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from protego import Protego

from formhunter.config import ROBOTS_TOKEN
from formhunter.fetch.politeness import SingleFlight

#: Fetches a robots.txt URL: (HTTP status or 0 without an answer, body bytes,
#: the URL finally answered after redirects).
RobotsFetch = Callable[[str], Awaitable[tuple[int, bytes, str]]]

ALLOWED = ""
DISALLOWED = "robots"
UNREACHABLE = "robots-unreachable"


@dataclass(slots=True)
class RobotsEntry:
    """What is known about one origin's robots.txt."""

    status: int
    expires: float
    rules: Protego | None = None
    unreachable: bool = False
    crawl_delay: float | None = None


def origin_of(url: str) -> tuple[str, str] | None:
    """(origin ``scheme://host:port``, host) of an http(s) URL, or None."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    if port is None:
        port = 443 if parts.scheme == "https" else 80
    host = parts.hostname
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown}:{port}", host


class RobotsCache:
    """robots.txt rules per origin (module doc)."""

    def __init__(
        self,
        fetch: RobotsFetch,
        *,
        token: str = ROBOTS_TOKEN,
        ttl: float = 24 * 3600.0,
        error_ttl: float = 600.0,
        max_bytes: int = 512 * 1024,
        max_entries: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fetch = fetch
        self.token = token
        self.ttl = ttl
        self.error_ttl = error_ttl
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self._clock = clock
        self._entries: dict[str, RobotsEntry] = {}
        self._flight: SingleFlight[str, RobotsEntry] = SingleFlight()
        self._delays: dict[str, float] = {}
        self.fetches = 0
        #: answers fetched and not yet taken: (origin, host, status, body, final URL, wall time)
        self.fetched: list[tuple[str, str, int, bytes, str, float]] = []
        self._answer: tuple[int, bytes] = (0, b"")  # the last answer _load had

    async def verdict(self, url: str) -> str:
        """``""`` if ``url`` may be fetched, else ``"robots"`` (disallowed by the
        rules) or ``"robots-unreachable"`` (robots.txt could not be fetched)."""
        found = origin_of(url)
        if found is None:
            return ALLOWED
        entry = await self.entry(found[0], found[1])
        if entry.unreachable:
            return UNREACHABLE
        if entry.rules is None or entry.rules.can_fetch(url, self.token):
            return ALLOWED
        return DISALLOWED

    async def allowed(self, url: str) -> bool:
        """True if robots.txt lets us fetch ``url``."""
        return await self.verdict(url) == ALLOWED

    def crawl_delay(self, host: str) -> float | None:
        """Seconds between requests asked for by ``host``'s robots.txt, if known.

        The largest ``Crawl-delay`` (or ``Request-rate`` seconds per request)
        over the host's cached origins; None when none was given or robots.txt
        was not fetched yet.
        """
        return self._delays.get(host.lower())

    def cached(self, url: str) -> RobotsEntry | None:
        """The live cache entry for ``url``'s origin, without fetching."""
        found = origin_of(url)
        if found is None:
            return None
        entry = self._entries.get(found[0])
        if entry is None or entry.expires <= self._clock():
            return None
        return entry

    async def entry(self, origin: str, host: str) -> RobotsEntry:
        """The (cached or freshly fetched) entry of ``origin``."""
        entry = self._entries.get(origin)
        if entry is not None and entry.expires > self._clock():
            return entry
        return await self._flight.run(origin, lambda: self._load_and_keep(origin, host))

    def take_fetched(self) -> list[tuple[str, str, int, bytes, str, float]]:
        """The answers fetched since the last call (``fetched``), oldest first."""
        out, self.fetched = self.fetched, []
        return out

    def preload_all(self, rows: Iterable[tuple[str, str, int, bytes, float]]) -> None:
        """``preload`` each (origin, host, status, body, age): a resumed run fetches none
        of its robots.txt again (their TTLs still run)."""
        for origin, host, status, body, age in rows:
            self.preload(origin, host, status, body, age)

    def preload(self, origin: str, host: str, status: int, body: bytes,
                age: float) -> None:  # fmt: skip
        """Keep an answer fetched ``age`` seconds ago (a resumed crawl's), unless expired."""
        entry = self._interpret(status, body)
        entry.expires -= max(age, 0.0)
        if entry.expires > self._clock():
            self._keep(origin, host, entry)

    async def _load_and_keep(self, origin: str, host: str) -> RobotsEntry:
        entry, final_url = await self._load(origin)
        status, body = self._answer
        self.fetched.append((origin, host, status, body, final_url, time.time()))
        self._keep(origin, host, entry)
        # redirected to another origin's robots.txt (bare host -> www): that
        # answer is also the other origin's own robots.txt, so keep it for it too
        final = origin_of(final_url)
        if (
            final is not None and final[0] != origin and not entry.unreachable
            and urlsplit(final_url).path == "/robots.txt" and self.cached(final_url) is None
        ):
            self._keep(final[0], final[1], entry)
        return entry

    def _keep(self, origin: str, host: str, entry: RobotsEntry) -> None:
        if len(self._entries) >= self.max_entries:
            self._evict()
        self._entries[origin] = entry
        if entry.crawl_delay is not None:
            self._delays[host] = max(entry.crawl_delay, self._delays.get(host, 0.0))

    def _evict(self) -> None:
        now = self._clock()
        for key in [k for k, e in self._entries.items() if e.expires <= now]:
            del self._entries[key]
        while len(self._entries) >= self.max_entries:
            del self._entries[next(iter(self._entries))]

    async def _load(self, origin: str) -> tuple[RobotsEntry, str]:
        self.fetches += 1
        status, body, final_url = await self._fetch(origin + "/robots.txt")
        self._answer = (status, body[: self.max_bytes])
        return self._interpret(status, body), final_url

    def _interpret(self, status: int, body: bytes) -> RobotsEntry:
        now = self._clock()
        if 200 <= status < 300:
            text = body[: self.max_bytes].decode("utf-8", errors="replace")
            try:
                rules = Protego.parse(text)
            except Exception:  # unparseable: no valid rule, so nothing is disallowed
                return RobotsEntry(status, now + self.ttl)
            delay = rules.crawl_delay(self.token)
            rate = rules.request_rate(self.token)
            if rate is not None and rate.requests > 0:
                per_request = rate.seconds / rate.requests
                delay = per_request if delay is None else max(delay, per_request)
            return RobotsEntry(
                status, now + self.ttl, rules=rules,
                crawl_delay=None if delay is None else float(delay),
            )
        if 300 <= status < 500 and status != 429:
            return RobotsEntry(status, now + self.ttl)
        return RobotsEntry(status, now + self.error_ttl, unreachable=True)
