"""Simulated webs ("worlds") behind one interface, chosen by name.

A *world* is a deterministic web with ground truth, built lazily from
``(seed, n_sites)``: the same seed gives byte-identical pages in any process.
The benchmark, the proxy and the ``simweb`` commands use only the ``World``
protocol below, so they run on any family:

- ``simweb``: the project's own simulated web (``formhunter.simweb``), unchanged;
- ``bazaar``: an independently designed second family (``formhunter.worlds.bazaar``):
  other vocabularies, languages, templates, URL schemes and site structures.

    world = open_world("bazaar", seed=3, n_sites=500)
    world.fetch("http://www.example-hotels.test/")   # SimResponse: status, headers, body, ...
    world.seeds("hotel", 10)                         # topical seed pages, never a form page
    for page, links, forms in world.truth_rows(): ...  # rows of TruthGraph.from_rows

Truth rows: page rows (url, site, host, site_kind, site_domain, page_kind, domains,
on_topic, status, redirect_to, robots_allowed), link rows (src_url, dst_url, anchor),
form rows (page_url, site, form_index, signature, action, method, searchable,
domain, relevant_domains, js_only, answers_queries). URLs are canonical
(``formhunter.urls.canonicalize``); ``site`` is ``classifiers.sites.site_of(host)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from formhunter.exceptions import UsageError
from formhunter.simweb import SimResponse, SimWeb

__all__ = ["WORLDS", "SimWebWorld", "World", "as_world", "open_world"]

Row = dict[str, Any]
#: Known world names (``open_world``); the first is the default everywhere.
WORLDS: tuple[str, ...] = ("simweb", "bazaar")
#: Version of the truth graph's cache format (``bench.oracle``), part of simweb's source hash.
TRUTH_FORMAT = 1


@runtime_checkable
class World(Protocol):
    """A simulated web with ground truth (module doc)."""

    name: str
    seed: int
    n_sites: int

    def fetch(self, url: str) -> SimResponse:
        """What a GET of ``url`` returns (robots.txt is served per host)."""
        ...

    def seeds(self, domain: str, n: int) -> list[str]:
        """``n`` topical seed URLs of ``domain`` (directory categories, portals, articles)."""
        ...

    def truth_rows(self) -> Iterator[tuple[Row, list[Row], list[Row]]]:
        """(page row, link rows, form rows) for every page of the truth."""
        ...

    def source_hash(self) -> str:
        """A short hash of the generator's sources (a key of cached truth graphs)."""
        ...

    def describe(self) -> str:
        """One line for people: family, seed, size."""
        ...


class SimWebWorld:
    """The ``simweb`` family as a ``World`` (its generator is untouched)."""

    name = "simweb"

    def __init__(self, seed: int = 7, n_sites: int = 500, slow_delay: float = 2.0,
                 page_kb: int = 0, web: SimWeb | None = None) -> None:  # fmt: skip
        """A new SimWeb of these settings, or ``web`` itself when given."""
        self.web = web or SimWeb(seed=seed, n_sites=n_sites, slow_delay=slow_delay, page_kb=page_kb)
        self.seed = self.web.seed
        self.n_sites = self.web.n_sites

    def fetch(self, url: str) -> SimResponse:
        return self.web.fetch(url)

    def seeds(self, domain: str, n: int = 20) -> list[str]:
        return self.web.seeds(domain, n)

    def truth_rows(self) -> Iterator[tuple[Row, list[Row], list[Row]]]:
        return self.web.truth().rows()

    def source_hash(self) -> str:
        import formhunter.simweb as sw

        h = hashlib.sha256(str(TRUTH_FORMAT).encode())
        for p in sorted(Path(sw.__file__).parent.glob("*.py")):
            h.update(p.name.encode())
            h.update(p.read_bytes())
        return h.hexdigest()[:12]

    def describe(self) -> str:
        kb = f", pages padded to about {self.web.page_kb} KB" if self.web.page_kb else ""
        return f"{len(self.web.sites)} sites, seed {self.seed}{kb}"


def as_world(web: SimWeb | World) -> World:
    """``web`` as a ``World``: a bare ``SimWeb`` gets the adapter, a world is itself."""
    return SimWebWorld(web=web) if isinstance(web, SimWeb) else web


def open_world(name: str, seed: int, n_sites: int | None = None, *, slow_delay: float = 2.0,
               page_kb: int = 0) -> World:  # fmt: skip
    """The world ``name`` for ``seed`` with ``n_sites`` sites (None: the family's default).

    ``slow_delay``: seconds the slow pages wait; ``page_kb``: simweb's page padding
    (other worlds refuse a non-zero value). UsageError for an unknown name."""
    if name == "simweb":
        return SimWebWorld(seed, 500 if n_sites is None else n_sites, slow_delay, page_kb)
    if name == "bazaar":
        if page_kb:
            raise UsageError("--page-kb is a simweb option; the bazaar world has its own sizes")
        from formhunter.worlds.bazaar import Bazaar

        return Bazaar(seed, n_sites, slow_delay=slow_delay)
    raise UsageError(f"unknown world {name!r} (known: {', '.join(WORLDS)})")
