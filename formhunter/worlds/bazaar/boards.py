"""Parts of forums, shops and institutions (see ``hubparts`` for directories and articles)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING

from formhunter.worlds.bazaar import widgets as wg
from formhunter.worlds.bazaar.hubparts import subject_name
from formhunter.worlds.bazaar.lexicon import CITIES, person, title
from formhunter.worlds.bazaar.model import DOMAINS, Key, Link, Page, mk, stable_int
from formhunter.worlds.bazaar.site import Params, Part
from formhunter.worlds.bazaar.vocab import off, ui

if TYPE_CHECKING:
    from formhunter.worlds.bazaar.site import SiteView


class ForumPart(Part):
    """phpBB-style boards: forums, threads of several pages, a search with options."""

    pid = "f"
    PER_TOPIC_PAGE = 15

    def __init__(self, model: SiteView) -> None:
        super().__init__(model)
        p = self.plan
        self.forums = [
            p.domain or "cooking",
            "sports",
            "city",
            *(d for d in DOMAINS if stable_int(p.idx, d) % 3 == 0),
        ][:7]
        self.n = p.size // 2

    def forum_of(self, t: int) -> int:
        return stable_int(self.plan.idx, "t", t) % len(self.forums)

    def pages_of(self, t: int) -> int:
        return 1 + stable_int(self.plan.idx, "tp", t) % 4

    def keys(self) -> Iterable[Key]:
        yield ("index",)
        for f in range(len(self.forums)):
            k = sum(1 for t in range(self.n) if self.forum_of(t) == f)
            for s in range(0, max(1, k), 25):
                yield ("forum", f, s)
        for t in range(self.n):
            for p in range(self.pages_of(t)):
                yield ("topic", t, p * self.PER_TOPIC_PAGE)
        yield ("search",)

    def url(self, key: Key) -> str:
        k = key[0]
        if k == "index":
            return self.plan.url("/index.php")
        if k == "forum":
            return self.plan.url(
                "/viewforum.php",
                {
                    "f": str(int(key[1]) + 1),
                    "start": str(key[2]) if key[2] else "",
                },
            )
        if k == "topic":
            return self.plan.url(
                "/viewtopic.php",
                {
                    "t": str(int(key[1]) + 10),
                    "start": str(key[2]) if key[2] else "",
                },
            )
        return self.plan.url("/search.php")

    @cached_property
    def search_form(self) -> wg.FormSpec:
        lang = self.lang
        opts = "".join(
            f'<option value="{i + 1}">{subject_name(s, lang)}</option>'
            for i, s in enumerate(self.forums)
        )
        html = (
            f'<form action="/search.php" method="get" id="search">'
            f'<label>{ui("search", lang)} <input type="text" name="keywords"></label>'
            f'<label>{ui("posted", lang)} <input type="text" name="author"></label>'
            f'<select name="fid[]" multiple>{opts}</select>'
            f'<input type="submit" name="submit" value="{ui("search", lang)}"></form>'
        )
        return wg.FormSpec(html, "site-search", True, "", False, False, True, "GET", "/search.php")

    def page(self, key: Key) -> Page:
        lang, k = self.lang, key[0]
        url = self.url(key)
        if k == "index":
            pg = self.new_page(url, "forum-index", f"{ui('forum', lang)} | {self.plan.brand}")
            for f, s in enumerate(self.forums):
                pg.links.append((self.url(("forum", f, 0)), subject_name(s, lang)))
            return pg
        if k == "search":
            pg = self.new_page(url, "search", f"{ui('search', lang)} | {self.plan.brand}")
            pg.forms.append(self.search_form)
            return pg
        if k == "forum":
            f, st = int(key[1]), int(key[2])
            subj = self.forums[f]
            ts = [t for t in range(self.n) if self.forum_of(t) == f]
            pg = self.new_page(
                url,
                "forum",
                f"{subject_name(subj, lang)} - {ui('forum', lang)}",
                (subj,) if subj in DOMAINS else (),
            )
            for t in ts[st : st + 25]:
                pg.links.append((self.url(("topic", t, 0)), title(self.rng("topic", t))))
            if st + 25 < len(ts):
                pg.links.append((self.url(("forum", f, st + 25)), ui("next", lang)))
            return pg
        t, start = int(key[1]), int(key[2])
        subj = self.forums[self.forum_of(t)]
        rng = self.rng("topic", t, start)
        pg = self.new_page(
            url,
            "topic",
            f"{title(self.rng('topic', t))} - {ui('forum', lang)}",
            (subj,) if subj in DOMAINS else (),
        )
        for _ in range(3):
            pg.paragraphs.append(f"{person(rng)}: {self.m.text(rng, 2, subject=subj)}")
        pool = self.m.world.categories.get(subj, [])
        if pool and rng.random() < 0.5:
            sp = rng.choice(pool)
            land = self.m.world.landing(sp)
            pg.links.append(land[rng.randrange(len(land))])
        for p in range(self.pages_of(t)):
            if p * self.PER_TOPIC_PAGE != start:
                pg.links.append((self.url(("topic", t, p * self.PER_TOPIC_PAGE)), str(p + 1)))
        pg.links.append((self.url(("forum", self.forum_of(t), 0)), subject_name(subj, lang)))
        pg.links.append(
            (self.plan.url("/posting.php", {"mode": "reply", "t": str(t + 10)}), ui("reply", lang))
        )
        return pg

    def extra(self, path: str, params: Params) -> Page | None:
        if path == "/posting.php":
            pg = self.new_page(mk(self.plan.host, path, params), "login", ui("login", self.lang))
            pg.forms.append(wg.login_form(self.plan, "/ucp.php"))
            return pg
        if path == "/search.php" and params:
            terms = [v.lower() for k, v in params.items() if k == "keywords" and v]
            pg = self.new_page(
                mk(self.plan.host, path, params), "site-search-results", ui("search", self.lang)
            )
            hits = [
                t
                for t in range(self.n)
                if terms and all(w in title(self.rng("topic", t)).lower() for w in terms)
            ]
            for t in hits[:25]:
                pg.links.append((self.url(("topic", t, 0)), title(self.rng("topic", t))))
            if not hits:
                pg.paragraphs.append(ui("no_results", self.lang))
            return pg
        return None

    def nav(self) -> list[Link]:
        return [
            (self.url(("index",)), ui("forum", self.lang)),
            (self.url(("search",)), ui("search", self.lang)),
        ]

    def landing(self) -> list[Link]:
        return [(self.url(("index",)), ui("forum", self.lang))]

    def robots(self) -> list[str]:
        return ["/posting.php", "/ucp.php"]

    def seeds(self, domain: str) -> list[str]:
        return [self.url(("forum", f, 0)) for f, s in enumerate(self.forums) if s == domain]


class ShopPart(Part):
    """A shop of an off-topic subject: categories, products, a product search (searchable,
    of no database domain) and a cart."""

    pid = "o"

    def __init__(self, model: SiteView) -> None:
        super().__init__(model)
        self.n = self.plan.size
        self.cats = 4 + self.plan.idx % 4
        self.action = "/catalogsearch/result" if self.plan.idx % 2 else "/shop/search"

    def name(self, i: int) -> str:
        rng = self.rng("prod", i)
        noun = off(self.plan.topic, "noun", "en").split(",")[0].split(" and ")[0]
        brand = rng.choice(("Pro", "Eco", "Max", "Mini", "Classic", "Smart"))
        return f"{brand} {noun.title()} {100 + i}"

    def keys(self) -> Iterable[Key]:
        for c in range(self.cats):
            for p in range(1, 1 + -(-self.n // self.cats // 24)):
                yield ("cat", c, p)
        for i in range(self.n):
            yield ("prod", i)
        yield ("cart",)

    def url(self, key: Key) -> str:
        if key[0] == "cat":
            return self.plan.url(
                f"/c/{int(key[1]) + 10}", {"p": str(key[2]) if int(key[2]) > 1 else ""}
            )
        if key[0] == "prod":
            return self.plan.url(f"/p/{5000 + int(key[1]) * 13}")
        return self.plan.url("/cart")

    @cached_property
    def form(self) -> wg.FormSpec:
        lang = self.lang
        opts = "".join(
            f'<option value="{c + 10}">{ui("products", lang)} {c + 1}</option>'
            for c in range(self.cats)
        )
        html = (
            f'<form action="{self.action}" method="get" class="product-search">'
            f'<input type="text" name="q" placeholder="{ui("search", lang)}">'
            f'<select name="cat"><option value="">{ui("all", lang)}</option>{opts}</select>'
            f'<button type="submit">{ui("search", lang)}</button></form>'
        )
        return wg.FormSpec(html, "product-search", True, "", False, False, True, "GET", self.action)

    def page(self, key: Key) -> Page:
        lang = self.lang
        url = self.url(key)
        if key[0] == "cart":
            return self.new_page(url, "cart", ui("cart", lang))
        if key[0] == "prod":
            i = int(key[1])
            pg = self.new_page(url, "product", f"{self.name(i)} | {self.plan.brand}")
            pg.paragraphs.append(self.m.text(self.rng("p", i), 2))
            pg.table = [[ui("price", lang), f"{19 + stable_int(i) % 400},99"]]
            pg.links += [
                (self.url(("cat", i % self.cats, 1)), ui("products", lang)),
                (self.url(("cart",)), ui("cart", lang)),
            ]
            pg.forms.append(self.form)
            return pg
        c, p = int(key[1]), int(key[2])
        pg = self.new_page(url, "listing", f"{ui('products', lang)} {c + 1} | {self.plan.brand}")
        mine = [i for i in range(self.n) if i % self.cats == c]
        for i in mine[(p - 1) * 24 : p * 24]:
            pg.links.append((self.url(("prod", i)), self.name(i)))
        if p * 24 < len(mine):
            pg.links.append((self.url(("cat", c, p + 1)), ui("next", lang)))
        pg.forms.append(self.form)
        return pg

    def extra(self, path: str, params: Params) -> Page | None:
        if path != self.action or not params:
            return None
        q = params.get("q", "").lower().split()
        hits = [i for i in range(self.n) if q and all(w in self.name(i).lower() for w in q)]
        pg = self.new_page(mk(self.plan.host, path, params), "results", ui("search", self.lang))
        pg.forms.append(self.form)
        for i in hits[:24]:
            pg.links.append((self.url(("prod", i)), self.name(i)))
        if not hits:
            pg.paragraphs.append(ui("no_results", self.lang))
        return pg

    def nav(self) -> list[Link]:
        return [
            (self.url(("cat", c, 1)), f"{ui('products', self.lang)} {c + 1}")
            for c in range(self.cats)
        ]

    def home(self, page: Page) -> None:
        page.forms.append(self.form)

    def corpus(self) -> list[Link]:
        return [(self.url(("prod", i)), self.name(i)) for i in range(min(self.n, 100))]

    def robots(self) -> list[str]:
        return ["/cart", "/checkout/"]


class InstitutionPart(Part):
    """Pages of a city hall, university, practice or club."""

    pid = "i"
    WORDS = (
        "services",
        "team",
        "history",
        "directions",
        "faq",
        "downloads",
        "press",
        "jobs-info",
        "partners",
        "events-info",
    )

    def keys(self) -> Iterable[Key]:
        for w in self.WORDS[: 3 + self.plan.size // 12]:
            yield (w,)
        for i in range(self.plan.size // 2):
            yield ("news", i)

    def url(self, key: Key) -> str:
        if key[0] == "news":
            path, params = self.m.scheme.item("news", 300 + int(key[1]))
            return self.plan.url(path, dict(params))
        return self.at(str(key[0]))

    def page(self, key: Key) -> Page:
        rng = self.rng(*key)
        url = self.url(key)
        if key[0] == "news":
            pg = self.new_page(url, "article", f"{title(rng)} | {self.plan.brand}")
            pg.paragraphs.append(self.m.text(rng, 4))
            pg.links.append((self.url(("news", max(0, int(key[1]) - 1))), ui("prev", self.lang)))
            return pg
        pg = self.new_page(
            url, "info", f"{str(key[0]).replace('-', ' ').title()} | {self.plan.brand}"
        )
        pg.paragraphs += [self.m.text(rng, 3), self.m.text(rng, 3, CITIES[self.lang][0])]
        for i in range(3):
            pg.links.append(
                (
                    self.url(("news", (stable_int(key, i) % max(1, self.plan.size // 2)))),
                    ui("news", self.lang),
                )
            )
        return pg

    def nav(self) -> list[Link]:
        return [(self.url((w,)), w.replace("-", " ").title()) for w in self.WORDS[:4]]

    def landing(self) -> list[Link]:
        return [(self.url(("services",)), ui("services", self.lang))]
