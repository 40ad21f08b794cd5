"""Multi-hop parts of database sites: a chain of properties or branches with one form
each, a booking flow, and a calendar that never ends (see ``dbparts``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from formhunter.worlds.bazaar import widgets as wg
from formhunter.worlds.bazaar.dbparts import _SUBS, chain_cities, ext_path, query_terms
from formhunter.worlds.bazaar.lexicon import hotel_name, person, slugify
from formhunter.worlds.bazaar.model import FormSpec, Key, Link, Page, mk, stable_int
from formhunter.worlds.bazaar.site import Params, Part, slug
from formhunter.worlds.bazaar.vocab import DOMAIN_SLUGS, SLUGS, dom, ui

if TYPE_CHECKING:
    from formhunter.worlds.bazaar.site import SiteView

_AVAIL = {
    "hotel": "availability",
    "rental": "booking",
    "auto": "inventory",
    "movie": "showtimes",
    "job": "vacancies",
}
_BRANCH_WORD = {
    "hotel": "Hotel",
    "rental": "Station",
    "auto": "Autohaus",
    "movie": "Cinema",
    "job": "Office",
}


@dataclass(frozen=True)
class Property:
    pid: int
    name: str
    slug: str
    city: int  # index into the chain's cities


class ChainPart(Part):
    """A chain (hotels, car-hire stations, dealer branches, cinemas): destinations ->
    city -> property (and its sub-pages) -> the property's own form page."""

    pid = "h"

    def __init__(self, model: SiteView) -> None:
        super().__init__(model)
        p = self.plan
        self.style = model.scheme.style
        d = p.domain
        self.dest = slug(p, SLUGS, "destinations" if d == "hotel" else "branches")
        self.cities = chain_cities(model)
        rng = self.rng("props")
        n = 6 + p.size // 25
        props: list[Property] = []
        for i in range(n):
            ci = i % len(self.cities)
            city = self.cities[ci][0]
            if d == "hotel":
                name = hotel_name(rng, city)
            else:
                quarter = ("Nord", "Süd", "Centre", "Airport", "Est", "West")[
                    i // len(self.cities) % 6
                ]
                name = f"{p.brand} {city} {quarter}"
            sl = slugify(name) or f"{_BRANCH_WORD[d].lower()}-{i}"
            if any(q.slug == sl for q in props):
                sl = f"{sl}-{i}"
            props.append(Property(i, name, sl, ci))
        self.props = props
        self.avail = _AVAIL[d]
        self.central_path = ext_path(self.style, f"/{self.dest}/{slug(p, SLUGS, 'search')}")

    def _base(self, pr: Property) -> str:
        return f"/{self.dest}/{self.cities[pr.city][1]}/{pr.slug}"

    def prop_path(self, pr: Property) -> str:
        return ext_path(self.style, self._base(pr))

    def avail_path(self, pr: Property) -> str:
        return ext_path(self.style, f"{self._base(pr)}/{self.avail}")

    @cached_property
    def _by_avail(self) -> dict[str, Property]:
        return {self.avail_path(pr): pr for pr in self.props}

    def keys(self) -> Iterable[Key]:
        yield ("dest",)
        for ci in range(len(self.cities)):
            yield ("city", ci)
        for pr in self.props:
            yield ("prop", pr.pid)
            yield ("avail", pr.pid)
            for s in _SUBS[self.plan.domain]:
                yield ("sub", pr.pid, s)

    def url(self, key: Key) -> str:
        k = key[0]
        if k == "dest":
            return self.plan.url(ext_path(self.style, f"/{self.dest}"))
        if k == "city":
            return self.plan.url(
                ext_path(self.style, f"/{self.dest}/{self.cities[int(key[1])][1]}")
            )
        pr = self.props[int(key[1])]
        if k == "prop":
            return self.plan.url(self.prop_path(pr))
        if k == "avail":
            return self.plan.url(self.avail_path(pr))
        return self.plan.url(ext_path(self.style, f"{self._base(pr)}/{key[2]}"))

    def local_form(self, pr: Property) -> FormSpec:
        # one template for the whole chain: only the action differs
        return wg.local_form(
            self.rng("local"),
            self.plan,
            self.plan.domain,
            self.avail_path(pr),
            heading=f"{ui('availability', self.lang)}: {pr.name}",
        )

    @cached_property
    def central_form(self) -> FormSpec:
        return wg.search_form(
            self.rng("central"), self.plan, self.plan.domain, self.central_path, extra=1
        )

    def page(self, key: Key) -> Page:
        k = key[0]
        d, lang, brand = self.plan.domain, self.lang, self.plan.brand
        url = self.url(key)
        dm = self.m.domains
        rng = self.rng(*key)
        if k == "dest":
            pg = self.new_page(
                url,
                "destinations",
                f"{ui('destinations' if d == 'hotel' else 'branches', lang)} | {brand}",
                dm,
            )
            for ci, (name, _) in enumerate(self.cities):
                pg.links.append((self.url(("city", ci)), name))
            pg.paragraphs.append(self.m.text(rng, 2))
            return pg
        if k == "city":
            ci = int(key[1])
            city = self.cities[ci][0]
            pg = self.new_page(url, "city", f"{dom(d, 'section', lang)} {city} | {brand}", dm)
            for pr in self.props:
                if pr.city == ci:
                    pg.links.append((self.url(("prop", pr.pid)), pr.name))
            pg.paragraphs.append(self.m.text(rng, 3, city))
            return pg
        pr = self.props[int(key[1])]
        if k == "avail":
            pg = self.new_page(url, "availability", f"{ui('availability', lang)} - {pr.name}", dm)
            pg.forms.append(self.local_form(pr))
            pg.links.append((self.url(("prop", pr.pid)), pr.name))
            return pg
        if k == "sub":
            pg = self.new_page(url, "property-detail", f"{pr.name} - {key[2]} | {brand}", dm)
            pg.paragraphs.append(self.m.text(rng, 3))
            pg.links += [
                (self.url(("prop", pr.pid)), pr.name),
                (self.url(("avail", pr.pid)), ui("book_now", lang)),
            ]
            return pg
        pg = self.new_page(url, "property", f"{pr.name} | {brand}", dm)
        pg.paragraphs.append(self.m.text(rng, 3, self.cities[pr.city][0]))
        pg.links.append((self.url(("avail", pr.pid)), ui("availability", lang)))
        for s in _SUBS[d]:
            pg.links.append((self.url(("sub", pr.pid, s)), s.replace("-", " ").title()))
        pg.links.append((self.url(("city", pr.city)), self.cities[pr.city][0]))
        if "nearmiss" in self.plan.flags:
            pg.forms.append(
                wg.near_miss(
                    self.rng("nm"), self.plan, d, ext_path(self.style, f"{self._base(pr)}/enquiry")
                )
            )
        if d == "auto":
            pg.table = [[person(rng), ui("contact", lang)]]
        return pg

    def extra(self, path: str, params: Params) -> Page | None:
        pr = self._by_avail.get(path)
        lang, d = self.lang, self.plan.domain
        if pr is not None and params:
            url = mk(self.plan.host, path, params)
            bad = any(
                c.isalpha()
                for k, v in params.items()
                if "date" in k.lower()
                or k.lower().endswith(
                    ("in", "out", "arrival", "departure", "from", "to", "start", "end")
                )
                for c in v
            )
            pg = self.new_page(
                url, "results", f"{pr.name}: {ui('availability', lang)}", self.m.domains
            )
            pg.forms.append(self.local_form(pr))
            h = stable_int(pr.slug, sorted(params.items()))
            if bad or h % 7 == 0:
                pg.paragraphs.append(ui("no_results", lang))
            else:
                for i in range(1 + h % 5):
                    pg.table.append(
                        [f"{dom(d, 'section', lang)} {i + 1}", f"{40 + (h >> (i * 4)) % 300} EUR"]
                    )
            return pg
        if path == self.central_path and params and "central" in self.plan.flags:
            terms = query_terms(params)
            hits = [
                pr
                for pr in self.props
                if all(t in f"{pr.name} {self.cities[pr.city][0]}".lower() for t in terms)
            ]
            pg = self.new_page(
                mk(self.plan.host, path, params),
                "results",
                f"{len(hits)} {ui('results', lang)} | {self.plan.brand}",
                self.m.domains,
            )
            pg.forms.append(self.central_form)
            if not hits:
                pg.paragraphs.append(ui("no_results", lang))
            for pr in hits[:20]:
                pg.links.append((self.url(("prop", pr.pid)), pr.name))
            return pg
        return None

    def nav(self) -> list[Link]:
        word = "destinations" if self.plan.domain == "hotel" else "branches"
        return [(self.url(("dest",)), ui(word, self.lang))]

    def home(self, page: Page) -> None:
        if "central" in self.plan.flags:
            page.forms.append(self.central_form)
        for pr in self.props[:4]:
            page.links.append((self.url(("prop", pr.pid)), pr.name))

    def landing(self) -> list[Link]:
        return [(self.url(("dest",)), dom(self.plan.domain, "noun2", self.lang))] + [
            (self.url(("prop", pr.pid)), pr.name) for pr in self.props[1:3]
        ]

    def corpus(self) -> list[Link]:
        return [(self.url(("prop", pr.pid)), pr.name) for pr in self.props]


class BookingPart(Part):
    """A booking flow: home -> booking hub -> the product's step (its form)."""

    pid = "b"

    def __init__(self, model: SiteView) -> None:
        super().__init__(model)
        self.style = model.scheme.style
        d = self.plan.domain
        self.hub = ext_path(
            self.style, "/" + ("booking", "reservations", "book")[self.plan.idx % 3]
        )
        self.step = ext_path(
            self.style,
            f"/{('booking', 'reservations', 'book')[self.plan.idx % 3]}/"
            f"{slug(self.plan, DOMAIN_SLUGS, d)}",
        )

    @cached_property
    def form(self) -> FormSpec:
        method = "POST" if "post-search" in self.plan.flags else "GET"
        return wg.search_form(
            self.rng("form"), self.plan, self.plan.domain, self.step, method=method, extra=3
        )

    def keys(self) -> Iterable[Key]:
        yield ("hub",)
        yield ("step",)

    def url(self, key: Key) -> str:
        return self.plan.url(self.hub if key[0] == "hub" else self.step)

    def page(self, key: Key) -> Page:
        lang, d = self.lang, self.plan.domain
        rng = self.rng(key[0])
        if key[0] == "hub":
            pg = self.new_page(
                self.url(key),
                "booking",
                f"{ui('book_now', lang)} | {self.plan.brand}",
                self.m.domains,
            )
            pg.links.append(
                (self.url(("step",)), f"{dom(d, 'section', lang)} - {ui('book_now', lang)}")
            )
            pg.paragraphs.append(self.m.text(rng, 2))
            return pg
        pg = self.new_page(
            self.url(key), "search", f"{dom(d, 'noun2', lang)} | {self.plan.brand}", self.m.domains
        )
        pg.forms.append(self.form)
        pg.paragraphs.append(self.m.text(rng, 1))
        return pg

    def extra(self, path: str, params: Params) -> Page | None:
        if path != self.step or not params or self.form.method != "GET":
            return None
        search = self.m.search
        if search is None:
            return None
        pg = search.results(mk(self.plan.host, path, params), params, 1)
        pg.forms = [self.form]
        return pg

    def nav(self) -> list[Link]:
        return [(self.url(("hub",)), ui("book_now", self.lang))]


class CalendarPart(Part):
    """Months with next/previous links, forever; the truth lists WINDOW months."""

    pid = "cal"
    BASE = (2026, 1)
    WINDOW = 18

    def __init__(self, model: SiteView) -> None:
        super().__init__(model)
        self.word = slug(self.plan, SLUGS, "calendar")
        self.pretty = model.scheme.style == "pretty"

    @staticmethod
    def _add(y: int, m: int, k: int) -> tuple[int, int]:
        t = y * 12 + (m - 1) + k
        return t // 12, t % 12 + 1

    def keys(self) -> Iterable[Key]:
        for k in range(self.WINDOW):
            yield self._add(*self.BASE, k)

    def url(self, key: Key) -> str:
        y, m = int(key[0]), int(key[1])
        if self.pretty:
            return self.plan.url(f"/{self.word}/{y}/{m:02d}/")
        path, params = self.m.scheme.page(self.word, {"month": f"{y}-{m:02d}"})
        return self.plan.url(path, dict(params))

    def page(self, key: Key) -> Page:
        y, m = int(key[0]), int(key[1])
        lang = self.lang
        url = self.url((y, m))
        pg = self.new_page(
            url,
            "calendar",
            f"{ui('calendar', lang)} {y}-{m:02d} | {self.plan.brand}",
            self.m.domains,
        )
        pg.links.append((self.url(self._add(y, m, -1)), ui("prev_month", lang)))
        pg.links.append((self.url(self._add(y, m, 1)), ui("next_month", lang)))
        rng = self.rng(y, m)
        for link in rng.sample(self.m.landing, min(3, len(self.m.landing))):
            pg.links.append(link)
        pg.table = [[f"{y}-{m:02d}-{d:02d}", ui("events", lang)] for d in range(1, 29, 7)]
        return pg

    def extra(self, path: str, params: Params) -> Page | None:
        ym: tuple[int, int] | None = None
        try:
            if self.pretty and path.startswith(f"/{self.word}/"):
                parts = path.strip("/").split("/")
                if len(parts) == 3:
                    ym = (int(parts[1]), int(parts[2]))
            elif "month" in params:
                probe, pp = self.m.scheme.page(self.word)
                if path == probe and all(params.get(k) == v for k, v in pp.items()):
                    y, m = params["month"].split("-")
                    ym = (int(y), int(m))
        except ValueError:
            return None
        if ym is None or not (1900 <= ym[0] <= 2200 and 1 <= ym[1] <= 12):
            return None
        return self.page(ym)

    def nav(self) -> list[Link]:
        return [(self.url(self.BASE), ui("calendar", self.lang))]

    def robots(self) -> list[str]:
        return [f"/{self.word}/"] if "robots-facets" in self.plan.flags and self.pretty else []
