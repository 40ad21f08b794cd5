"""The stage contracts of the engine. Each has a default implementation
registered by name in ``formhunter.registry``; settings pick them by name.

Link scorers score links in bulk (arrays), so that the whole frontier can be
re-ranked fast; everything else works a page at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from formhunter.model import Form, Page, Verdict


@dataclass(slots=True)
class LinkRecord:
    """A link as the frontier stores it: enough to (re-)score it without the page.

    ``parent_score`` is the page classifier's probability for the page the link
    was found on; ``dom_terms`` are the apprentice's ``term@d`` tokens joined by
    spaces (may be empty when no scorer asks for them).
    """

    url: str
    site: str
    depth: int
    parent_url: str = ""
    anchor: str = ""
    around: str = ""
    parent_score: float = 0.0
    dom_terms: str = ""


@runtime_checkable
class PageClassifier(Protocol):
    """Says how likely a page is on the crawl's topic."""

    def page_score(self, page: Page) -> float:
        """Pr(on topic | page), in [0, 1]."""
        ...


@runtime_checkable
class FormCritic(Protocol):
    """Judges forms: searchable or not, and of which domain."""

    def judge(self, forms: Sequence[Form], page: Page) -> list[Verdict]:
        """One verdict per form, in order."""
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


@dataclass(slots=True)
class PageOutcome:
    """What the engine tells learners after a page was processed."""

    page: Page
    page_score: float
    verdicts: list[Verdict]
    path: list[str]  # seed -> ... -> page URLs


@runtime_checkable
class Learner(Protocol):
    """Watches outcomes; may return a new link scorer to swap in (then the
    engine re-ranks the whole frontier with it)."""

    def observe(self, outcome: PageOutcome) -> LinkScorer | None:
        ...
