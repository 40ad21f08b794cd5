"""The stage contracts the engine and the pipeline call. Each has a default
implementation registered by name in ``formhunter.registry``; settings pick them
by name.

Page classifiers and critics have a batch method (``page_scores``,
``judge_many``) that the pipeline calls once per batch of pages; link scorers
score links in bulk (arrays, ``score``; ``score_frame`` on a pandas frame of the
frontier's columns), so that the whole frontier can be re-ranked fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from formhunter.model import Entry, Form, LinkRecord, Page, Verdict

__all__ = ["CrawlFrontier", "Fetcher", "FormCritic", "Learner", "LinkRecord", "LinkScorer",
           "PageClassifier", "PageOutcome", "RecordScorer", "RoutesFirst"]  # fmt: skip

if TYPE_CHECKING:
    from classifiers.link_tokens import TokenizedLinks
    from formhunter.fetch import Fetcher as HttpFetcher
    from formhunter.fetch import FetchResult


@runtime_checkable
class PageClassifier(Protocol):
    """Says how likely a page is on the crawl's topic."""

    def page_score(self, page: Page) -> float:
        """Pr(on topic | page), in [0, 1]."""
        ...

    def page_scores(self, pages: Sequence[Page]) -> list[float]:
        """``page_score`` of each page, in order (one call per batch)."""
        ...


@runtime_checkable
class FormCritic(Protocol):
    """Judges forms: searchable or not, and of which domain."""

    def judge(self, forms: Sequence[Form], page: Page) -> list[Verdict]:
        """One verdict per form, in order."""
        ...

    def judge_many(self, batch: Sequence[tuple[Sequence[Form], Page]]) -> list[list[Verdict]]:
        """``judge`` of each (forms, page), in order (one call per batch)."""
        ...

    def models(self) -> dict[str, dict[str, Any]]:
        """The trained models it judges with, by role (``classifiers.persist.model_info``:
        name, path, manifest hash, metrics); {} for rules. Runs and re-judgings record it."""
        ...


@runtime_checkable
class SiteAwareCritic(FormCritic, Protocol):
    """A critic whose earlier verdicts a site's later pages can revise (issue 24).

    ``revisit_site(site, share_on_topic)``: the share of the site's fetched pages that
    are on the crawl's topic so far; returns (form signature, new verdict) for the
    site's earlier forms that this evidence now makes relevant (each at most once).
    """

    def revisit_site(self, site: str, share_on_topic: float) -> list[tuple[str, Verdict]]:
        ...


@runtime_checkable
class LinkScorer(Protocol):
    """Places links in the multi-level frontier.

    ``score`` returns (levels, scores): level 0 is the most promising band (a
    relevant form is estimated one link away); within a level, higher scores
    are fetched first. Both arrays have one entry per link.
    """

    n_levels: int

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        ...

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        """``score`` on a pandas frame with the ``LinkRecord`` fields as columns
        (``parent_url`` named ``parent``): how the frontier is re-ranked when
        ``token_spaces`` is None."""
        ...

    @property
    def token_spaces(self) -> tuple[str, ...] | None:
        """The token spaces (``classifiers.link_tokens.SPACES``) ``score_tokens`` reads, or
        None when this scorer needs the links' text (re-ranks go through ``score_frame``)."""
        ...

    def score_tokens(self, links: TokenizedLinks) -> tuple[np.ndarray, np.ndarray]:
        """``score`` on links stored as token ids (the frontier keeps them, so that a
        re-rank does not tokenise again); equal to ``score_frame`` up to float rounding."""
        ...


class RecordScorer:
    """Base of link scorers that only define ``score``: ``score_frame`` builds the
    ``LinkRecord`` of each row and calls it."""

    n_levels: int = 1
    token_spaces: tuple[str, ...] | None = None

    def score_tokens(self, links: TokenizedLinks) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError("scores links from their text (token_spaces is None)")

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        d = frame.to_dict("list")
        recs = [
            LinkRecord(u, s, int(dp), p or "", a or "", ar or "", float(ps or 0.0), dt or "")
            for u, s, dp, p, a, ar, ps, dt in zip(
                d["url"], d["site"], d["depth"], d["parent"], d["anchor"], d["around"],
                d["parent_score"], d["dom_terms"], strict=True,
            )
        ]  # fmt: skip
        return self.score(recs)


@dataclass(slots=True)
class PageOutcome:
    """What the pipeline tells learners after a page was processed; ``link`` is the
    hop the page was reached through (a seed's has no parent; None: not known)."""

    page: Page
    page_score: float
    verdicts: list[Verdict]
    path: list[str]  # seed -> ... -> page URLs
    link: LinkRecord | None = None
    lid: int = 0  # the frontier's id of that link (0: not known)


@runtime_checkable
class Learner(Protocol):
    """Watches outcomes; may return a new link scorer to swap in (then the
    engine re-ranks the whole frontier with it).

    The pipeline calls ``observe`` for every page fetched and parsed, ``failed``
    for every fetch that earned no page (an HTTP or network error, an unparsable
    body), each before the batch's new outlinks go to the frontier; the engine
    calls ``finish`` once when the crawl ends (whatever the reason), e.g. to save
    what was learnt.

    ``state`` is everything the learner learned (bytes, saved with each commit
    point); ``restore`` on a new learner of the same kind and settings brings it
    back after a ``--resume`` and returns the scorer it had handed out last (None:
    none yet). ``b""`` is the state of a learner that keeps none."""

    def observe(self, outcome: PageOutcome) -> LinkScorer | None:
        ...

    def state(self) -> bytes:
        ...

    def restore(self, state: bytes) -> LinkScorer | None:
        ...

    def failed(self, link: LinkRecord, lid: int) -> None:
        """The fetch of ``link`` (frontier id ``lid``) earned no page."""
        ...

    def finish(self) -> None:
        """The crawl ended: save or release what the learner holds."""
        ...


class RoutesFirst(Protocol):
    """The links a re-rank puts first whatever the scorer says (the route policy within a
    site: ``formhunter.frontier.routes.SiteRoutes``), chosen by each link's text, site and
    lid, never by its score: so the store keeps each link's ``bonus`` and a re-rank from
    token ids needs no text."""

    def sites(self) -> set[str]:
        """The sites whose route links go first now."""
        ...

    def bonus(self, url: str, anchor: str, around: str) -> float:
        """A link's route bonus, from its text alone (0: not a route link)."""
        ...

    def first(self, sites: Sequence[str], bonus: np.ndarray) -> np.ndarray:
        """Of links of ``sites()`` in lid order (their sites and bonuses), which go first
        (a mask)."""
        ...

    def place(self, levels: np.ndarray, scores: np.ndarray,
              bonus: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """The scorer's (levels, scores) with the links of ``bonus`` > 0 moved first."""
        ...


@runtime_checkable
class CrawlFrontier(Protocol):
    """A selector: which of a run's stored links is fetched next (Frontera's and ACHE's
    split of the frontier into a store and a selector). Built by name (registry kind
    "frontier", ``Strategy.frontier``) over the run's ``FrontierStore``, which keeps
    every link, its state and the reserve: ``formhunter.frontier.Frontier`` (multi-level,
    "levels") and ``formhunter.tres.TreeFrontier`` ("tree"). ``levels``/``scores`` are
    the link scorer's and a selector may ignore them; a link scored ``math.inf`` is a
    seed (``formhunter.frontier.add_seeds``)."""

    #: whether links the store queues again (a site's skipped links, the reserve) are
    #: taken; a selector that holds its own links in memory may not take them back
    takes_back: bool

    def add_scored(self, records: Sequence[LinkRecord], hosts: Sequence[str],
                   levels: np.ndarray, scores: np.ndarray, *,
                   at_page: int | Sequence[int] = 0, state: str = "queued") -> int:  # fmt: skip
        """Persist (through the store) and queue new links, or keep them in reserve
        (``state="reserve"``); returns how many were new."""
        ...

    def next(self, now: float) -> Entry | None:
        """The link to fetch now (its host becomes busy), or None (see ``wait_hint``)."""
        ...

    def done(self, entry: Entry, state: str, reason: str = "", now: float = 0.0) -> None:
        """The fetch of ``entry`` ended with ``state`` (fetched/failed/skipped)."""
        ...

    def abandon(self, entry: Entry, now: float = 0.0) -> None:
        """Taken but not fetched: it stays queued (and may be taken again)."""
        ...

    def wait_hint(self, now: float) -> float | None:
        """Seconds until a waiting link's host is due (None: none is known)."""
        ...

    def rerank(self, scorer: LinkScorer, promote_below: int = 0,
               routes: RoutesFirst | None = None) -> int:  # fmt: skip
        """A new link scorer was swapped in, or the store queued links again: re-rank (or
        re-organise) what is queued, the links ``routes`` chooses first; returns how many
        links it placed."""
        ...

    @property
    def dry(self) -> bool:
        """Nothing queued is left and nothing is in flight (a reserve may remain)."""
        ...

    def __len__(self) -> int:
        """Links waiting to be taken."""
        ...


@runtime_checkable
class Fetcher(Protocol):
    """Downloads pages (``formhunter.fetch.Fetcher``): an async context manager whose
    ``fetch`` never raises for the Web's failures (``FetchResult.error`` says why)."""

    async def __aenter__(self) -> Any: ...

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> Any:  # fmt: skip
        ...

    async def fetch(self, url: str) -> FetchResult: ...

    def host_ready_in(self, url: str) -> float:
        """Seconds until the host of ``url`` may be contacted (politeness)."""
        ...

    def take_robots(self) -> list[tuple[str, str, int, bytes, str, float]]:
        """The robots.txt answers fetched since the last call, oldest first (the
        catalogue keeps them so a resumed run fetches none again)."""
        ...

    def preload_robots(self, rows: Sequence[tuple[str, str, int, bytes, float]]) -> None:
        """Take back a resumed run's stored answers (origin, host, status, body, age)."""
        ...

    def http(self) -> HttpFetcher | None:
        """The HTTP fetcher whose address guard, robots.txt cache and politeness a
        renderer's sub-requests share (None: this fetcher does not use the network)."""
        ...
