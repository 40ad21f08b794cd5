"""Parts of database sites: the search (and its results), the catalogue with facets,
a chain of properties or branches (one form each), a booking flow, a calendar.

Archetypes (``plan.ARCHETYPES``) combine them:
- widget: a compact search on the home page, the full one on a search page;
- deep: home -> section -> search page (the home page has no database form);
- catalog: a faceted catalogue, a keyword search on every page, an advanced search;
- booking: home -> booking -> the product's booking step (the form); a fare calendar;
- chain: home -> destinations/branches -> city -> property -> availability (a form per property);
- jsapp: the search form is written by a script; some have a ``<noscript>`` simple search.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING

from formhunter.worlds.bazaar import widgets as wg
from formhunter.worlds.bazaar.items import FACETS, Item
from formhunter.worlds.bazaar.lexicon import CITIES, CITY_SLUGS, slugify
from formhunter.worlds.bazaar.model import FormSpec, Key, Link, Page, mk, stable_int
from formhunter.worlds.bazaar.site import Params, Part, slug
from formhunter.worlds.bazaar.vocab import DOMAIN_SLUGS, SLUGS, dom, ui

PER_PAGE = 20
RESULTS_PER_PAGE = 10
_EXT = {
    "pretty": "/",
    "html": ".html",
    "php": ".php",
    "numeric": "",
    "java": ".do",
    "asp": ".aspx",
    "wp": "/",
}
#: parameters that never carry a query term
_NOISE = frozenset(
    {
        "page",
        "sort",
        "submit",
        "utf8",
        "__viewstate",
        "__eventvalidation",
        "javax.faces.viewstate",
        "id",
        "p",
    }
)

if TYPE_CHECKING:
    from formhunter.worlds.bazaar.site import SiteView
_NOISE_VALUES = frozenset({"", "rt", "ow", "any", "all"})


def query_terms(params: Params) -> list[str]:
    """The words of a submission that select items: text values, not numbers or dates."""
    out: list[str] = []
    for k, v in params.items():
        if k.lower() in _NOISE or k.lower().endswith(("_d", "_m", "_y")):
            continue
        for w in v.lower().replace(",", " ").split():
            if w in _NOISE_VALUES or not any(c.isalpha() for c in w):
                continue
            out.append(w)
    return out


def ext_path(style: str, base: str) -> str:
    """``base`` (a directory-like path) spelled in the site's URL style."""
    e = _EXT.get(style, "/")
    if style == "asp":
        return "/".join(p.capitalize() for p in base.split("/")) + e
    if style == "java":
        return "/portal" + base + e
    return base + e


class SearchPart(Part):
    """The site's database search: a search page (the form), maybe an advanced search,
    popular searches (linked result pages) and the results of any query."""

    pid = "s"

    def __init__(self, model: SiteView, with_advanced: bool = True) -> None:
        super().__init__(model)
        p = self.plan
        self.arch = p.archetype
        self.style = model.scheme.style
        self.word = slug(p, SLUGS, "search")
        self.action = ext_path(self.style, f"/{self.word}")
        self.adv_path = ext_path(self.style, f"/{slug(p, SLUGS, 'advanced')}")
        self.simple_path = ext_path(self.style, f"/{self.word}-simple")
        self.with_advanced = with_advanced and self.arch in ("catalog", "widget", "deep")
        self.noscript = self.arch == "jsapp" and stable_int(p.idx, "noscript") % 2 == 0

    @cached_property
    def form(self) -> FormSpec:
        rng = self.rng("form")
        method = "POST" if "post-search" in self.plan.flags else "GET"
        return wg.search_form(
            rng,
            self.plan,
            self.plan.domain,
            self.action,
            method=method,
            js_only=self.arch == "jsapp",
            heading=dom(self.plan.domain, "section", self.lang),
        )

    @cached_property
    def adv_form(self) -> FormSpec:
        return wg.search_form(
            self.rng("adv"),
            self.plan,
            self.plan.domain,
            self.action,
            extra=5,
            heading=ui("advanced", self.lang),
        )

    @cached_property
    def compact_form(self) -> FormSpec:
        d = self.plan.domain
        core = wg._CORE[d]
        return wg.search_form(
            self.rng("compact"),
            self.plan,
            d,
            self.action,
            fields=core[:1] if self.arch == "catalog" else core,
        )

    @cached_property
    def popular(self) -> list[Params]:
        """Query parameters of the linked "popular searches"."""
        items = self.m.items
        if not items or self.form.method != "GET":
            return []
        rng = self.rng("popular")
        d = self.plan.domain
        first = wg._CORE[d][0]
        name = wg.field_name(self.plan, d, first, _variant(self.form))
        out = []
        for it in rng.sample(items, min(4, len(items))):
            word = it.city if d in ("hotel", "rental", "job", "airfare") else it.name.split()[-1]
            if d == "auto":
                word = dict(it.attrs)["make"].lower()
            q = {name: slugify(word) or word}
            if q not in out:
                out.append(q)
        return out

    def keys(self) -> Iterable[Key]:
        yield ("search",)
        if self.with_advanced:
            yield ("adv",)
        if self.noscript:
            yield ("simple",)
        for i, params in enumerate(self.popular):
            for p in range(1, 1 + min(3, self._pages(params))):
                yield ("pop", i, p)

    def _pages(self, params: Params) -> int:
        n = len(self._matches(params))
        return max(1, -(-n // RESULTS_PER_PAGE))

    def url(self, key: Key) -> str:
        k = key[0]
        if k == "search":
            return self.plan.url(self.action)
        if k == "adv":
            return self.plan.url(self.adv_path)
        if k == "simple":
            return self.plan.url(self.simple_path)
        params = dict(self.popular[int(key[1])])
        if int(key[2]) > 1:
            params["page"] = str(key[2])
        return self.plan.url(self.action, dict(params))

    def page(self, key: Key) -> Page:
        k = key[0]
        d, lang = self.plan.domain, self.lang
        url = self.url(key)
        if k == "pop":
            params = dict(self.popular[int(key[1])])
            return self.results(url, params, int(key[2]))
        rng = self.rng(k)
        if k == "adv":
            pg = self.new_page(
                url,
                "advanced-search",
                f"{ui('advanced', lang)} | {self.plan.brand}",
                self.m.domains,
            )
            pg.forms.append(self.adv_form)
        elif k == "simple":
            pg = self.new_page(
                url, "search", f"{ui('search', lang)} | {self.plan.brand}", self.m.domains
            )
            pg.forms.append(wg.search_form(rng, self.plan, d, self.action, extra=0))
        else:
            pg = self.new_page(
                url,
                "search",
                f"{dom(d, 'section', lang)} - {ui('search', lang)} | {self.plan.brand}",
                self.m.domains,
            )
            pg.forms.append(self.form)
            if self.with_advanced:
                pg.links.append((self.url(("adv",)), ui("advanced", lang)))
            if self.noscript:
                pg.links.append((self.url(("simple",)), f"{ui('search', lang)} (HTML)"))
            for i, params in enumerate(self.popular):
                pg.links.append((self.url(("pop", i, 1)), " ".join(params.values()).title()))
        pg.paragraphs.append(self.m.text(rng, 2))
        return pg

    def extra(self, path: str, params: Params) -> Page | None:
        if path != self.action or not params:
            return None
        try:
            p = max(1, int(params.get("page", "1")))
        except ValueError:
            p = 1
        return self.results(mk(self.plan.host, path, params), params, p)

    def _matches(self, params: Params) -> list[Item]:
        terms = query_terms(params)
        return [it for it in self.m.items if all(t in it.text for t in terms)]

    def results(self, url: str, params: Params, p: int) -> Page:
        """The answer to a query: matching items, RESULTS_PER_PAGE a page."""
        lang, d = self.lang, self.plan.domain
        hits = self._matches(params)
        pg = self.new_page(
            url,
            "results",
            f"{dom(d, 'section', lang)}: {len(hits)} {ui('results', lang)} | {self.plan.brand}",
            self.m.domains,
        )
        pg.forms.append(self.form if not self.form.js_only else self.compact_form)
        if not hits:
            pg.paragraphs.append(ui("no_results", lang))
            return pg
        pg.paragraphs.append(f"{len(hits)} {ui('results', lang)}")
        chunk = hits[(p - 1) * RESULTS_PER_PAGE : p * RESULTS_PER_PAGE]
        for it in chunk:
            pg.table.append([it.name, it.city, *(v for _, v in it.attrs[:3])])
            link = self.m.item_link(it)
            if link is not None:
                pg.links.append(link)
        if p * RESULTS_PER_PAGE < len(hits):
            pg.links.append(
                (mk(self.plan.host, self.action, {**params, "page": str(p + 1)}), ui("next", lang))
            )
        if p > 1:
            prev = {**params, "page": str(p - 1) if p > 2 else ""}
            pg.links.append((mk(self.plan.host, self.action, prev), ui("prev", lang)))
        return pg

    def nav(self) -> list[Link]:
        if self.arch in ("deep", "booking", "chain"):
            return []
        return [(self.url(("search",)), ui("search", self.lang))]

    def home(self, page: Page) -> None:
        if self.arch == "widget":
            page.forms.append(self.compact_form)
        elif self.arch == "jsapp":
            page.links.append((self.url(("search",)), dom(self.plan.domain, "noun2", self.lang)))

    def header(self) -> list[FormSpec]:
        return [self.compact_form] if self.arch == "catalog" else []

    def landing(self) -> list[Link]:
        return [(self.url(("search",)), ui("search", self.lang))] if self.arch == "widget" else []

    def robots(self) -> list[str]:
        return [self.action] if "robots-search" in self.plan.flags else []


def _variant(form: FormSpec) -> int:
    return stable_int(form.html) % 3


class CatalogPart(Part):
    """Item pages and faceted listings (facet1 x facet2 x sort x page)."""

    pid = "k"
    SORTS = ("", "price", "new")

    def __init__(self, model: SiteView) -> None:
        super().__init__(model)
        d = self.plan.domain
        self.section = slug(self.plan, DOMAIN_SLUGS, d)
        (self.f1, self.v1), (self.f2, self.v2) = FACETS[d]
        self.page_param = ("pg", "pn", "offset", "start")[stable_int(self.plan.idx, "pp") % 4]
        self._urls: dict[Key, str] = {}
        self._lists: dict[tuple[str, str], list[Item]] = {}

    def _listed(self, a: str, b: str) -> list[Item]:
        got = self._lists.get((a, b))
        if got is None:
            got = self._lists[(a, b)] = [
                it
                for it in self.m.items
                if (not a or it.facets[0] == a) and (not b or it.facets[1] == b)
            ]
        return got

    def keys(self) -> Iterable[Key]:
        for it in self.m.items:
            yield ("item", it.iid)
        for a in ("", *self.v1):
            for b in ("", *self.v2):
                n = max(1, min(5, -(-len(self._listed(a, b)) // PER_PAGE)))
                for s in self.SORTS:
                    for p in range(1, n + 1):
                        yield ("list", a, b, s, p)

    def url(self, key: Key) -> str:
        got = self._urls.get(key)
        if got is None:
            got = self._urls[key] = self._url(key)
        return got

    def _url(self, key: Key) -> str:
        if key[0] == "item":
            it = self.m.item_by_id[int(key[1])]
            path, params = self.m.scheme.item(self.section, it.iid, it.slug)
            return self.plan.url(path, dict(params))
        _, a, b, s, p = key
        params = {
            self.f1: str(a),
            self.f2: str(b),
            "sort": str(s),
            self.page_param: str(p) if int(p) > 1 else "",
        }
        path, extra = self.m.scheme.page(self.section, params)
        return self.plan.url(path, dict(extra))

    def page(self, key: Key) -> Page:
        lang, d = self.lang, self.plan.domain
        url = self.url(key)
        search = self.m.search
        if key[0] == "item":
            it = self.m.item_by_id[int(key[1])]
            rng = self.rng("item", it.iid)
            pg = self.new_page(url, "item", f"{it.name} | {self.plan.brand}", self.m.domains)
            pg.table = [[k, v] for k, v in it.attrs]
            pg.paragraphs.append(self.m.text(rng, 2))
            pg.links.append((self.url(("list", "", "", "", 1)), dom(d, "section", lang)))
            for other in rng.sample(self.m.items, min(5, len(self.m.items))):
                pg.links.append((self.url(("item", other.iid)), other.name))
            if search is not None:
                pg.links.append((search.url(("search",)), ui("search", lang)))
            if "nearmiss" in self.plan.flags:
                pg.forms.append(wg.near_miss(self.rng("nm"), self.plan, d, "/enquiry"))
            return pg
        _, a, b, s, p = key
        listed = self._listed(str(a), str(b))
        if s == "price":
            listed = sorted(listed, key=lambda it: stable_int(it.iid, "price"))
        elif s == "new":
            listed = list(reversed(listed))
        n = max(1, min(5, -(-len(listed) // PER_PAGE)))
        p = int(p)
        title = dom(d, "section", lang) + (f": {a}" if a else "") + (f", {b}" if b else "")
        pg = self.new_page(url, "listing", f"{title} | {self.plan.brand}", self.m.domains)
        pg.paragraphs.append(self.m.text(self.rng("list", a, b), 1))
        for v in ("", *self.v1):
            pg.links.append((self.url(("list", v, b, s, 1)), v or ui("all", lang)))
        for v in ("", *self.v2):
            pg.links.append((self.url(("list", a, v, s, 1)), v or ui("all", lang)))
        for v, word in zip(self.SORTS, ("", "price", "newest"), strict=True):
            pg.links.append((self.url(("list", a, b, v, 1)), ui(word or "popular", lang)))
        for it in listed[(p - 1) * PER_PAGE : p * PER_PAGE]:
            pg.links.append((self.url(("item", it.iid)), it.name))
        if p < n:
            pg.links.append((self.url(("list", a, b, s, p + 1)), ui("next", lang)))
        if p > 1:
            pg.links.append((self.url(("list", a, b, s, p - 1)), ui("prev", lang)))
        if search is not None and not a and not b and p == 1:
            pg.links.append((search.url(("search",)), ui("advanced", lang)))
        return pg

    def nav(self) -> list[Link]:
        return [(self.url(("list", "", "", "", 1)), dom(self.plan.domain, "section", self.lang))]

    def home(self, page: Page) -> None:
        for it in self.m.items[:6]:
            page.links.append((self.url(("item", it.iid)), it.name))

    def landing(self) -> list[Link]:
        its = self.m.items
        return [(self.url(("list", "", "", "", 1)), dom(self.plan.domain, "noun", self.lang))] + [
            (self.url(("item", it.iid)), it.name) for it in its[3:5]
        ]

    def corpus(self) -> list[Link]:
        return [(self.url(("item", it.iid)), it.name) for it in self.m.items[:200]]

    def robots(self) -> list[str]:
        return ["/*sort="] if "robots-facets" in self.plan.flags else []


def chain_cities(model: SiteView) -> list[tuple[str, str]]:
    """(name, slug) of the cities a chain is in."""
    lang = model.plan.lang
    n = 3 + stable_int(model.plan.idx, "cities") % 5
    pairs = list(zip(CITIES[lang], CITY_SLUGS[lang], strict=True))
    start = stable_int(model.plan.idx, "c0") % len(pairs)
    return [pairs[(start + i) % len(pairs)] for i in range(min(n, len(pairs)))]


_SUBS = {
    "hotel": ("rooms", "gallery", "location"),
    "rental": ("fleet", "opening-hours"),
    "auto": ("new-cars", "service", "team"),
    "movie": ("program", "prices"),
    "job": ("team",),
}
