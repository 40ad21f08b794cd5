"""The simulated web: a deterministic, realistic web with ground truth, served on loopback.

Public API (other modules build on exactly this)::

    from formhunter.simweb import SimWeb, running_proxy, canonical_url, site_of

    web = SimWeb(seed=7, n_sites=500)          # default: >= 500 sites, >= 100,000 pages
                                               # page_kb=N: HTML pages padded to ~N KB
                                               # (same links, forms, truth; see .weight)
    web.seeds("airfare", 20) -> list[str]      # topical seed URLs (directory categories,
                                               # topical articles); same as `simweb seeds`
    web.fetch(url) -> SimResponse              # exactly what the proxy serves:
                                               #   .status, .headers (dict), .body (bytes),
                                               #   .url, .delay (seconds the proxy waits)
    await web.afetch(url) -> SimResponse       # async variant (no sleeping)
    web.transport() -> SimTransport            # async in-process "HTTP client" for the engine:
                                               #   await t.get(url, follow_redirects=False)
    web.page(url) -> PageSpec | None           # structured truth of one page (no HTML)
    web.outlinks(url) -> list[tuple[str, str]] # (canonical dst url, anchor) of one page
    web.truth() -> Truth                       # .pages() / .links() / .forms() iterate
                                               # dict rows; .export(dir, "jsonl"|"parquet")
    web.sites -> list[Site]                    # the site plans (host, kind, domain, ...)
    web.site_for_host(host) -> Site | None
    web.hostile() -> dict[str, list[str]]      # example URLs of every hostile part
    web.count_pages() -> int                   # from the site plans, without rendering

    with running_proxy(seed=7, n_sites=500, port=0, slow_delay=2.0, log_file=None) as proxy:
        proxy.url    # "http://127.0.0.1:PORT" -> use as an HTTP forward proxy
        proxy.log    # list[dict]: {time, host, path, status, bytes, method}
        proxy.stop() # also done on leaving the with-block
    start_proxy(...) -> ProxyHandle              # the same without a with-block

    canonical_url(url) -> str   # scheme://host/path?sorted-query; no fragment, no session id
    site_of(host_or_url) -> str # "www.foo-air.example" -> "foo-air.example"

Host names use the reserved ``.example`` TLD (RFC 2606), e.g. ``www.skyhop-fares.example``.
tldextract's bundled suffix list does NOT know ``.example`` (it would call every host's site
"example"), so code that groups hosts into sites must use
``tldextract.TLDExtract(suffix_list_urls=(), extra_suffixes=("example",))`` or ``site_of``.

Command line: ``formhunter simweb serve|seeds|truth|bench`` (see formhunter.commands.simweb).
Hostile parts and ground-truth columns are documented in ``formhunter.simweb.generator``.
"""

from formhunter.simweb.generator import PageSpec, SimResponse, SimWeb
from formhunter.simweb.server import ProxyHandle, running_proxy, start_proxy
from formhunter.simweb.transport import SimTransport
from formhunter.simweb.truth import Truth
from formhunter.simweb.urls import canonical_url, site_of

__all__ = [
    "PageSpec",
    "ProxyHandle",
    "SimResponse",
    "SimTransport",
    "SimWeb",
    "Truth",
    "canonical_url",
    "running_proxy",
    "site_of",
    "start_proxy",
]
