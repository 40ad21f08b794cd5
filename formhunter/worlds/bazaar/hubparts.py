"""Parts of the sites around the databases: directories, domain portals, blogs, news,
forums, shops and institutions. They link across sites (``Bazaar.landing``): a
directory lists the sites of a category, a portal deep-links its domain's sites,
posts and threads mention sites (sometimes through a dead or an old URL)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING

from formhunter.worlds.bazaar import widgets as wg
from formhunter.worlds.bazaar.lexicon import person, title
from formhunter.worlds.bazaar.model import DOMAINS, Key, Link, Page, SitePlan, stable_int
from formhunter.worlds.bazaar.site import Params, Part
from formhunter.worlds.bazaar.vocab import OFF, dom, off, ui

if TYPE_CHECKING:
    from formhunter.worlds.bazaar.site import SiteView

PER_DIR_PAGE = 12


def subject_name(subject: str, lang: str) -> str:
    if subject in DOMAINS:
        return dom(subject, "section", lang)
    return off(subject, "", lang) if subject in OFF else ui(subject, lang)


class DirectoryPart(Part):
    """Categories (the eight domains and the other subjects) listing sites, paginated,
    and a page per listed site."""

    pid = "d"

    @cached_property
    def listing(self) -> dict[str, list[SitePlan]]:
        rng = self.rng("listing")
        out: dict[str, list[SitePlan]] = {}
        for cat, plans in self.m.world.categories.items():
            keep = [p for p in plans if p.idx != self.plan.idx and rng.random() < 0.75]
            if keep:
                out[cat] = keep
        return out

    def keys(self) -> Iterable[Key]:
        yield ("root",)
        listed: set[int] = set()
        for cat, plans in self.listing.items():
            for p in range(1, 1 + -(-len(plans) // PER_DIR_PAGE)):
                yield ("cat", cat, p)
            for sp in plans:
                if sp.idx not in listed:
                    listed.add(sp.idx)
                    yield ("info", sp.idx)

    def url(self, key: Key) -> str:
        if key[0] == "root":
            return self.at("categories")
        if key[0] == "cat":
            return self.at(f"dir-{key[1]}", {"pg": str(key[2]) if int(key[2]) > 1 else ""})
        return self.plan.url("/site-info.php", {"id": str(key[1])})

    def page(self, key: Key) -> Page:
        lang = self.lang
        url = self.url(key)
        if key[0] == "root":
            pg = self.new_page(url, "directory", f"{ui('directory', lang)} | {self.plan.brand}")
            for cat in self.listing:
                pg.links.append((self.url(("cat", cat, 1)), subject_name(cat, lang)))
            return pg
        if key[0] == "cat":
            cat, p = str(key[1]), int(key[2])
            plans = self.listing[cat]
            dm = (cat,) if cat in DOMAINS else ()
            pg = self.new_page(
                url,
                "directory-category",
                f"{subject_name(cat, lang)} - {ui('directory', lang)} | {self.plan.brand}",
                dm,
            )
            pg.paragraphs.append(self.m.text(self.rng(cat), 1, subject=cat))
            for sp in plans[(p - 1) * PER_DIR_PAGE : p * PER_DIR_PAGE]:
                land = self.m.world.landing(sp)
                pick = land[stable_int(self.plan.idx, sp.idx) % min(2, len(land))]
                pg.links.append((pick[0], sp.brand))
                pg.links.append((self.url(("info", sp.idx)), ui("details", lang)))
                pg.table.append([sp.brand, subject_name(cat, sp.lang)])
            if p * PER_DIR_PAGE < len(plans):
                pg.links.append((self.url(("cat", cat, p + 1)), ui("next", lang)))
            if p > 1:
                pg.links.append((self.url(("cat", cat, p - 1)), ui("prev", lang)))
            pg.links.append((self.url(("root",)), ui("categories", lang)))
            return pg
        sp = self.m.world.plans[int(key[1])]
        cat = sp.domain or sp.topic or sp.kind
        pg = self.new_page(
            url,
            "directory-site",
            f"{sp.brand} - {ui('details', lang)}",
            (sp.domain,) if sp.domain else (),
        )
        pg.paragraphs.append(
            self.m.text(
                self.rng("info", sp.idx), 2, subject=cat if cat in DOMAINS or cat in OFF else ""
            )
        )
        pg.links.append((self.m.world.landing(sp)[0][0], ui("visit", lang)))
        if cat in self.listing:
            pg.links.append((self.url(("cat", cat, 1)), subject_name(cat, lang)))
        return pg

    def nav(self) -> list[Link]:
        return [(self.url(("root",)), ui("categories", self.lang))]

    def home(self, page: Page) -> None:
        for cat in self.listing:
            page.links.append((self.url(("cat", cat, 1)), subject_name(cat, self.lang)))

    def seeds(self, domain: str) -> list[str]:
        if domain not in self.listing:
            return []
        return [self.url(("cat", domain, 1))]


class ArticlesPart(Part):
    """Articles that link to sites: a portal's guides, a blog's posts, a news site's
    stories. Listing pages (by subject, paginated) and archive months."""

    pid = "a"
    PER_PAGE = 10

    def __init__(self, model: SiteView) -> None:
        super().__init__(model)
        p = self.plan
        self.n = max(12, p.size - 20)
        self.wp = model.scheme.style == "wp"
        rng = self.rng("subjects")
        self.subjects: list[str] = []
        for _ in range(self.n):
            if p.domain and (p.kind == "portal" or rng.random() < 0.7):
                self.subjects.append(p.domain)
            else:
                self.subjects.append(rng.choice((*DOMAINS, "cooking", "sports", "city", "garden")))
        self.cats = sorted(set(self.subjects))

    def art_id(self, i: int) -> int:
        return 100 + i * 3 + stable_int(self.plan.idx, i) % 3

    def keys(self) -> Iterable[Key]:
        for i in range(self.n):
            yield ("art", i)
        for c in self.cats:
            k = sum(1 for s in self.subjects if s == c)
            for p in range(1, 1 + -(-k // self.PER_PAGE)):
                yield ("cat", c, p)
        for m in range(1, 13):
            yield ("month", m)

    def url(self, key: Key) -> str:
        k = key[0]
        if k == "art":
            i = int(key[1])
            if self.wp:
                return self.plan.url("/", {"p": str(self.art_id(i))})
            path, params = self.m.scheme.item(self.section, self.art_id(i), f"story-{i}")
            return self.plan.url(path, dict(params))
        if k == "cat":
            if self.wp:
                return self.plan.url(
                    "/",
                    {
                        "cat": str(self.cats.index(str(key[1])) * 7 + 3),
                        "paged": str(key[2]) if int(key[2]) > 1 else "",
                    },
                )
            return self.at(
                f"{self.section}-{key[1]}", {"pg": str(key[2]) if int(key[2]) > 1 else ""}
            )
        if self.wp:
            return self.plan.url("/", {"m": f"2025{int(key[1]):02d}"})
        return self.plan.url(f"/{ui('archive', 'en').lower()}/2025/{int(key[1]):02d}/")

    @cached_property
    def section(self) -> str:
        return {"portal": "guide", "blog": "post", "news": "article"}.get(self.plan.kind, "page")

    def _targets(self, i: int, subject: str) -> list[Link]:
        rng = self.rng("targets", i)
        pool = self.m.world.categories.get(subject, [])
        out: list[Link] = []
        for sp in rng.sample(pool, min(len(pool), 1 + rng.randrange(4))):
            land = self.m.world.landing(sp)
            out.append(land[rng.randrange(len(land))])
        return out

    def page(self, key: Key) -> Page:
        lang, k = self.lang, key[0]
        url = self.url(key)
        if k == "art":
            i = int(key[1])
            subj = self.subjects[i]
            rng = self.rng("art", i)
            dm = (subj,) if subj in DOMAINS else ()
            head = title(rng)
            pg = self.new_page(
                url, "article", f"{head} - {subject_name(subj, lang)} | {self.plan.brand}", dm
            )
            pg.paragraphs += [
                self.m.text(rng, 4, subject=subj),
                f"{ui('posted', lang)} {person(rng)}",
                self.m.text(rng, 3, subject=subj),
            ]
            pg.links += self._targets(i, subj)
            pg.links.append((self.url(("cat", subj, 1)), subject_name(subj, lang)))
            if i > 0:
                pg.links.append((self.url(("art", i - 1)), ui("prev", lang)))
            if i + 1 < self.n:
                pg.links.append((self.url(("art", i + 1)), ui("next", lang)))
            pg.links.append((self.url(("month", 1 + i % 12)), ui("archive", lang)))
            if self.plan.kind == "blog":
                pg.forms.append(
                    wg.comment_form(
                        self.plan, self.plan.url("/wp-comments-post.php"), self.art_id(i)
                    )
                )
            if "teaser" in self.plan.flags and subj in DOMAINS and i % 4 == 0:
                pg.forms.append(
                    wg.fake_search(self.rng("teaser", subj), self.plan, subj, f"/go/{subj}")
                )
            return pg
        if k == "cat":
            c, p = str(key[1]), int(key[2])
            idx = [i for i, s in enumerate(self.subjects) if s == c]
            pg = self.new_page(
                url,
                "category",
                f"{subject_name(c, lang)} | {self.plan.brand}",
                (c,) if c in DOMAINS else (),
            )
            for i in idx[(p - 1) * self.PER_PAGE : p * self.PER_PAGE]:
                pg.links.append((self.url(("art", i)), title(self.rng("art", i))))
            if p * self.PER_PAGE < len(idx):
                pg.links.append((self.url(("cat", c, p + 1)), ui("next", lang)))
            pg.paragraphs.append(self.m.text(self.rng("cat", c), 1, subject=c))
            return pg
        m = int(key[1])
        pg = self.new_page(
            url, "archive", f"{ui('archive', lang)} 2025-{m:02d} | {self.plan.brand}"
        )
        for i in range(m - 1, self.n, 12):
            pg.links.append((self.url(("art", i)), title(self.rng("art", i))))
        return pg

    def extra(self, path: str, params: Params) -> Page | None:
        if path.startswith("/go/") and path[4:] in DOMAINS:  # the teaser's target: always the same
            d = path[4:]
            pg = self.new_page(self.plan.url(path), "teaser", f"{dom(d, 'noun', self.lang)}")
            pg.paragraphs.append(ui("partner", self.lang))
            return pg
        return None

    def nav(self) -> list[Link]:
        return [(self.url(("cat", c, 1)), subject_name(c, self.lang)) for c in self.cats[:6]]

    def home(self, page: Page) -> None:
        for i in range(min(8, self.n)):
            page.links.append((self.url(("art", i)), title(self.rng("art", i))))
        if "teaser" in self.plan.flags and self.plan.domain:
            page.forms.append(
                wg.fake_search(
                    self.rng("teaser", self.plan.domain),
                    self.plan,
                    self.plan.domain,
                    f"/go/{self.plan.domain}",
                )
            )

    def landing(self) -> list[Link]:
        return [(self.url(("art", i)), title(self.rng("art", i))) for i in range(2)]

    def corpus(self) -> list[Link]:
        return [(self.url(("art", i)), title(self.rng("art", i))) for i in range(min(self.n, 150))]

    def seeds(self, domain: str) -> list[str]:
        out = [self.url(("cat", domain, 1))] if domain in self.cats else []
        out += [self.url(("art", i)) for i, s in enumerate(self.subjects) if s == domain][:3]
        return out
