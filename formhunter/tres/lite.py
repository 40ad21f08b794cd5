"""``tres-lite``: TRES's agent through today's engine, without the Tree-Frontier.

A first integration that needs no engine change: the Double DQN agent is a
``Learner`` and its Q-function a ``LinkScorer`` over the multi-level frontier.

- ``TresLearner.observe``: for every fetched page, the reward (forms first,
  ``formhunter.tres.reward``), the page's path state, one transition (features
  of the hop link, reward, a sample of the page's outlinks as next actions) for
  replay and DDQN updates, and keyword expansion from on-topic pages. Every
  ``[tres] rerank_every`` pages it returns its ``TresScorer``, so the engine
  re-ranks the whole frontier by Q (a synchronous update, which the
  Tree-Frontier exists to avoid; here it is paid once per ``rerank_every``
  pages instead of at every step).
- ``TresScorer.score``: level 0 for every link, score = Q(state, link) plus
  Gaussian noise of ``epsilon`` x the batch's Q spread (exploration; an
  epsilon-greedy pick has no equivalent in a priority queue).

Until the first re-rank the crawl is the baseline (links inherit the page's
score). What this cannot do, and the Tree-Frontier wiring will: one candidate
per leaf at each step, Q of the current state at selection time, and the hop's
features as they were when the link was added (here they are recomputed at the
fetch, from the same parent state; the site counters have moved on).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from formhunter.config import TresSettings
from formhunter.interfaces import LinkRecord, LinkScorer, PageOutcome, RecordScorer
from formhunter.learners.base import LearningIteration, LinkMemory, dump_state, load_state
from formhunter.tres.agent import DDQNAgent
from formhunter.tres.crawler import TresCore
from formhunter.tres.features import LinkFeaturizer
from formhunter.tres.policy import TresPolicy

OnLearning = Callable[[LearningIteration], None]

__all__ = ["TresLearner", "TresScorer"]


class TresScorer(RecordScorer):
    """Q-values of the live agent as a one-level LinkScorer (module doc)."""

    n_levels = 1

    def __init__(self, featurizer: LinkFeaturizer, agent: DDQNAgent,
                 random_state: int = 0) -> None:  # fmt: skip
        self.featurizer = featurizer
        self.agent = agent
        self.rng = np.random.default_rng(random_state)

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        if not links:
            return np.zeros(0, np.int64), np.zeros(0)
        q = self.agent.q_values(self.featurizer.transform(links))
        eps = self.agent.epsilon_at(self.agent.steps)
        if eps > 0 and len(q) > 1:
            q = q + self.rng.normal(0.0, eps * float(np.ptp(q)) + 1e-9, len(q))
        return np.zeros(len(q), np.int64), q


class TresLearner:
    """The agent, path states and keywords of a tres-lite crawl (module doc)."""

    def __init__(self, keywords: Sequence[str], settings: TresSettings | None = None, *,
                 on_topic_threshold: float, domain: str = "",
                 policy: TresPolicy | None = None, random_state: int = 0,
                 on_learning: OnLearning | None = None) -> None:  # fmt: skip
        self.core = TresCore(domain, keywords, settings, policy=policy,
                             random_state=random_state)  # fmt: skip
        self.settings = self.core.settings
        self.threshold = on_topic_threshold
        self.agent = self.core.agent
        self.keywords = self.core.keywords
        self.scorer = TresScorer(self.core.featurizer, self.agent, random_state)
        self.memory = LinkMemory(max_fetched=200_000, max_pending=200_000)
        self.on_learning = on_learning
        self.iterations: list[LearningIteration] = []
        self._since_rerank = 0
        self._seconds_at_record = 0.0
        self._handed_out = False  # the scorer was returned (restore returns it again)

    def state(self) -> bytes:
        """Agent, path states, keywords, link memory, iterations and counters (one
        pickle: the scorer shares the core's featurizer and agent)."""
        return dump_state("tres-lite", {
            "core": self.core, "scorer": self.scorer, "memory": self.memory,
            "iterations": self.iterations, "since_rerank": self._since_rerank,
            "seconds_at_record": self._seconds_at_record, "handed_out": self._handed_out,
        })  # fmt: skip

    def restore(self, state: bytes) -> LinkScorer | None:
        v = load_state("tres-lite", state)
        self.core, self.scorer, self.memory = v["core"], v["scorer"], v["memory"]
        self.settings, self.agent, self.keywords = (self.core.settings, self.core.agent,
                                                    self.core.keywords)  # fmt: skip
        self.iterations, self._since_rerank = v["iterations"], v["since_rerank"]
        self._seconds_at_record, self._handed_out = v["seconds_at_record"], v["handed_out"]
        return self.scorer if self._handed_out else None

    @property
    def pages(self) -> int:
        return self.core.pages

    @property
    def last_iteration(self) -> LearningIteration | None:
        return self.iterations[-1] if self.iterations else None

    def observe(self, outcome: PageOutcome) -> LinkScorer | None:
        page = outcome.page
        hop = self.memory.observe(outcome)
        x = self.core.featurizer.transform([hop])[0]  # from the parent's state
        _, added = self.core.step(x, page.url, hop.parent_url, page.site, page.depth, page,
                                  outcome.page_score, outcome.page_score >= self.threshold,
                                  outcome.verdicts)  # fmt: skip
        self._since_rerank += 1
        if self._since_rerank < self.settings.rerank_every or self.agent.updates == 0:
            if added:
                self._record(added, note="keywords expanded")
            return None
        self._since_rerank = 0
        self._record(added, note="frontier re-ranked by Q")
        self._handed_out = True
        return self.scorer

    def failed(self, link: LinkRecord, lid: int) -> None:
        """tres-lite learns from fetched pages only (a hop's features need its page)."""

    def finish(self) -> None:
        """Save the policy to ``[tres] policy_out`` (if set) at the end of the crawl."""
        if self.settings.policy_out:
            self.save(self.settings.policy_out)

    def _record(self, added: list[str], note: str) -> None:
        st = self.agent.stats()
        it = LearningIteration(
            iteration=len(self.iterations) + 1, learner="tres-lite", at_page=self.pages,
            n_paths=int(st["steps"]), seconds=self.core.seconds - self._seconds_at_record,
            features={"keywords_added": added, "keywords": len(self.keywords), "agent": st},
            note=note,
        )  # fmt: skip
        self._seconds_at_record = self.core.seconds
        self.iterations.append(it)
        if self.on_learning is not None:
            self.on_learning(it)

    def policy(self) -> TresPolicy:
        return self.core.policy()

    def save(self, directory: str | Path) -> Path:
        """Save the agent and keywords with a manifest (no tree: tres-lite has none)."""
        return self.core.save(directory)


def build_learner(domain: str, settings: Any, strategy: Any, random_state: int,
                  on_learning: OnLearning | None) -> TresLearner:  # fmt: skip
    """The registered learner's body (``formhunter.learners``)."""
    from formhunter.keywords import domain_keywords
    from formhunter.tres.policy import load_policy

    ts: TresSettings = settings.tres
    policy = load_policy(ts.policy)[0] if ts.policy else None
    return TresLearner(domain_keywords(domain), ts, domain=domain,
                       on_topic_threshold=float(strategy.on_topic_threshold), policy=policy,
                       random_state=random_state, on_learning=on_learning)  # fmt: skip
