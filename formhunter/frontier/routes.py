"""Routes inside a site, part of the crawl policy (``formhunter.frontier.policy``): on a site
that looks on-domain, links whose words name a route to the site's search go first
(``SiteRoutes``; the words: ``route_words``)."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import numpy as np

from formhunter.frontier.route_words import SEARCH_WORDS
from formhunter.interfaces import LinkRecord, LinkScorer, RecordScorer

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
    at most ``per_site`` links of a site as they are found (and as many per site at each
    re-rank: ``scorer``), so that a site's search result pages cannot take the crawl."""

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

    def apply(self, rows: Sequence[tuple[str, str, str, str]], levels: np.ndarray,
              scores: np.ndarray, counts: Counter[str],
              moved: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """(url, site, anchor, around) rows with the scorer's arrays: the route links of
        on-domain sites moved first (``counts``: links promoted per site so far; their
        indices appended to ``moved``)."""
        lv = np.array(levels, dtype=np.int64)
        sc = np.array(scores, dtype=np.float64)
        relevant = self.budget.relevant
        for i, (url, site, anchor, around) in enumerate(rows):
            if counts[site] >= self.per_site or not (site in self.on_domain or relevant[site]):
                continue
            bonus = self.bonus(url, anchor, around)
            if bonus:
                counts[site] += 1
                base = sc[i] if np.isfinite(sc[i]) else 0.0
                lv[i], sc[i] = 0, bonus + min(max(base, 0.0), 1.0)
                if moved is not None:
                    moved.append(i)
        return lv, sc

    def links(self, records: Sequence[LinkRecord], levels: np.ndarray, scores: np.ndarray,
              moved: list[int]) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """New links as they are found (counted in ``promoted`` for the run)."""
        rows = [(r.url, r.site, r.anchor, r.around) for r in records]
        return self.apply(rows, levels, scores, self.promoted, moved)

    def scorer(self, scorer: LinkScorer) -> LinkScorer:
        """``scorer`` with the routes applied: what the frontier is re-ranked with."""
        return _RoutedScorer(scorer, self)


class _RoutedScorer(RecordScorer):
    """A link scorer followed by ``SiteRoutes.apply`` (fresh per-site counts per call).
    It reads the links' text (anchor, URL, nearby words), so a re-rank with it goes
    through ``score_frame`` (``token_spaces`` None), not the stored token ids."""

    def __init__(self, scorer: LinkScorer, routes: SiteRoutes) -> None:
        self.inner = scorer
        self.routes = routes
        self.n_levels = scorer.n_levels

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        lv, sc = self.inner.score(links)
        rows = [(r.url, r.site, r.anchor, r.around) for r in links]
        return self.routes.apply(rows, lv, sc, Counter())

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        lv, sc = self.inner.score_frame(frame)
        rows = list(zip(frame["url"], frame["site"], frame["anchor"].fillna(""),
                        frame["around"].fillna(""), strict=True))  # fmt: skip
        return self.routes.apply(rows, lv, sc, Counter())
