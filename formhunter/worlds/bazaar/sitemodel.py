"""A site of the bazaar world put together: its parts, and what surrounds every page
(nav, footer, header forms, robots.txt, slowness); see ``site`` for the parts."""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cached_property

from protego import Protego

from formhunter.worlds.bazaar import widgets as wg
from formhunter.worlds.bazaar.dbparts import SearchPart
from formhunter.worlds.bazaar.items import Item
from formhunter.worlds.bazaar.items import items as make_items
from formhunter.worlds.bazaar.model import Key, Link, Page, SitePlan, mk, stable_int
from formhunter.worlds.bazaar.parts import parts_for
from formhunter.worlds.bazaar.plan import URL_STYLES
from formhunter.worlds.bazaar.site import CorePart, Params, Part, Scheme, WorldView
from formhunter.worlds.bazaar.vocab import ui


class SiteModel:
    """A site's parts and pages (module doc)."""

    def __init__(self, world: WorldView, plan: SitePlan) -> None:
        self.world = world
        self.plan = plan
        styles = URL_STYLES[plan.platform]
        self.scheme = Scheme(styles[stable_int(plan.idx, "style") % len(styles)])
        self.parts: list[Part] = [CorePart(self), *parts_for(self)]
        self._by_pid = {p.pid: p for p in self.parts}
        if len(self._by_pid) != len(self.parts):
            raise ValueError(f"parts of {plan.host} share an id")

    @cached_property
    def items(self) -> list[Item]:
        """What a database site holds (none for other sites and chains)."""
        p = self.plan
        if p.kind != "database" or p.archetype == "chain":
            return []
        return make_items(p, self.world.seed, p.size if p.archetype == "catalog" else p.size // 3)

    @cached_property
    def item_by_id(self) -> dict[int, Item]:
        return {it.iid: it for it in self.items}

    def item_link(self, it: Item) -> Link | None:
        part = self._by_pid.get("k")
        return None if part is None else (part.url(("item", it.iid)), it.name)

    @cached_property
    def search(self) -> SearchPart | None:
        part = self._by_pid.get("s")
        return part if isinstance(part, SearchPart) else None

    @cached_property
    def domains(self) -> tuple[str, ...]:
        return (self.plan.domain,) if self.plan.domain else ()

    def text(self, rng: random.Random, n: int = 3, city: str = "", subject: str = "") -> str:
        """``n`` sentences about ``subject`` (a domain or an off-topic subject; default
        the site's own) in the site's language."""
        return self.world.text(
            rng, self.plan.lang, subject or self.plan.domain or self.plan.topic, n, city
        )

    # -- the truth ----------------------------------------------------------------

    def keys(self) -> Iterator[Key]:
        for part in self.parts:
            for k in part.keys():  # noqa: SIM118 - a Part, not a dict
                yield (part.pid, *k)

    def url(self, key: Key) -> str:
        return self._by_pid[str(key[0])].url(key[1:])

    def page(self, key: Key) -> Page:
        pg = self._by_pid[str(key[0])].page(key[1:])
        self._decorate(pg)
        return pg

    @cached_property
    def index(self) -> dict[str, Key]:
        return {self.url(k): k for k in self.keys()}

    def lookup(self, url: str, path: str, params: Params) -> Page | None:
        """The page at canonical ``url`` (path and params split), or None (404)."""
        key = self.index.get(url)
        if key is not None:
            return self.page(key)
        if path == self.site_search_path and "sitesearch" in self.plan.flags:
            pg = self.site_search_results(params)
            pg.in_truth = False
            self._decorate(pg)
            return pg
        for part in self.parts:
            got = part.extra(path, params)
            if got is not None:
                got.in_truth = False
                self._decorate(got)
                return got
        return None

    # -- around every page ----------------------------------------------------------

    @cached_property
    def nav(self) -> list[Link]:
        out = [(self.url(("c", "home")), ui("home", self.plan.lang))]
        for part in self.parts:
            out.extend(part.nav())
        return out

    @cached_property
    def footer(self) -> list[Link]:
        lang = self.plan.lang
        keys = ["about", "contact", "privacy", "legal"]
        if "jsonly" not in self.plan.flags:
            keys.append("sitemap")
        return [(self.url(("c", k)), ui(k, lang)) for k in keys]

    @cached_property
    def header_forms(self) -> list[wg.FormSpec]:
        out = [f for part in self.parts for f in part.header()]
        if "sitesearch" in self.plan.flags and not out:
            rng = self.plan.rng(self.world.seed, "site-search")
            out.append(wg.site_search(rng, self.plan, self.site_search_path))
        return out

    @cached_property
    def site_search_path(self) -> str:
        word = ("s", "sitesearch", "fulltext", "global-search")[self.plan.idx % 4]
        return f"/{word}" + ("/" if self.scheme.style == "pretty" else ".php")

    def _decorate(self, pg: Page) -> None:
        pg.robots_allowed = self.allowed(pg.url)
        if pg.status != 200:
            return
        pg.nav = list(self.nav)
        pg.footer = list(self.footer)
        main = pg.forms
        pg.forms = [*self.header_forms, *main]
        pg.n_header = len(self.header_forms)
        if "newsletter" in self.plan.flags and pg.kind not in ("login", "contact"):
            pg.forms.append(wg.newsletter_form(self.plan, self.plan.url("/newsletter/subscribe")))
        if "slow" in self.plan.flags and stable_int(pg.url) % 3 == 0:
            pg.delay = self.world.slow_delay

    # -- robots.txt ---------------------------------------------------------------

    @cached_property
    def robots_txt(self) -> str:
        rules: list[str] = []
        f = self.plan.flags
        if "robots-basic" in f:
            rules += ["/account/", "/cart", "/cgi-bin/", "/print/"]
        for part in self.parts:
            rules += part.robots()
        lines = ["User-agent: *", *(f"Disallow: {r}" for r in rules)]
        if not rules:
            lines.append("Disallow:")
        if self.plan.idx % 5 == 0:
            lines += ["", "User-agent: BadBot", "Disallow: /"]
        return "\n".join(lines) + "\n"

    @cached_property
    def _robots(self) -> Protego:
        return Protego.parse(self.robots_txt)

    def allowed(self, url: str) -> bool:
        return bool(self._robots.can_fetch(url, "formhunter"))

    # -- what other sites see ----------------------------------------------------------

    @cached_property
    def landing(self) -> list[Link]:
        out: list[Link] = []
        for part in self.parts:
            out.extend(part.landing())
        return out

    def corpus(self) -> list[Link]:
        out: list[Link] = []
        for part in self.parts:
            out.extend(part.corpus())
        return out

    def site_search_results(self, params: Params) -> Page:
        """What the header's site search answers."""
        q = " ".join(v for k, v in params.items() if k != "page").lower().split()
        hits = [(u, t) for u, t in self.corpus() if all(w in t.lower() for w in q)] if q else []
        url = mk(self.plan.host, self.site_search_path, params)
        pg = Page(
            url,
            self.plan,
            "site-search-results",
            f"{ui('search', self.plan.lang)}: {' '.join(q)} | {self.plan.brand}",
            heading=ui("search", self.plan.lang),
        )
        if hits:
            pg.paragraphs.append(f"{len(hits)} {ui('results', self.plan.lang)}")
            pg.links.extend(hits[:20])
        else:
            pg.paragraphs.append(ui("no_results", self.plan.lang))
        return pg
