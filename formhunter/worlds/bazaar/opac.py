"""A database inside an institution's site, on a host of its own: a university
library's catalogue (book) or a city's vacancies portal (job)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING

from formhunter.worlds.bazaar import widgets as wg
from formhunter.worlds.bazaar.dbparts import query_terms
from formhunter.worlds.bazaar.items import Item, items
from formhunter.worlds.bazaar.model import FormSpec, Key, Link, Page, mk
from formhunter.worlds.bazaar.site import Params, Part
from formhunter.worlds.bazaar.vocab import dom, ui

if TYPE_CHECKING:
    from formhunter.worlds.bazaar.site import SiteView

#: topic -> (domain, subdomain, path prefix)
KINDS = {"university": ("book", "opac", "/vufind"), "city": ("job", "jobs", "/stellenportal")}


def opac_host(site: str, topic: str) -> str:
    return f"{KINDS[topic][1]}.{site}"


class OpacPart(Part):
    pid = "q"

    def __init__(self, model: SiteView) -> None:
        super().__init__(model)
        self.domain, _, self.prefix = KINDS[self.plan.topic]
        self.host = opac_host(self.plan.site, self.plan.topic)
        self.action = f"{self.prefix}/Search/Results"
        self.db_plan = dataclasses.replace(self.plan, domain=self.domain)

    @cached_property
    def records(self) -> list[Item]:
        return items(self.db_plan, self.m.world.seed, 60 + self.plan.size)

    @cached_property
    def form(self) -> FormSpec:
        return wg.search_form(self.rng("form"), self.db_plan, self.domain, self.action, extra=2)

    def keys(self) -> Iterable[Key]:
        yield ("home",)
        for it in self.records[:20]:
            yield ("rec", it.iid)

    def url(self, key: Key) -> str:
        if key[0] == "home":
            return mk(self.host, f"{self.prefix}/")
        return mk(self.host, f"{self.prefix}/Record/{key[1]}")

    def page(self, key: Key) -> Page:
        lang, d = self.lang, self.domain
        if key[0] == "home":
            pg = self.new_page(
                self.url(key), "search", f"{dom(d, 'noun2', lang)} | {self.plan.brand}", (d,)
            )
            pg.forms.append(self.form)
            pg.paragraphs.append(self.m.text(self.rng("home"), 2, subject=d))
            for it in self.records[:20]:
                pg.links.append((self.url(("rec", it.iid)), it.name))
            return pg
        it = next(r for r in self.records if r.iid == key[1])
        pg = self.new_page(self.url(key), "item", f"{it.name} | {self.plan.brand}", (d,))
        pg.table = [[k, v] for k, v in it.attrs]
        pg.links.append((self.url(("home",)), dom(d, "section", lang)))
        return pg

    def extra(self, path: str, params: Params) -> Page | None:
        if path != self.action or not params:
            return None
        terms = query_terms(params)
        hits = [it for it in self.records if all(t in it.text for t in terms)]
        pg = self.new_page(
            mk(self.host, path, params),
            "results",
            f"{len(hits)} | {self.plan.brand}",
            (self.domain,),
        )
        pg.forms.append(self.form)
        for it in hits[:20]:
            pg.table.append([it.name, *(v for _, v in it.attrs[:2])])
        if not hits:
            pg.paragraphs.append(ui("no_results", self.lang))
        return pg

    def nav(self) -> list[Link]:
        return [(self.url(("home",)), dom(self.domain, "section", self.lang))]

    def landing(self) -> list[Link]:
        return [(self.url(("home",)), dom(self.domain, "noun2", self.lang))]
