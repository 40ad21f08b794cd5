"""Link scorers (``interfaces.LinkScorer``), registered here by name:

- ``bfs``: breadth first; ``random``: seeded uniform scores; ``parent``: a link
  inherits its page's on-topic probability (ACHE's baseline) -- ``simple``;
- ``link-classifier``: the offline FFC link classifier (``formhunter.trainers``);
- ``apprentice``: the apprentice layer, untrained = parent score;
- ``keyword``: the keyword best-first reference (a link ranks by its parent page's
  keyword score; no learning).

The online learners (``formhunter.learners``) return new scorers of these kinds.
"""

from __future__ import annotations

from typing import Any

from formhunter.learners.adaptive import LinkClassifierScorer
from formhunter.learners.apprentice import ApprenticeScorer
from formhunter.registry import register
from formhunter.scorers.keyword_rule import KeywordRuleScorer
from formhunter.scorers.simple import BreadthFirstScorer, ParentScoreScorer, RandomScorer
from formhunter.trainers import offline_model

__all__ = ["BreadthFirstScorer", "KeywordRuleScorer", "ParentScoreScorer", "RandomScorer"]


@register("scorer", "bfs")
def _bfs(**_: Any) -> BreadthFirstScorer:
    return BreadthFirstScorer()


@register("scorer", "random")
def _random(random_state: int, **_: Any) -> RandomScorer:
    return RandomScorer(random_state)


@register("scorer", "parent")
def _parent(**_: Any) -> ParentScoreScorer:
    return ParentScoreScorer()


@register("scorer", "link-classifier")
def _link_classifier(domain: str, models_dir: Any = None,
                     **_: Any) -> LinkClassifierScorer:  # fmt: skip
    return LinkClassifierScorer(offline_model(domain, models_dir)[0])


@register("scorer", "apprentice")
def _apprentice(**_: Any) -> ApprenticeScorer:
    return ApprenticeScorer(None)


@register("scorer", "keyword")
def _keyword(**_: Any) -> KeywordRuleScorer:
    return KeywordRuleScorer()
