"""URL helpers of the simulated web: canonical form and site names.

Canonical = ``scheme://host/path?sorted-query``: lower-case scheme and host, no
default port, no fragment, no session id (``;jsessionid=...`` path parameters and
``sid``/``jsessionid``/``phpsessid``/``sessionid`` query parameters).
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import parse_qsl, urlencode, urlsplit

import tldextract

SESSION_PARAMS = frozenset({"sid", "jsessionid", "phpsessid", "sessionid"})
TLD = "example"

_EXTRACT = tldextract.TLDExtract(suffix_list_urls=(), extra_suffixes=(TLD,))


def canonical_url(url: str) -> str:
    """The canonical form of an absolute http(s) URL (see module docstring)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port
    if port and not ((scheme == "http" and port == 80) or (scheme == "https" and port == 443)):
        host = f"{host}:{port}"
    path = parts.path or "/"
    if ";" in path:
        path = ";".join(p for p in path.split(";") if not p.lower().startswith("jsessionid="))
    query = parts.query
    if query:
        pairs = [
            (k, v)
            for k, v in parse_qsl(query, keep_blank_values=True)
            if k.lower() not in SESSION_PARAMS
        ]
        pairs.sort()
        query = urlencode(pairs)
    return f"{scheme}://{host}{path}?{query}" if query else f"{scheme}://{host}{path}"


@lru_cache(maxsize=65536)
def _site_of_host(host: str) -> str:
    ext = _EXTRACT(host)
    if ext.suffix and ext.domain:
        return f"{ext.domain}.{ext.suffix}"
    return host


def site_of(host_or_url: str) -> str:
    """The registrable site of a host or URL: ``www.foo-air.example`` -> ``foo-air.example``."""
    host = host_or_url
    if "/" in host_or_url:
        host = urlsplit(host_or_url).hostname or ""
    return _site_of_host(host.lower().split(":")[0])
