"""Which parts a site is made of, by kind and archetype (see ``site`` and ``dbparts``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from formhunter.worlds.bazaar.boards import ForumPart, InstitutionPart, ShopPart
from formhunter.worlds.bazaar.dbparts import CatalogPart, SearchPart
from formhunter.worlds.bazaar.flows import BookingPart, CalendarPart, ChainPart
from formhunter.worlds.bazaar.hubparts import ArticlesPart, DirectoryPart
from formhunter.worlds.bazaar.opac import OpacPart

if TYPE_CHECKING:
    from formhunter.worlds.bazaar.site import Part, SiteView

#: database archetypes that carry a calendar, per domain
_CALENDAR = {"airfare": ("booking",), "hotel": ("booking",), "rental": ("booking",),
             "movie": ("catalog", "chain"), "music": ("catalog",)}  # fmt: skip


def parts_for(m: SiteView) -> list[Part]:
    """The parts of ``m``'s site besides the core pages."""
    p = m.plan
    if p.kind == "database":
        a = p.archetype
        out: list[Part] = []
        if a == "chain":
            out.append(ChainPart(m))
        else:
            out += [SearchPart(m), CatalogPart(m)]
        if a == "booking":
            out.append(BookingPart(m))
        if a in _CALENDAR.get(p.domain, ()):
            out.append(CalendarPart(m))
        return out
    if p.kind == "directory":
        return [DirectoryPart(m)]
    if p.kind in ("portal", "blog", "news"):
        return [ArticlesPart(m)]
    if p.kind == "forum":
        return [ForumPart(m)]
    if p.kind == "shop":
        return [ShopPart(m)]
    out = [InstitutionPart(m)]
    if p.topic in ("city", "sports", "university"):
        out.append(CalendarPart(m))
    if "catalogue" in p.flags and p.topic in ("university", "city"):
        out.append(OpacPart(m))
    return out
