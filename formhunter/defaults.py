"""Simple default components that keep a crawl working without trained models.

Registered in ``formhunter.registry``:

- ``page_classifier/keywords``: share of the domain's keywords found in the page.
- ``scorer/bfs``: breadth first (one level, shallower first, then discovery order).
- ``scorer/random``: one level, uniform random scores (seeded).
- ``scorer/parent``: best first, a link inherits the score of the page it was found on
  (the ACHE paper's *baseline*).
- ``critic/keywords``: a structural heuristic for "searchable" and keyword hits for
  the domain. The trained critic (``critic/default``) replaces it when present.

Keywords come from the domain pack (``domains/<name>/pack.toml``, key ``keywords``);
when there is no pack, a small built-in list is used.
"""

from __future__ import annotations

import logging
import re
import tomllib
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from formhunter.interfaces import LinkRecord
from formhunter.model import NON_DATA_TYPES, Form, Page, Verdict
from formhunter.registry import register

log = logging.getLogger(__name__)

BUILTIN_KEYWORDS: dict[str, tuple[str, ...]] = {
    "airfare": ("flight", "airfare", "airline", "airport", "fare", "depart", "return",
                "round trip", "one way", "travel", "ticket", "passenger", "destination"),
    "auto": ("car", "auto", "vehicle", "dealer", "make", "model", "mileage", "used cars",
             "truck", "suv", "sedan", "price", "zip"),
    "book": ("book", "isbn", "author", "title", "publisher", "library", "catalog",
             "paperback", "hardcover", "fiction", "bookstore", "edition"),
    "hotel": ("hotel", "room", "check-in", "check-out", "guest", "resort", "booking",
              "accommodation", "night", "suite", "reservation", "stay"),
    "job": ("job", "career", "employment", "salary", "resume", "hiring", "position",
            "vacancy", "recruit", "employer", "keywords", "location"),
    "movie": ("movie", "film", "cinema", "actor", "director", "showtime", "dvd", "genre",
              "trailer", "theater", "review", "cast"),
    "music": ("music", "album", "artist", "song", "band", "lyrics", "cd", "track",
              "record", "genre", "concert", "mp3"),
    "rental": ("rental", "rent a car", "car rental", "pick-up", "drop-off", "pickup",
               "return", "vehicle", "rate", "location", "reservation", "car hire"),
}  # fmt: skip

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_LOGIN_WORDS = ("login", "log in", "sign in", "signin", "password", "subscribe", "newsletter",
                "sign up", "signup", "register", "contact", "comment", "unsubscribe")
_SEARCH_WORDS = ("search", "find", "go", "look", "browse", "query", "suche", "buscar",
                 "recherche", "cerca", "zoeken", "pesquisar")  # fmt: skip


def known_domains() -> list[str]:
    """Domains a crawl can target: every pack (``classifiers.datasets.iter_packs``) and
    the built-in keyword domains, sorted."""
    from classifiers.datasets import iter_packs

    return sorted(set(iter_packs()) | set(BUILTIN_KEYWORDS))


@lru_cache(maxsize=32)
def domain_keywords(domain: str) -> tuple[str, ...]:
    """The domain's keywords (lower case): from its pack if any, else built in."""
    from classifiers.datasets import domains_root

    pack = domains_root() / domain / "pack.toml"
    if pack.is_file():
        try:
            data = tomllib.loads(pack.read_text(encoding="utf-8"))
            words = tuple(
                str(w).lower().strip() for w in data.get("keywords", ()) if str(w).strip()
            )
            if words:
                return words
        except (OSError, tomllib.TOMLDecodeError) as exc:
            log.warning("cannot read %s (%s); using built-in keywords", pack, exc)
    return BUILTIN_KEYWORDS.get(domain, (domain.lower(),))


def _hits(text: str, keywords: Sequence[str]) -> int:
    """Number of distinct keywords occurring in ``text`` (already lower case)."""
    return sum(1 for k in keywords if k in text)


class KeywordPageClassifier:
    """Pr(on topic) from the number of distinct domain keywords in title, URL and text.

    score = 1 - 0.6 ** hits, title hits counted twice: two distinct keywords give
    0.64 (on topic at the usual 0.5 threshold), one gives 0.4.
    """

    def __init__(self, keywords: Sequence[str]) -> None:
        self.keywords = tuple(keywords)

    def page_score(self, page: Page) -> float:
        title = page.title.lower()
        body = page.text[:20_000].lower()
        hits = _hits(body + " " + page.url.lower(), self.keywords) + _hits(title, self.keywords)
        return float(1.0 - 0.6**hits)

    def page_scores(self, pages: Sequence[Page]) -> list[float]:
        """Batch form of ``page_score`` (same values)."""
        return [self.page_score(p) for p in pages]


class KeywordCritic:
    """Heuristic critic: a form is searchable when it has a free-text or choice field,
    no password, and no login/subscribe wording; it is of the domain when its text,
    field names, labels and options hit the domain's keywords."""

    def __init__(self, domain: str, keywords: Sequence[str]) -> None:
        self.domain = domain
        self.keywords = tuple(keywords)

    def _searchable(self, form: Form) -> float:
        types = [f.type for f in form.fields if f.type not in NON_DATA_TYPES]
        if not types or "password" in types:
            return 0.0
        texts = " ".join([*form.submit_texts, form.text[:500], form.attrs.get("id", ""),
                          form.attrs.get("name", ""), form.action]).lower()
        if any(w in texts for w in _LOGIN_WORDS):
            return 0.1
        score = 0.4
        if any(t in ("text", "search", "select") for t in types):
            score += 0.3
        if any(w in texts for w in _SEARCH_WORDS) or form.method.upper() == "GET":
            score += 0.2
        if types.count("email") == len(types) or "textarea" in types:
            score -= 0.4
        return max(0.0, min(1.0, score))

    def judge(self, forms: Sequence[Form], page: Page) -> list[Verdict]:
        out = []
        for form in forms:
            s = self._searchable(form)
            searchable = s >= 0.5
            bag = " ".join(
                [form.text[:2000], form.action, form.context]
                + [f"{f.name} {f.label} {f.placeholder} {' '.join(f.options[:50])}"
                   for f in form.fields]
            ).lower()
            d = float(1.0 - 0.5 ** _hits(bag, self.keywords))
            in_domain = searchable and d >= 0.5
            out.append(Verdict(searchable, s, self.domain if in_domain else "", d,
                               in_domain))  # fmt: skip
        return out

    def judge_many(self, batch: Sequence[tuple[Sequence[Form], Page]]) -> list[list[Verdict]]:
        """``judge`` per (forms, page), in order."""
        return [self.judge(forms, page) for forms, page in batch]


class BreadthFirstScorer:
    """One level; shallower links first (the frontier breaks ties by discovery order)."""

    n_levels = 1

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        depth = np.fromiter((lk.depth for lk in links), dtype=np.float64, count=len(links))
        return np.zeros(len(links), dtype=np.int64), -depth

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        depth = frame["depth"].to_numpy(dtype=np.float64)
        return np.zeros(len(depth), dtype=np.int64), -depth


class RandomScorer:
    """One level, uniform random scores from a seeded generator."""

    n_levels = 1

    def __init__(self, random_state: int = 0) -> None:
        self.rng = np.random.default_rng(random_state)

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(len(links), dtype=np.int64), self.rng.random(len(links))

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        n = len(frame)
        return np.zeros(n, dtype=np.int64), self.rng.random(n)


class ParentScoreScorer:
    """Best first: a link inherits its parent page's on-topic probability."""

    n_levels = 1

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        s = np.fromiter((lk.parent_score for lk in links), dtype=np.float64, count=len(links))
        return np.zeros(len(links), dtype=np.int64), s

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        s = frame["parent_score"].to_numpy(dtype=np.float64)
        return np.zeros(len(s), dtype=np.int64), s


@register("page_classifier", "keywords")
def _keyword_page_classifier(domain: str = "airfare", **_: Any) -> KeywordPageClassifier:
    return KeywordPageClassifier(domain_keywords(domain))


@register("critic", "keywords")
def _keyword_critic(domain: str = "airfare", **_: Any) -> KeywordCritic:
    return KeywordCritic(domain, domain_keywords(domain))


@register("scorer", "bfs")
def _bfs(**_: Any) -> BreadthFirstScorer:
    return BreadthFirstScorer()


@register("scorer", "random")
def _random(random_state: int = 0, **_: Any) -> RandomScorer:
    return RandomScorer(random_state)


@register("scorer", "parent")
def _parent(**_: Any) -> ParentScoreScorer:
    return ParentScoreScorer()
