"""Settings of the fetch stage: one frozen record, validated on creation."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from formhunter import __version__
from formhunter.exceptions import ConfigError

#: The product token robots.txt groups are matched against.
ROBOTS_TOKEN = "formhunter"

DEFAULT_USER_AGENT = (
    f"{ROBOTS_TOKEN}/{__version__} "
    "(+https://github.com/formhunter/formhunter; hidden-web entry point crawler)"
)


@dataclass(frozen=True)
class FetchSettings:
    """How the fetcher talks to the Web.

    Times are in seconds, sizes in bytes. ``min_delay`` is the least time between
    the starts of two requests to one host; a robots.txt ``Crawl-delay`` (or
    ``Request-rate``) raises it, but never above ``max_crawl_delay``.
    ``retries`` is the number of extra attempts after a transient failure
    (connect error, 5xx except 501, 429), waiting ``backoff_base * 2**n``
    (capped at ``backoff_max``) or the server's ``Retry-After`` (if at most
    ``max_retry_after``). ``total_timeout`` bounds one request (connect to last
    byte) against servers that drip bytes. ``robots_ttl`` is how long a fetched
    robots.txt is trusted; ``robots_error_ttl`` how long a host whose robots.txt
    could not be fetched (5xx, timeout, unreachable) stays disallowed before
    robots.txt is tried again. ``dns_ttl`` is how long the address guard keeps a
    resolution. ``proxy`` is an ``http://host:port`` forward proxy for every
    request; ``allow_private`` lifts the address guard (see ``fetch.guard``).
    """

    user_agent: str = DEFAULT_USER_AGENT
    concurrency: int = 32
    per_host_connections: int = 1
    min_delay: float = 1.0
    max_crawl_delay: float = 30.0
    obey_robots: bool = True
    robots_ttl: float = 24 * 3600.0
    robots_error_ttl: float = 600.0
    max_redirects: int = 5
    connect_timeout: float = 10.0
    read_timeout: float = 20.0
    total_timeout: float = 60.0
    max_bytes: int = 5 * 1024 * 1024
    allowed_content_types: tuple[str, ...] = field(
        default=("text/html", "application/xhtml+xml")
    )
    retries: int = 2
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    max_retry_after: float = 120.0
    proxy: str | None = None
    allow_private: bool = False
    dns_ttl: float = 300.0

    def __post_init__(self) -> None:
        if not self.user_agent.strip():
            raise ConfigError("fetch: user_agent must not be empty")
        for name in ("concurrency", "per_host_connections"):
            if getattr(self, name) < 1:
                raise ConfigError(f"fetch: {name} must be at least 1")
        for name in ("max_redirects", "retries", "max_bytes"):
            if getattr(self, name) < 0:
                raise ConfigError(f"fetch: {name} must not be negative")
        for name in (
            "min_delay", "max_crawl_delay", "robots_ttl", "robots_error_ttl",
            "backoff_base", "backoff_max", "max_retry_after", "dns_ttl",
        ):
            if getattr(self, name) < 0:
                raise ConfigError(f"fetch: {name} must not be negative")
        for name in ("connect_timeout", "read_timeout", "total_timeout"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"fetch: {name} must be positive")
        if not self.allowed_content_types:
            raise ConfigError("fetch: allowed_content_types must not be empty")
        object.__setattr__(
            self,
            "allowed_content_types",
            tuple(t.strip().lower() for t in self.allowed_content_types),
        )
        if self.proxy is not None:
            parts = urlsplit(self.proxy)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ConfigError(
                    f"fetch: proxy must look like http://host:port, got {self.proxy!r}"
                )
            try:
                parts.port  # noqa: B018 - raises ValueError on a bad port
            except ValueError as exc:
                raise ConfigError(f"fetch: bad proxy port in {self.proxy!r}") from exc
