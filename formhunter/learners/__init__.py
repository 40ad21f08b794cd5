"""Online learners (``interfaces.Learner``), registered here by name (context keys:
domain, settings, models_dir, random_state, catalogue, run_id):

- ``ache-online`` (adaptive link learner), ``ache-offline-online``
  (the same, seeded with the offline paths), ``apprentice``, ``ache-apprentice``
  (link learner + apprentice layer), ``cfc`` (conservative URL scorer);
- ``tres`` (TRES's agent driving the Tree-Frontier: ``formhunter.tres.learner``)
  and ``tres-lite`` (the agent as a link scorer over the multi-level frontier:
  ``formhunter.tres.lite``); both read ``[tres]`` and start from ``[tres] policy``
  when it names a saved policy.

Learners keep their iterations in ``learner.iterations`` / ``last_iteration``
(``LearningIteration.as_record()`` are the keyword arguments of
``Catalogue.record_learning``); given ``catalogue`` and ``run_id`` they record
each iteration there themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from formhunter.catalogue import Catalogue
from formhunter.config import LearningSettings, Settings
from formhunter.exceptions import ModelError, NotConfigured, UsageError
from formhunter.learners.adaptive import AdaptiveLinkLearner, LinkClassifierScorer, PathRepository
from formhunter.learners.apprentice import ApprenticeLearner, ApprenticeScorer, LayeredLearner
from formhunter.learners.base import (
    LearningIteration,
    LinkMemory,
    learning_table,
    links_frame,
)
from formhunter.learners.cfc import CFCLearner, CFCScorer, FetchSavings, ParentIndex, warm_start
from formhunter.registry import register
from formhunter.strategies import Strategy, get_strategy

__all__ = [
    "DEFAULT_THRESHOLD",
    "AdaptiveLinkLearner",
    "ApprenticeLearner",
    "ApprenticeScorer",
    "CFCLearner",
    "CFCScorer",
    "FetchSavings",
    "LayeredLearner",
    "LearningIteration",
    "LinkClassifierScorer",
    "LinkMemory",
    "ParentIndex",
    "PathRepository",
    "learning_table",
    "links_frame",
    "warm_start",
]


#: New relevant forms per learning iteration (``LearningSettings.threshold``).
DEFAULT_THRESHOLD = LearningSettings.threshold


def _learning(settings: Settings) -> dict[str, Any]:
    ls = settings.learning
    n = ls.features_per_space
    return {
        "threshold": ls.threshold, "n_levels": ls.path_length,
        "retrain_pages": ls.retrain_pages, "stall_pages": ls.stall_pages,
        "classifier": {"n_url": n, "n_anchor": n, "n_around": n, "min_df": ls.min_support,
                       "drop_host_terms": ls.drop_host_terms},
    }  # fmt: skip


def _recorder(catalogue: Catalogue | None, run_id: int | None
              ) -> Callable[[LearningIteration], None] | None:  # fmt: skip
    if catalogue is None or run_id is None:
        return None

    def record(it: LearningIteration) -> None:
        catalogue.record_learning(run_id, **it.as_record())

    return record


# -- learners -------------------------------------------------------------------------


@register("learner", "ache-online")
def _ache_online(settings: Settings, random_state: int,
                 catalogue: Catalogue | None = None, run_id: int | None = None,
                 **_: Any) -> AdaptiveLinkLearner:  # fmt: skip
    return AdaptiveLinkLearner(**_learning(settings), random_state=random_state,
                               on_learning=_recorder(catalogue, run_id))  # fmt: skip


@register("learner", "ache-offline-online")
def _ache_offline_online(domain: str, settings: Settings, random_state: int,
                         models_dir: Any = None,
                         catalogue: Catalogue | None = None, run_id: int | None = None,
                         **_: Any) -> AdaptiveLinkLearner:  # fmt: skip
    from formhunter.trainers import offline_model

    try:
        model, frame, levels = offline_model(domain, models_dir)
    except ModelError as exc:
        raise NotConfigured(str(exc)) from None
    kw = _learning(settings)
    kw["n_levels"] = int(model.n_levels)
    # Offline paths stay in every iteration; the offline background is replaced
    # by the crawl's own background links.
    on_path = levels < model.n_levels
    initial = (frame[on_path].reset_index(drop=True), levels[on_path]) if len(levels) else None
    ls = settings.learning
    return AdaptiveLinkLearner(**kw, initial=initial, random_state=random_state,
                               initial_ratio=ls.offline_ratio, name="ache-offline-online",
                               on_learning=_recorder(catalogue, run_id))  # fmt: skip


@register("learner", "apprentice")
def _apprentice(catalogue: Catalogue | None = None, run_id: int | None = None,
                **_: Any) -> ApprenticeLearner:  # fmt: skip
    return ApprenticeLearner(on_learning=_recorder(catalogue, run_id))


@register("learner", "ache-apprentice")
def _ache_apprentice(settings: Settings, random_state: int,
                     catalogue: Catalogue | None = None, run_id: int | None = None,
                     **_: Any) -> LayeredLearner:  # fmt: skip
    rec = _recorder(catalogue, run_id)
    links = AdaptiveLinkLearner(**_learning(settings), random_state=random_state, on_learning=rec)
    from formhunter.scorers.simple import ParentScoreScorer

    return LayeredLearner(links, ApprenticeLearner(on_learning=rec), base=ParentScoreScorer())


@register("learner", "cfc")
def _cfc(domain: str, random_state: int, catalogue: Catalogue | None = None,
         run_id: int | None = None, **_: Any) -> CFCLearner:  # fmt: skip
    initial = None
    try:
        from classifiers.datasets import load_pack
        from classifiers.page_classifier import OFFTOPIC

        pos = load_pack(domain).pages
        neg = load_pack(OFFTOPIC).pages
        if pos and neg:
            initial = warm_start(pos, neg, random_state)
    except (UsageError, OSError, ValueError):  # no usable pack: starts untrained
        initial = None
    return CFCLearner(initial=initial, on_learning=_recorder(catalogue, run_id))


@register("learner", "tres")
def _tres(domain: str, settings: Settings, random_state: int, strategy: Strategy | None = None,
          catalogue: Catalogue | None = None, run_id: int | None = None,
          **_: Any) -> Any:  # fmt: skip
    from formhunter.keywords import domain_keywords
    from formhunter.tres.learner import TreeLearner
    from formhunter.tres.policy import load_policy

    ts = settings.tres
    policy = load_policy(ts.policy)[0] if ts.policy else None
    strategy = strategy if strategy is not None else get_strategy("tres")
    return TreeLearner(domain, domain_keywords(domain), ts,
                       on_topic_threshold=strategy.on_topic_threshold,
                       policy=policy, random_state=random_state,
                       on_learning=_recorder(catalogue, run_id))  # fmt: skip


@register("learner", "tres-lite")
def _tres_lite(domain: str, settings: Settings, random_state: int,
               strategy: Strategy | None = None, catalogue: Catalogue | None = None,
               run_id: int | None = None, **_: Any) -> Any:  # fmt: skip
    from formhunter.tres.lite import build_learner

    return build_learner(domain, settings,
                         strategy if strategy is not None else get_strategy("tres-lite"),
                         random_state, _recorder(catalogue, run_id))  # fmt: skip
