"""``TreeLearner``: ``--strategy tres`` as a Learner that owns the Tree-Frontier.

The strategy ``tres`` names the learner ``tres`` and the frontier ``tree``; the
pipeline builds the learners first, then the frontier (``formhunter.frontier.family``),
whose factory asks this learner to ``open_frontier`` over the run's store. From
then on the crawl is the ``formhunter.tres.crawler`` loop body, through the
pipeline's ordinary calls:

1. ``TreeFrontier.next`` -- one candidate per leaf, the agent picks;
2. fetch, parse, classify, judge as for every strategy;
3. ``observe(outcome)`` (page) or ``failed(link, lid)`` (no page): reward, path
   state, one transition for the agent, one experience sample for the tree (rebuilt
   every ``[tres] rebuild_every`` samples) -- before the batch's outlinks are added;
4. ``TreeFrontier.add_scored`` -- the outlinks featurised from their parents'
   state and routed to leaves (the link scorer's levels/scores are ignored).

``finish()`` saves the policy to ``[tres] policy_out`` (if set) at the end of the
crawl; ``[tres] policy`` seeds the agent, tree and keywords of a new crawl.
Each tree rebuild is a learning iteration (catalogue ``learning_iterations``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from formhunter.config import FrontierSettings, TresSettings
from formhunter.frontier import FrontierStore
from formhunter.frontier.levels import ReadyIn
from formhunter.interfaces import LinkRecord, LinkScorer, PageOutcome
from formhunter.learners.base import LearningIteration, dump_state, load_state
from formhunter.tres.agent import DDQNAgent
from formhunter.tres.crawler import Tres
from formhunter.tres.keywords import KeywordSet
from formhunter.tres.policy import TresPolicy
from formhunter.tres.tree_frontier import TreeFrontier

OnLearning = Callable[[LearningIteration], None]

__all__ = ["TreeLearner"]


class TreeLearner:
    """The TRES agent and its Tree-Frontier in one crawl (module doc)."""

    def __init__(self, domain: str, keywords: Sequence[str], settings: TresSettings | None = None,
                 *, on_topic_threshold: float, policy: TresPolicy | None = None,
                 random_state: int = 0, on_learning: OnLearning | None = None) -> None:  # fmt: skip
        self.tres = Tres(domain, keywords, settings, policy=policy, random_state=random_state)
        self.settings = self.tres.settings
        self.threshold = on_topic_threshold
        self.on_learning = on_learning
        self.iterations: list[LearningIteration] = []
        self.saved: Path | None = None
        self._rebuilds = 0
        self._seconds_at_record = 0.0

    @property
    def frontier(self) -> TreeFrontier:
        return self.tres.frontier

    @property
    def agent(self) -> DDQNAgent:
        return self.tres.agent

    @property
    def keywords(self) -> KeywordSet:
        return self.tres.keywords

    @property
    def pages(self) -> int:
        return self.tres.core.pages

    @property
    def last_iteration(self) -> LearningIteration | None:
        return self.iterations[-1] if self.iterations else None

    def open_frontier(self, store: FrontierStore | None, settings: FrontierSettings, *,
                      ready_in: ReadyIn | None = None, per_host: int = 1,
                      resumed: bool = False) -> TreeFrontier:  # fmt: skip
        """The crawl's Tree-Frontier over ``store`` (a resumed run's queued links reloaded)."""
        fr = self.tres.open_frontier(store, settings, ready_in=ready_in, per_host=per_host)
        if resumed:
            fr.restore()
        return fr

    # -- Learner --------------------------------------------------------------------------

    def observe(self, outcome: PageOutcome) -> LinkScorer | None:
        page = outcome.page
        link = outcome.link or LinkRecord(page.url, page.site, page.depth)
        self.tres.observe_link(outcome.lid, link, page, outcome.page_score,
                               outcome.page_score >= self.threshold, outcome.verdicts)  # fmt: skip
        self._after()
        return None  # the tree re-organises itself; no scorer to swap in

    def failed(self, link: LinkRecord, lid: int) -> None:
        self.tres.observe_link(lid, link, None, 0.0, False, [])
        self._after()

    def finish(self) -> None:
        if self.settings.policy_out:
            self.saved = self.tres.save(self.settings.policy_out)

    def state(self) -> bytes:
        """The agent, keywords, path states, iterations and counters (``TresCore``, one
        pickle). The Tree-Frontier is not in it: ``--resume`` reloads the queued links
        from the store and the tree is grown again from new experience."""
        return dump_state("tres", {
            "core": self.tres.core, "iterations": self.iterations, "rebuilds": self._rebuilds,
            "seconds_at_record": self._seconds_at_record,
        })  # fmt: skip

    def restore(self, state: bytes) -> LinkScorer | None:
        v = load_state("tres", state)
        core = self.tres.core = v["core"]
        self.settings = self.tres.settings = core.settings
        self.iterations, self._seconds_at_record = v["iterations"], v["seconds_at_record"]
        fr = self.tres.frontier
        if fr is not None:  # built before the learners' states are restored: re-point it
            fr.featurize, fr.chooser = core.featurizer, core.agent
            self._rebuilds = fr.rebuilds
        else:
            self._rebuilds = v["rebuilds"]
        return None

    def _after(self) -> None:
        n = self.frontier.rebuilds
        if n == self._rebuilds:
            return
        self._rebuilds = n
        core = self.tres.core
        st = self.agent.stats()
        it = LearningIteration(
            iteration=len(self.iterations) + 1, learner="tres", at_page=self.pages,
            n_paths=int(st["steps"]), seconds=core.seconds - self._seconds_at_record
            + self.frontier.last_rerank_seconds,
            features={"tree_leaves": self.frontier.n_leaves, "keywords": len(self.keywords),
                      "agent": st, "rebuild_seconds": self.frontier.last_rerank_seconds},
            note="tree rebuilt, frontier re-routed",
        )  # fmt: skip
        self._seconds_at_record = core.seconds
        self.iterations.append(it)
        if self.on_learning is not None:
            self.on_learning(it)

    # -- persistence ----------------------------------------------------------------------

    def policy(self) -> TresPolicy:
        return self.tres.policy()

    def save(self, directory: str | Path) -> Path:
        return self.tres.save(directory)
