"""Routes inside a site, part of the crawl policy (``formhunter.frontier.policy``): on a site
that looks on-domain, links whose words name a route to the site's search go first
(``SiteRoutes``; the words: ``route_words``)."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import unquote

import numpy as np

from formhunter.frontier.route_words import SEARCH_WORDS
from formhunter.interfaces import LinkRecord

if TYPE_CHECKING:
    from formhunter.frontier.sites import SiteBudget

# -- routes inside a site -------------------------------------------------------------

#: Words naming a route to a site's search beyond "search"/"find" (``route_words``):
#: advanced search, booking and reservations, availability, catalogues, finders, site
#: maps. Written by hand for formhunter (issue 25) from common dictionary words of
#: English, German, French, Spanish, Italian, Portuguese, Dutch, Polish, Swedish,
#: Danish, Norwegian, Czech, Russian, Japanese and Chinese, as lexicon.py's domain
#: words were; no page of a simulated web, and no generator, was read to make it.
EXTRA_ROUTE_WORDS: tuple[str, ...] = (
    "search", "find", "finder", "advanced search", "booking", "book now", "reservation",
    "reserve", "availability", "catalogue", "catalog", "sitemap", "site map", "lookup",
    "erweiterte suche", "buchung", "buchen", "reservierung", "verfügbarkeit", "katalog",
    "recherche avancée", "réserv", "disponibilit", "plan du site",
    "búsqueda avanzada", "reserva", "catálogo", "mapa del sitio",
    "ricerca avanzata", "prenota", "catalogo", "mappa del sito",
    "pesquisa avançada", "busca avançada", "catálogo", "mapa do site",
    "uitgebreid zoeken", "boeken", "reserver", "catalogus", "beschikbaarheid",
    "wyszukiwanie zaawansowane", "rezerwac", "zarezerwuj", "dostępność", "mapa strony",
    "bokning", "boka", "bestilling", "booking", "rezervac", "vyhledávání",
    "расширенный поиск", "бронирован", "каталог", "карта сайта",
    "詳細検索", "予約", "空室", "サイトマップ", "高级搜索", "高級搜尋", "预订", "預訂", "预约",
    "目录", "網站地圖", "网站地图",
)  # fmt: skip
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u1000-\u109f\u1780-\u17ff\u3040-\u30ff"
                       r"\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")  # fmt: skip
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


class RouteWords:
    """Whether a text names a route to a search: a word of a spaced script matches at the
    start of a word (whole words under 5 letters: "ara", "bul", "cari"), a word of an
    unspaced script (Chinese, Japanese, Korean, Thai, ...) anywhere; in a URL (path and
    query, camelCase split) a word of 6+ letters anywhere too ("flightsearch")."""

    def __init__(self, words: Sequence[str]) -> None:
        words = sorted({w.lower().strip() for w in words if w.strip()}, key=len, reverse=True)
        unspaced = [w for w in words if _UNSPACED.search(w)]
        short = [w for w in words if w not in unspaced and len(w) < 5]
        long = [w for w in words if w not in unspaced and len(w) >= 5]

        def alt(ws: Sequence[str]) -> str:
            return "|".join(re.escape(w) for w in ws) or "(?!)"

        self._text = re.compile(rf"(?<!\w)(?:{alt(long)})|(?<!\w)(?:{alt(short)})(?!\w)"
                                rf"|{alt(unspaced)}")  # fmt: skip
        # inside a longer word ("flightsearch"), not after "re" ("research")
        self._inner = re.compile(rf"(?<!re)(?:{alt([w for w in long if len(w) >= 6])})")

    def text(self, text: str) -> bool:
        return bool(text) and self._text.search(text.lower()) is not None

    def url(self, url: str) -> bool:
        rest = url.split("//", 1)[-1]
        cut = rest.find("/")
        if cut < 0:
            return False
        words = _CAMEL.sub(" ", unquote(rest[cut:])).lower()
        words = re.sub(r"[\W_]+", " ", words)
        return self._text.search(words) is not None or self._inner.search(words) is not None


@functools.cache
def route_words() -> RouteWords:
    """``SEARCH_WORDS`` of every language plus ``EXTRA_ROUTE_WORDS``."""
    return RouteWords([*EXTRA_ROUTE_WORDS, *(w for ws in SEARCH_WORDS.values() for w in ws)])


class SiteRoutes:
    """The route policy within a site (``[frontier] route_links_per_site``): once a site
    looks on-domain (``saw``: a page of it on topic; or a relevant form found), its links
    whose anchor or URL name a search route (``route_words``) go to level 0 with a score
    above any probability (1 + the scorer's), those whose nearby words do get 0.5 + it;
    at most ``per_site`` links of a site as they are found (``links``), and as many per
    site, the first by lid, at each re-rank (``interfaces.RoutesFirst``: the frontier store
    keeps each link's bonus, so a re-rank from token ids needs no text), so that a site's
    search result pages cannot take the crawl."""

    def __init__(self, per_site: int, budget: SiteBudget) -> None:
        self.per_site = per_site
        self.budget = budget
        self.words = route_words()
        self.on_domain: set[str] = set()
        self.promoted: Counter[str] = Counter()

    def saw(self, site: str, on_topic: bool) -> None:
        if on_topic:
            self.on_domain.add(site)

    def bonus(self, url: str, anchor: str, around: str) -> float:
        """1.0 if the anchor or the URL names a route, 0.5 if only the nearby words do."""
        if self.words.text(anchor) or self.words.url(url):
            return 1.0
        return 0.5 if self.words.text(around) else 0.0

    def sites(self) -> set[str]:
        """The sites that look on-domain now: a page of them on topic, or a relevant form."""
        return self.on_domain | {s for s, n in self.budget.relevant.items() if n}

    def first(self, sites: Sequence[str], bonus: np.ndarray) -> np.ndarray:
        """Of links in lid order (their ``sites``, their ``bonus``), which go first: the
        first ``per_site`` with a bonus of each site (a mask)."""
        take = np.zeros(len(sites), dtype=bool)
        counts: Counter[str] = Counter()
        for i in np.flatnonzero(np.asarray(bonus) > 0).tolist():
            if counts[sites[i]] < self.per_site:
                counts[sites[i]] += 1
                take[i] = True
        return take

    @staticmethod
    def place(levels: np.ndarray, scores: np.ndarray,
              bonus: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """The scorer's (levels, scores) with the links of ``bonus`` > 0 at level 0 and a
        score of their bonus plus the scorer's, clipped to [0, 1] (0 if not finite)."""
        lv = np.array(levels, dtype=np.int64)
        sc = np.array(scores, dtype=np.float64)
        up = np.asarray(bonus) > 0
        if up.any():
            base = sc[up]
            lv[up] = 0
            sc[up] = bonus[up] + np.clip(np.where(np.isfinite(base), base, 0.0), 0.0, 1.0)
        return lv, sc

    def links(self, records: Sequence[LinkRecord], levels: np.ndarray, scores: np.ndarray,
              moved: list[int]) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """New links as they are found, in order: those of on-domain sites with a bonus
        go first while their site had fewer than ``per_site`` so (``promoted``, counted
        for the run); their indices are appended to ``moved``."""
        bonus = np.zeros(len(records))
        sites = self.sites()
        for i, r in enumerate(records):
            if self.promoted[r.site] < self.per_site and r.site in sites:
                bonus[i] = self.bonus(r.url, r.anchor, r.around)
                if bonus[i]:
                    self.promoted[r.site] += 1
                    moved.append(i)
        return self.place(levels, scores, bonus)
