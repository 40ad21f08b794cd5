"""The stage components of a crawl (page classifier, critic, link scorer, learners), built
by name from the settings and the strategy (registries), and the learners' saved states
given back to them (``restore_learners``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from formhunter.catalogue import Catalogue
from formhunter.config import Settings
from formhunter.exceptions import StateFormatError
from formhunter.interfaces import FormCritic, Learner, LinkScorer, PageClassifier
from formhunter.stats import CrawlStats
from formhunter.strategies import Strategy, build

log = logging.getLogger(__name__)

@dataclass
class Components:
    """The stage components of a crawl, built by name from settings and strategy."""

    page_classifier: PageClassifier
    critic: FormCritic
    scorer: LinkScorer
    learners: list[tuple[str, Learner]] = field(default_factory=list)

    @classmethod
    def build(cls, settings: Settings, strategy: Strategy, *, catalogue: Catalogue | None = None,
              run_id: int = 0) -> Components:  # fmt: skip
        """Settings name a component where they override the strategy's choice."""
        c = settings.crawl
        ctx = {
            "domain": c.domain, "settings": settings, "strategy": strategy,
            "models_dir": c.models_dir or None, "model": c.model or None,
            "random_state": c.random_state,
            "catalogue": catalogue, "run_id": run_id,
        }  # fmt: skip
        pc: PageClassifier = build("page_classifier", c.page_classifier or strategy.page_classifier,
                                   **ctx)  # fmt: skip
        critic: FormCritic = build("critic", c.critic or strategy.critic, **ctx)
        scorer: LinkScorer = build("scorer", c.scorer or strategy.scorer, **ctx)
        learners: list[tuple[str, Learner]] = [(n, build("learner", n, **ctx))
                                               for n in strategy.learners]  # fmt: skip
        return cls(pc, critic, scorer, learners)

    def models(self) -> dict[str, Any]:
        """What ``runs.models`` records: the critic's name and its trained models
        (``FormCritic.models``, by role)."""
        return {"critic": type(self.critic).__name__, **self.critic.models()}

    def names(self) -> dict[str, str]:
        """Class names by role, as the run log and ``Engine.components`` show them."""
        return {
            "page_classifier": type(self.page_classifier).__name__,
            "critic": type(self.critic).__name__, "scorer": type(self.scorer).__name__,
            "learners": ",".join(type(x).__name__ for _, x in self.learners) or "-",
        }  # fmt: skip


def restore_learners(components: Components, states: dict[str, bytes],
                      stats: CrawlStats) -> None:  # fmt: skip
    """Give each learner its saved state (``Learner.restore``); the scorer a learner
    had handed out scores again. A state that does not load is a fault, and that
    learner starts afresh."""
    for name, learner in components.learners:
        state = states.get(name)
        if not state:
            continue
        try:
            scorer = learner.restore(state)
        except StateFormatError as exc:
            stats.faults[f"learner-state:{name}"] += 1
            log.warning("%s; learner %s relearns", exc, name)
            continue
        except Exception:
            stats.faults[f"learner-state:{name}"] += 1
            log.exception("the saved state of learner %s did not load; it starts afresh", name)
            continue
        if scorer is not None:
            components.scorer = scorer
