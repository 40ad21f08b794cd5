"""Finding the form inside a site (issue 25): the route policy within a site, the words
that name a search route in many languages, and the site rules that know when a site
has no more to give (formhunter/frontier/policy.py), on a real frontier over DuckDB."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
from policy_helpers import FlatScorer, policy_over_store

from formhunter.catalogue import Catalogue
from formhunter.config import Settings
from formhunter.frontier import Frontier
from formhunter.frontier.policy import CrawlPolicy, SiteBudget
from formhunter.frontier.route_words import SEARCH_WORDS
from formhunter.frontier.routes import route_words
from formhunter.interfaces import LinkRecord


def _policy(tmp_path: Path, strategy: str = "ache", per_site: int = 3
            ) -> tuple[CrawlPolicy, Frontier, Catalogue]:  # fmt: skip
    s = Settings()
    s = dataclasses.replace(s, frontier=dataclasses.replace(s.frontier,
                                                            route_links_per_site=per_site))
    return policy_over_store(tmp_path, s, FlatScorer(1, 0.5, n_levels=2), strategy=strategy,
                             domain="hotel", n_levels=3)


def test_search_route_words_in_many_languages() -> None:
    words = route_words()
    assert len(SEARCH_WORDS) >= 90  # languages of the GTK/GNOME translations
    for anchor in ("Search", "Advanced search", "Erweiterte Suche", "Rechercher un hôtel",
                   "Buscar", "Cerca", "Zoeken", "Wyszukaj", "Поиск", "検索", "搜索", "검색",
                   "ค้นหา", "Hotel reservations", "Book now", "Site map", "Katalog"):  # fmt: skip
        assert words.text(anchor), anchor
    for anchor in ("About us", "Contact", "Arabic", "Research", "Terms of use", "Rome"):
        assert not words.text(anchor), anchor
    assert words.url("http://h.example/hotelSearch.aspx")
    assert words.url("http://h.example/index.php?page=suche")
    assert words.url("http://h.example/flightsearch/")
    assert not words.url("http://h.example/research/")
    assert not words.url("http://search.example/rooms/12")  # the host is not the route


def test_route_links_of_an_on_domain_site_go_first(tmp_path: Path) -> None:
    policy, _, cat = _policy(tmp_path, per_site=2)
    recs = [LinkRecord("http://a.example/about", "a.example", 1, anchor="About us"),
            LinkRecord("http://a.example/x", "a.example", 1, anchor="Search hotels"),
            LinkRecord("http://b.example/suche", "b.example", 1, anchor="weiter")]
    levels, scores = np.array([1, 2, 1]), np.array([0.9, 0.1, 0.3])
    reserve = [False, True, False]
    # no site looks on-domain yet: nothing moves
    lv, sc = policy.routes_first(recs, levels, scores, reserve)
    assert lv.tolist() == [1, 2, 1] and reserve == [False, True, False]
    policy.saw("a.example", True)
    policy.saw("b.example", False)
    lv, sc = policy.routes_first(recs, levels, scores, reserve)
    assert lv.tolist() == [1, 0, 1] and sc[1] > 1.0 and reserve == [False, False, False]
    policy.budget.page("b.example", 1, 1)  # a relevant form: b looks on-domain too
    more = [LinkRecord(f"http://a.example/s{i}", "a.example", 1, anchor="Search")
            for i in range(3)] + [LinkRecord("http://b.example/suche", "b.example", 1)]
    lv, _ = policy.routes_first(more, np.ones(4, int), np.ones(4), [False] * 4)
    assert lv.tolist() == [0, 1, 1, 0]  # at most 2 route links of a.example
    assert policy.stats.route_links == 3
    cat.close()


def test_a_rerank_keeps_the_routes_first(tmp_path: Path) -> None:
    policy, fr, cat = _policy(tmp_path)
    recs = [LinkRecord("http://a.example/rooms", "a.example", 1, anchor="Rooms"),
            LinkRecord("http://a.example/book", "a.example", 1, anchor="Reservations")]
    fr.add_scored(recs, ["a.example"] * 2, np.zeros(2), np.array([0.9, 0.2]))
    policy.saw("a.example", True)
    # the flat scorer ranks both alike; the route goes first
    policy.rerank(FlatScorer(1, 0.5, n_levels=2))
    entry = policy.next_link(0.0)
    assert entry is not None and entry.url == "http://a.example/book" and entry.level == 0
    cat.close()


def test_strategies_without_site_limits_have_no_route_policy(tmp_path: Path) -> None:
    policy, _, cat = _policy(tmp_path, strategy="keyword")
    policy.saw("a.example", True)
    rec = [LinkRecord("http://a.example/search", "a.example", 1, anchor="Search")]
    lv, _ = policy.routes_first(rec, np.array([2]), np.array([0.1]), [False])
    assert lv.tolist() == [2] and policy.routes is None
    cat.close()


def test_a_site_that_stops_giving_is_exhausted_and_one_still_giving_stays_open() -> None:
    s = dataclasses.replace(Settings().stopping, max_pages_per_site=20, max_forms_per_site=0,
                            exhausted_pages=3)  # still giving: a new form in the last 2 pages
    b = SiteBudget(s)
    for _ in range(19):
        b.page("dry.example", 0, 0)
    assert b.reason("dry.example") == ""  # no relevant form: only the page limit closes it
    b.page("dry.example", 0, 0)
    assert b.reason("dry.example") == "site-pages"
    # a chain: a booking form per property page, past the page limit
    for i in range(25):
        b.page("chain.example", 1, 1)
        assert b.reason("chain.example") == "", i
    b.page("chain.example", 0, 0)
    assert b.reason("chain.example") == ""
    b.page("chain.example", 0, 0)  # two pages without a new form: closed
    assert b.reason("chain.example") == "site-pages"
    # below the page limit, three pages without a new form after a relevant one: exhausted
    for n in (1, 0, 0):
        b.page("one.example", n, n)
    assert b.reason("one.example") == ""
    b.page("one.example", 0, 0)
    assert b.reason("one.example") == "site-exhausted"
    for off in (dataclasses.replace(s, exhausted_pages=0),
                dataclasses.replace(s, max_pages_per_site=9)):  # a small limit is meant
        c = SiteBudget(off)
        for _ in range(off.max_pages_per_site):
            c.page("chain.example", 1, 1)
        assert c.reason("chain.example") == "site-pages"
