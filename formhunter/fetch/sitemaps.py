"""XML sitemaps (sitemaps.org) named by a site's robots.txt, read safely and within caps.

``SitemapReader.claim(url)`` is asked after each fetch (``Engine._fetch``). The first time
the robots.txt of a URL's origin is known (the fetcher fetched it for that fetch) and
names ``Sitemap:`` lines, ``read_claimed`` fetches those sitemaps (in a task of its own,
beside the page fetches: ``Engine``) through the same fetcher
(``Fetcher.fetch_document``: address guard, robots.txt, politeness, retries, a byte cap),
follows sitemap indexes ``[sitemaps] max_depth`` deep, at most ``max_per_site`` sitemaps
per site, and returns the page URLs they list (``SitemapLinks``). An origin whose
robots.txt names no sitemap costs nothing: no request, no parse.

What a sitemap may hold, and what is done with it (``parse_sitemap``):

- gzip-compressed (``.xml.gz``, by its magic bytes): decompressed to ``max_bytes`` at
  most; more is refused whole ("too-large": a compression bomb costs a bounded read);
- XML parsed by lxml without entities, DTDs or network access; a document with a
  DOCTYPE is refused ("doctype": sitemaps have none, and entity expansion starts there);
  malformed XML is refused ("malformed"); a root other than ``urlset`` /
  ``sitemapindex`` is "not-sitemap"; plain text (one URL a line) is read too;
- at most ``max_urls`` URLs of one sitemap are taken (the rest counted: "cut");
- only http(s) URLs of the robots.txt's own site are kept, for pages and for the
  sitemaps an index names ("off-site": a sitemap cannot send the crawl elsewhere); a
  URL whose host is a private address is refused later by the address guard when it
  is fetched, as any link's.

Each refused sitemap, and each fetch that failed, is counted by kind
(``SitemapLinks.errors``, then ``CrawlStats.sitemap_errors``); the crawl goes on. The
reader keeps in memory which origins it read: a resumed run reads them again (the
frontier knows their URLs: none is queued twice).
"""

from __future__ import annotations

import asyncio
import logging
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lxml import etree

from formhunter.config import SitemapSettings
from formhunter.fetch.robots import origin_of
from formhunter.urls import canonicalize, join, site_of

if TYPE_CHECKING:
    from formhunter.fetch.http import Fetcher

log = logging.getLogger(__name__)

__all__ = ["SITEMAP_TYPES", "SitemapDoc", "SitemapLinks", "SitemapReader", "parse_sitemap"]

#: Media types a sitemap may be served as (a ``.xml.gz`` often as a generic binary).
SITEMAP_TYPES = ("application/xml", "text/xml", "application/x-xml", "text/plain",
                 "application/gzip", "application/x-gzip", "application/octet-stream",
                 "binary/octet-stream")  # fmt: skip
_GZIP_MAGIC = b"\x1f\x8b"
#: bodies parsed in a thread from this size on (a big sitemap does not stall the loop)
_THREAD_BYTES = 256 * 1024
_TEXT_URL = re.compile(rb"^\s*(https?://\S+)\s*$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True, slots=True)
class SitemapDoc:
    """One sitemap read: ``kind`` "urlset", "index" (its ``urls`` are sitemaps), "text",
    or "" with ``error`` (too-large, gzip, doctype, malformed, not-sitemap); ``cut``:
    URLs past ``max_urls`` that were not taken."""

    kind: str
    urls: tuple[str, ...] = ()
    error: str = ""
    cut: int = 0


def gunzip(data: bytes, max_bytes: int) -> bytes | None:
    """``data`` decompressed (gzip or zlib), None if it holds more than ``max_bytes``;
    raises ``zlib.error`` on a damaged stream."""
    d = zlib.decompressobj(wbits=47)  # 32 + 15: a gzip or zlib header, found by itself
    out = d.decompress(data, max_bytes + 1)
    if len(out) > max_bytes or d.unconsumed_tail:
        return None
    return out


def _local(tag: object) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _locs(root: etree._Element, parent: str) -> Iterator[str]:
    """The text of each ``<loc>`` whose parent is a ``<parent>`` (any namespace)."""
    for el in root.iter("{*}loc", "loc"):
        up = el.getparent()
        if up is not None and _local(up.tag) == parent and el.text:
            yield el.text.strip()


def parse_sitemap(body: bytes, *, max_bytes: int, max_urls: int) -> SitemapDoc:
    """A sitemap's URLs (module doc); never raises for what the body holds."""
    if body[:2] == _GZIP_MAGIC:
        try:
            inflated = gunzip(body, max_bytes)
        except zlib.error:
            return SitemapDoc("", error="gzip")
        if inflated is None:
            return SitemapDoc("", error="too-large")
        body = inflated
    if len(body) > max_bytes:
        return SitemapDoc("", error="too-large")
    if b"<!DOCTYPE" in body:  # refused before any parse: no entity is ever declared
        return SitemapDoc("", error="doctype")
    head = body[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"<"):
        found = [m.decode("utf-8", "replace") for m in _TEXT_URL.findall(body)]
        return SitemapDoc("text", tuple(found[:max_urls]), cut=max(len(found) - max_urls, 0))
    parser = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True,
                             dtd_validation=False, huge_tree=False, remove_comments=True,
                             remove_pis=True, collect_ids=False)  # fmt: skip
    try:
        root = etree.fromstring(body, parser)
    except (etree.XMLSyntaxError, ValueError):
        return SitemapDoc("", error="malformed")
    if root is None:
        return SitemapDoc("", error="malformed")
    if root.getroottree().docinfo.doctype:
        return SitemapDoc("", error="doctype")
    kind = _local(root.tag)
    if kind not in ("urlset", "sitemapindex"):
        return SitemapDoc("", error="not-sitemap")
    urls: list[str] = []
    cut = 0
    for loc in _locs(root, "url" if kind == "urlset" else "sitemap"):
        if len(urls) < max_urls:
            urls.append(loc)
        else:
            cut += 1
    return SitemapDoc("urlset" if kind == "urlset" else "index", tuple(urls), cut=cut)


@dataclass(slots=True)
class SitemapLinks:
    """What the sitemaps of one fetch's origins gave: ``urls`` (page URL, the sitemap
    listing it), canonical, each of the site whose robots.txt named the sitemap, each
    once; ``read``: sitemaps read; ``errors``: sitemaps refused or not fetched, and URLs
    not taken, by kind (module doc)."""

    urls: list[tuple[str, str]] = field(default_factory=list)
    read: int = 0
    errors: Counter[str] = field(default_factory=Counter)


class SitemapReader:
    """Reads the sitemaps of each origin's robots.txt once (module doc)."""

    def __init__(self, settings: SitemapSettings, fetcher: Fetcher) -> None:
        self.settings = settings
        self.fetcher = fetcher
        self.origins: set[str] = set()  # origins whose robots.txt was looked at
        self.per_site: Counter[str] = Counter()  # sitemaps fetched per site

    async def read(self, *urls: str) -> SitemapLinks | None:
        """The pages listed by the sitemaps that the robots.txt of the origins of ``urls``
        name, the first time that robots.txt is known; None when no sitemap was tried."""
        claims = self.claim(*urls)
        return await self.read_claimed(claims) if claims else None

    def claim(self, *urls: str) -> list[tuple[str, list[str]]]:
        """The sites, each with the sitemap URLs its robots.txt names, whose robots.txt
        is known now and was not looked at before (they are marked looked at: a second
        claim of the same origin gives nothing, so only one reader fetches them)."""
        claims: list[tuple[str, list[str]]] = []
        for url in urls:
            found = origin_of(url)
            if found is None or found[0] in self.origins:
                continue
            entry = self.fetcher.robots.cached(url)
            if entry is None:  # not fetched (yet): asked again after the next fetch
                continue
            self.origins.add(found[0])
            if entry.rules is None:
                continue
            named = [u for u in (join(found[0] + "/", s) for s in entry.rules.sitemaps) if u]
            if named:
                claims.append((site_of(url), named))
        return claims

    async def read_claimed(self, claims: list[tuple[str, list[str]]]) -> SitemapLinks:
        """What the sitemaps of ``claim``'s sites list (module doc)."""
        out = SitemapLinks()
        for site, named in claims:
            await self._read_site(site, named, out)
        return out

    async def _read_site(self, site: str, named: list[str], out: SitemapLinks) -> None:
        s = self.settings
        errors = out.errors
        seen_pages = {u for u, _ in out.urls}
        seen_maps: set[str] = set()
        todo = [(u, 0) for u in named]
        while todo and self.per_site[site] < s.max_per_site:
            url, depth = todo.pop(0)
            if url in seen_maps:
                continue
            seen_maps.add(url)
            if site_of(url) != site:
                errors["off-site"] += 1
                continue
            self.per_site[site] += 1
            doc = await self._fetch(url, errors)
            if doc is None:
                continue
            if doc.error:
                errors[doc.error] += 1
                log.info("sitemap %s refused: %s", url, doc.error)
                continue
            out.read += 1
            if doc.cut:
                errors["cut"] += doc.cut
            for raw in doc.urls:
                u = canonicalize(raw)
                if u is None or site_of(u) != site:
                    errors["off-site"] += 1
                elif doc.kind == "index":
                    if depth < s.max_depth:
                        todo.append((u, depth + 1))
                    else:
                        errors["depth"] += 1
                elif u not in seen_pages:
                    seen_pages.add(u)
                    out.urls.append((u, url))
        if todo:
            errors["per-site"] += len(todo)

    async def _fetch(self, url: str, errors: Counter[str]) -> SitemapDoc | None:
        """One sitemap fetched and parsed; None (counted by its error kind) if the fetch
        failed."""
        s = self.settings
        result = await self.fetcher.fetch_document(url, max_bytes=s.max_bytes,
                                                   content_types=SITEMAP_TYPES)  # fmt: skip
        if result.error:
            errors[f"fetch-{result.error}"] += 1
            log.info("sitemap %s not fetched: %s %s", url, result.error, result.message)
            return None
        if len(result.body) >= _THREAD_BYTES:
            return await asyncio.to_thread(parse_sitemap, result.body, max_bytes=s.max_bytes,
                                           max_urls=s.max_urls)  # fmt: skip
        return parse_sitemap(result.body, max_bytes=s.max_bytes, max_urls=s.max_urls)
