"""The data of the bazaar world: site plans, pages, forms, and URL helpers.

A page is built as a ``Page`` (structure and labels, no HTML) and rendered by
``render``; the truth rows come from the same ``Page``. URLs inside the world are
built canonical (``formhunter.urls.canonicalize`` leaves them as they are): ASCII,
query parameters sorted, no fragment; session ids are only added when rendering.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

Key = tuple[Any, ...]
Link = tuple[str, str]  # (canonical url, anchor)

DOMAINS: tuple[str, ...] = ("airfare", "auto", "book", "hotel", "job", "movie", "music", "rental")


@dataclass(frozen=True)
class SitePlan:
    """One site: where it lives and what it is. ``kind``: database, directory, portal,
    blog, news, forum, shop, institution. ``archetype`` says how a database site is
    built (widget, deep, chain, catalog, booking, jsapp); ``platform`` its URL and
    field-naming style; ``flags`` its quirks (jsnav, sid, slow, legacy, robots-search,
    post-search, ...)."""

    idx: int
    host: str
    site: str
    brand: str
    kind: str
    domain: str  # the database domain, or a hub's topic domain; "" for none
    topic: str  # off-topic subject of shops and institutions ("" otherwise)
    lang: str
    archetype: str
    platform: str
    size: int
    flags: frozenset[str] = frozenset()

    def rng(self, world_seed: int, *key: object) -> random.Random:
        """A generator of its own for (world, site, key): the same in every process."""
        return random.Random(f"bazaar|{world_seed}|{self.idx}|{'|'.join(map(str, key))}")

    def url(self, path: str, params: Mapping[str, object] | None = None, host: str = "") -> str:
        return mk(host or self.host, path, params)


@dataclass
class FormSpec:
    """One form of a page. ``html`` is the form's markup; a ``js_only`` form is written
    into the page by a script (the static HTML has none of it). ``searchable``: it
    queries a database; ``relevant``: searchable and of ``domain``; ``answers_queries``:
    a GET submission returns results that depend on what was asked."""

    html: str
    kind: str
    searchable: bool
    domain: str = ""
    relevant: bool = False
    js_only: bool = False
    answers_queries: bool = False
    method: str = "GET"
    action: str = ""


@dataclass
class Page:
    """A page before rendering (module doc). Links are canonical; ``nav`` may be
    built by JavaScript (``SitePlan.flags`` "jsnav"), the rest is static."""

    url: str
    plan: SitePlan
    kind: str
    title: str
    heading: str = ""
    domains: tuple[str, ...] = ()
    paragraphs: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    nav: list[Link] = field(default_factory=list)
    footer: list[Link] = field(default_factory=list)
    forms: list[FormSpec] = field(default_factory=list)
    table: list[list[str]] = field(default_factory=list)  # result or listing rows
    status: int = 200
    redirect_to: str | None = None
    delay: float = 0.0
    robots_allowed: bool = True
    in_truth: bool = True
    n_header: int = 0  # forms[:n_header] sit in the header

    def ordered_forms(self) -> list[FormSpec]:
        """Static forms in document order, then the js-only ones (the truth's form_index)."""
        return [f for f in self.forms if not f.js_only] + [f for f in self.forms if f.js_only]

    def all_links(self) -> list[Link]:
        return [*self.nav, *self.links, *self.footer]


def mk(host: str, path: str, params: Mapping[str, object] | None = None) -> str:
    """``http://host/path?sorted-query`` (empty values dropped, as canonicalisation does)."""
    url = f"http://{host}{path}"
    if params:
        pairs = sorted(
            _pair(k, str(v)) for k, v in params.items() if v is not None and str(v) != ""
        )
        if pairs:
            url += "?" + "&".join(pairs)
    return url


@lru_cache(maxsize=1 << 16)
def _pair(k: str, v: str) -> str:
    return urlencode({k: v})


def stable_int(*parts: object) -> int:
    """A stable non-negative integer of ``parts`` (not Python's salted ``hash``)."""
    import hashlib

    h = hashlib.blake2b("|".join(map(str, parts)).encode("utf-8"), digest_size=8)
    return int.from_bytes(h.digest(), "big")
