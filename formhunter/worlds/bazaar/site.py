"""One site of the bazaar world: its URL scheme, its parts, and the pages they make.

A site is a list of *parts* (``Part``): the core pages every site has (home, about,
contact, legal, sitemap, login, old URLs that redirect, dead links) and the parts
its kind brings (a search, a catalogue with facets, a chain of properties, a
calendar, a blog, a forum, a directory...). A part enumerates the keys of its
pages (the truth), maps a key to its canonical URL and builds the ``Page``;
``extra`` answers the URLs outside the truth (search results for any query,
calendar months beyond the listed window). ``sitemodel.SiteModel`` puts nav,
footer, header forms, robots.txt and slowness around every page.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from formhunter.worlds.bazaar import widgets as wg
from formhunter.worlds.bazaar.model import Key, Link, Page, SitePlan, stable_int
from formhunter.worlds.bazaar.vocab import SLUGS, ui

if TYPE_CHECKING:
    from formhunter.worlds.bazaar.items import Item

Params = dict[str, str]


# What a part reads of its site and of the world: protocols that ``sitemodel.SiteModel``
# and ``world.Bazaar`` implement. Those import the parts; the parts annotate with these,
# so no import cycle closes, type-only imports included (tests/architecture).


class WorldView(Protocol):
    """The bazaar world as its sites see it (``world.Bazaar``)."""

    @property
    def seed(self) -> int: ...

    @property
    def slow_delay(self) -> float: ...

    @property
    def plans(self) -> list[SitePlan]: ...

    @property
    def categories(self) -> dict[str, list[SitePlan]]:
        """Directory categories: each domain's sites, each off-topic subject's."""
        ...

    def landing(self, plan: SitePlan) -> list[Link]:
        """The pages a link to ``plan``'s site may land on."""
        ...

    def text(self, rng: random.Random, lang: str, subject: str, n: int, city: str = "") -> str:
        """``n`` sentences about ``subject`` in ``lang``."""
        ...


class Searcher(Protocol):
    """A site's database search as other parts use it (``dbparts.SearchPart``)."""

    def url(self, key: Key) -> str: ...

    def results(self, url: str, params: Params, p: int) -> Page: ...


class SiteView(Protocol):
    """A site as its parts see it (``sitemodel.SiteModel``)."""

    @property
    def world(self) -> WorldView: ...

    @property
    def plan(self) -> SitePlan: ...

    @property
    def scheme(self) -> Scheme: ...

    @property
    def parts(self) -> list[Part]: ...

    @property
    def items(self) -> list[Item]: ...

    @property
    def item_by_id(self) -> dict[int, Item]: ...

    @property
    def search(self) -> Searcher | None: ...

    @property
    def domains(self) -> tuple[str, ...]: ...

    @property
    def landing(self) -> list[Link]: ...

    def item_link(self, it: Item) -> Link | None: ...

    def text(self, rng: random.Random, n: int = 3, city: str = "", subject: str = "") -> str: ...


class Scheme:
    """How a site spells its URLs: ``page(slug)`` and ``item(section, id, name)`` give
    (path, params). Styles: pretty (/hotels/), html (/hotels.html), php
    (/index.php?page=hotels), numeric (/p/123), java (/portal/hotels.do;jsessionid=),
    asp (/Hotels.aspx), wp (/?page_id=12, /?p=123)."""

    def __init__(self, style: str) -> None:
        self.style = style

    def page(self, slug: str, params: Params | None = None) -> tuple[str, Params]:
        p = dict(params or {})
        s = self.style
        if s == "html":
            return f"/{slug}.html", p
        if s == "php":
            p["page"] = slug
            return "/index.php", p
        if s == "java":
            return f"/portal/{slug}.do", p
        if s == "asp":
            return "/" + "".join(w.capitalize() for w in slug.split("-")) + ".aspx", p
        if s == "wp":
            p["page_id"] = str(stable_int(slug) % 9000 + 2)
            return "/", p
        if s == "numeric":
            return f"/{slug}", p
        return f"/{slug}/", p

    def item(self, section: str, iid: int, name: str = "") -> tuple[str, Params]:
        s = self.style
        tail = f"-{name}" if name else ""
        if s == "html":
            return f"/{section}/{iid}{tail}.html", {}
        if s == "php":
            return "/index.php", {"id": str(iid), "page": section}
        if s == "java":
            return f"/portal/{section}.do", {"id": str(iid)}
        if s == "asp":
            return f"/{section.capitalize()}/Detail.aspx", {"ID": str(iid)}
        if s == "wp":
            return "/", {"p": str(iid)}
        if s == "numeric":
            return f"/{section[:1]}/{iid}", {}
        return f"/{section}/{name or iid}-{iid}/" if name else f"/{section}/{iid}/", {}


class Part:
    """A family of pages of one site (module doc)."""

    pid = ""

    def __init__(self, model: SiteView) -> None:
        self.m = model
        self.plan = model.plan
        self.lang = model.plan.lang

    def keys(self) -> Iterable[Key]:
        return ()

    def url(self, key: Key) -> str:
        raise NotImplementedError

    def page(self, key: Key) -> Page:
        raise NotImplementedError

    def extra(self, path: str, params: Params) -> Page | None:
        return None

    def nav(self) -> list[Link]:
        return []

    def home(self, page: Page) -> None:
        """Add what this part shows on the home page."""

    def landing(self) -> list[Link]:
        """Deep links other sites may point at."""
        return []

    def corpus(self) -> list[Link]:
        """(url, text) pairs the site search finds."""
        return []

    def robots(self) -> list[str]:
        """Disallow rules this part asks for in robots.txt."""
        return []

    def header(self) -> list[wg.FormSpec]:
        """Forms this part puts in the header of every page."""
        return []

    def seeds(self, domain: str) -> list[str]:
        """Topical pages of ``domain`` fit to start a crawl from (never a form page)."""
        return []

    # helpers
    def rng(self, *key: object) -> random.Random:
        return self.plan.rng(self.m.world.seed, self.pid, *key)

    def at(self, slug: str, params: Params | None = None) -> str:
        path, p = self.m.scheme.page(slug, params)
        return self.plan.url(path, dict(p))

    def new_page(self, url: str, kind: str, title: str, domains: tuple[str, ...] = ()) -> Page:
        return Page(url, self.plan, kind, title, heading=title, domains=domains)


def slug(plan: SitePlan, table: dict[str, dict[str, list[str]]], concept: str) -> str:
    """The site's own choice among the slugs of ``concept`` in its language."""
    words = table[concept][plan.lang]
    return words[stable_int(plan.idx, concept, "slug") % len(words)]


class CorePart(Part):
    """Home, about, contact, legal, privacy, sitemap, login; old URLs; dead links."""

    pid = "c"
    _PAGES = ("about", "contact", "privacy", "legal", "sitemap", "login")

    def keys(self) -> Iterable[Key]:
        yield ("home",)
        for p in self._PAGES:
            yield (p,)
        if "legacy" in self.plan.flags:
            for i in range(3):
                yield ("legacy", i)
        if "dead" in self.plan.flags:
            for i in range(2):
                yield ("dead", i)

    def url(self, key: Key) -> str:
        k = key[0]
        if k == "home":
            return self.plan.url("/")
        if k == "legacy":
            return self.plan.url(("/index.html", "/default.asp", "/home.php")[int(key[1])])
        if k == "dead":
            return self.plan.url(f"/old/{('angebote', 'promo', 'spring-sale')[int(key[1])]}.htm")
        if k in ("about", "contact"):
            return self.at(slug(self.plan, SLUGS, str(k)))
        if k == "login":
            return self.plan.url("/account/login")
        return self.at(str(k))

    def page(self, key: Key) -> Page:
        k = str(key[0])
        plan, lang = self.plan, self.lang
        url = self.url(key)
        if k == "legacy":
            pg = self.new_page(url, "redirect", "Moved")
            pg.status, pg.redirect_to = 301, self.url(("home",))
            return pg
        if k == "dead":
            pg = self.new_page(url, "not-found", "404 Not Found")
            pg.status = 404
            return pg
        rng = self.rng(k)
        dom = self.m.domains
        if k == "home":
            pg = self.new_page(url, "home", f"{plan.brand} - {ui('welcome', lang)}", dom)
            pg.paragraphs.append(self.m.text(rng, 3))
            for part in self.m.parts:
                if part is not self:
                    part.home(pg)
            return pg
        title = {
            "about": ui("about", lang),
            "contact": ui("contact", lang),
            "privacy": ui("privacy", lang),
            "legal": ui("legal", lang),
            "sitemap": ui("sitemap", lang),
            "login": ui("login", lang),
        }[k]
        pg = self.new_page(url, k, f"{title} | {plan.brand}", dom if k == "about" else ())
        pg.paragraphs.append(self.m.text(rng, 2 if k != "about" else 5))
        if k == "contact":
            pg.forms.append(wg.contact_form(plan, plan.url("/contact/send")))
        elif k == "login":
            pg.forms.append(wg.login_form(plan, plan.url("/account/login")))
        elif k == "sitemap":
            for part in self.m.parts:
                pg.links.extend(part.nav())
                pg.links.extend(part.landing()[:6])
        return pg

    def extra(self, path: str, params: Params) -> Page | None:
        if path in ("/contact/send", "/newsletter/subscribe"):  # a POST target opened by GET
            pg = self.new_page(self.plan.url(path), "form-target", ui("contact", self.lang))
            pg.paragraphs.append(ui("send", self.lang) + "?")
            return pg
        return None

    def landing(self) -> list[Link]:
        out = [(self.url(("home",)), self.plan.brand)]
        if "legacy" in self.plan.flags:
            out.append((self.url(("legacy", 0)), self.plan.brand))
        if "dead" in self.plan.flags:
            out.append((self.url(("dead", 0)), self.plan.brand))
        return out

    def corpus(self) -> list[Link]:
        return [(self.url((p,)), ui(p, self.lang)) for p in ("about", "contact")]
