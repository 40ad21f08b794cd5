"""The apprentice as a learner and as a layer over another scorer.

``ApprenticeLearner.observe`` turns every fetched page v into a training pair:
the features of the link (u, v) that reached it (its ``dom_terms`` and the
parent score Pr(topic | u)) labelled with the page classifier's Pr(topic | v).
Pairs are learned in batches (``batch_size``; the paper used a few hundred to
a few thousand pages) with ``partial_fit``; after each batch a new
``ApprenticeScorer`` is returned and the frontier is re-ranked.

``ApprenticeScorer`` is a layer: the band comes from a base scorer (the link
learner's level, or one band when there is none), the order within the band
is Pr(v on topic), and links whose Pr(v on topic) is below ``sink_below`` go
to an extra last band (they lead off topic; fetched only when all else is
done). ``LayeredLearner`` runs a link learner and an apprentice together and
returns the layered scorer whenever either of them learned something
(strategy ``ache-apprentice``).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from classifiers.apprentice import Apprentice
from classifiers.link_tokens import DOM_SPACE, TokenizedLinks
from formhunter.interfaces import LinkRecord, LinkScorer, PageOutcome
from formhunter.learners.adaptive import AdaptiveLinkLearner
from formhunter.learners.base import (
    FrameScorer,
    LearningIteration,
    LinkMemory,
    TokenWeights,
    dump_state,
    links_frame,
    load_state,
    normalise_frame,
)


class ApprenticeScorer(FrameScorer):
    """Layer (module doc). ``apprentice`` None = base order, no sinking."""

    def __init__(
        self,
        apprentice: Apprentice | None,
        base: LinkScorer | None = None,
        *,
        sink_below: float = 0.2,
    ) -> None:
        self.apprentice = apprentice
        self.base = base
        self.sink_below = sink_below
        base_levels = base.n_levels if base is not None else 1
        self.n_levels = base_levels + 1
        self.sunk = 0  # links put in the sink band by the last scoring calls
        self.weights = TokenWeights()

    @property
    def token_spaces(self) -> tuple[str, ...] | None:
        base = () if self.base is None else self.base.token_spaces
        if base is None:
            return None
        return base if self.apprentice is None else (*base, DOM_SPACE)

    def score_tokens(self, links: TokenizedLinks) -> tuple[np.ndarray, np.ndarray]:
        if links.n == 0:
            return np.zeros(0, np.int64), np.zeros(0)
        if self.base is None:
            levels, base_scores = np.zeros(links.n, np.int64), links.parent_score
        else:
            levels, base_scores = self.base.score_tokens(links)
            levels = np.asarray(levels, np.int64)
        if self.apprentice is None:
            return levels, np.asarray(base_scores, np.float64)
        weights = self.weights.get(links.dom, self.apprentice.token_weights)
        return self._sink(levels, self.apprentice.relevance_tokens(links, weights))

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        frame = normalise_frame(frame)
        n = len(frame)
        if n == 0:
            return np.zeros(0, np.int64), np.zeros(0)
        if self.base is None:
            levels = np.zeros(n, np.int64)
            base_scores = frame["parent_score"].to_numpy(np.float64) if "parent_score" in frame \
                else np.zeros(n)  # fmt: skip
        else:
            levels, base_scores = self.base.score_frame(frame)
            levels = np.asarray(levels, np.int64)
        if self.apprentice is None:
            return levels, np.asarray(base_scores, np.float64)
        return self._sink(levels, self.apprentice.relevance(frame))

    def _sink(self, levels: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        levels = levels.copy()
        sink = p < self.sink_below
        levels[sink] = self.n_levels - 1
        self.sunk += int(sink.sum())
        return levels, p


class ApprenticeLearner:
    """Learner: trains the apprentice online from (u, v) pairs (module doc).

    ``min_instances`` pairs are needed before the first scorer is returned; the
    first batch waits for both on-topic and off-topic targets.
    """

    def __init__(
        self,
        batch_size: int = 250,
        min_instances: int = 250,
        *,
        sink_below: float = 0.2,
        apprentice: dict[str, Any] | None = None,
        memory: LinkMemory | None = None,
        base: LinkScorer | None = None,
        name: str = "apprentice",
        on_learning: Callable[[LearningIteration], None] | None = None,
    ) -> None:
        self.batch_size = batch_size
        self.min_instances = min_instances
        self.sink_below = sink_below
        self.model = Apprentice(**(apprentice or {}))
        self.memory = memory or LinkMemory()
        self.base = base
        self.name = name
        self.on_learning = on_learning
        self.buffer: list[LinkRecord] = []
        self.labels: list[float] = []
        self.pages_seen = 0
        self.trained = False
        self.iterations: list[LearningIteration] = []

    @property
    def last_iteration(self) -> LearningIteration | None:
        return self.iterations[-1] if self.iterations else None

    def state(self) -> bytes:
        """The apprentice model, the pairs waiting, counters and the link memory."""
        return dump_state("apprentice", self._values())

    def _values(self) -> dict[str, Any]:
        return {"model": self.model, "memory": self.memory, "buffer": self.buffer,
                "labels": self.labels, "pages_seen": self.pages_seen,
                "trained": self.trained, "iterations": self.iterations}  # fmt: skip

    def restore(self, state: bytes) -> LinkScorer | None:
        self._set(load_state("apprentice", state))
        return self.scorer() if self.trained else None

    def _set(self, v: dict[str, Any]) -> None:
        self.model, self.memory, self.buffer = v["model"], v["memory"], v["buffer"]
        self.labels, self.pages_seen = v["labels"], v["pages_seen"]
        self.trained, self.iterations = v["trained"], v["iterations"]

    def add_pair(self, outcome: PageOutcome, hop: LinkRecord) -> None:
        """Queue the pair (hop link, Pr(topic | v)). Seeds (no parent) are skipped."""
        if not hop.parent_url:
            return
        self.buffer.append(hop)
        self.labels.append(float(outcome.page_score))

    def failed(self, link: LinkRecord, lid: int) -> None:
        """A fetch without a page teaches this learner nothing."""

    def finish(self) -> None:
        """Nothing to save at the end of a crawl."""

    def observe(self, outcome: PageOutcome, *, hop: LinkRecord | None = None) -> LinkScorer | None:
        self.pages_seen += 1
        if hop is None:
            hop = self.memory.observe(outcome)
        self.add_pair(outcome, hop)
        if self.train_if_ready():
            return self.scorer()
        return None

    def train_if_ready(self) -> bool:
        """Learn the buffered batch when it is large enough; True if it learned."""
        needed = self.batch_size if self.trained else max(self.batch_size, self.min_instances)
        if len(self.buffer) < needed:
            return False
        y = np.asarray(self.labels)
        if not self.trained and len(np.unique(y >= self.model.threshold)) < 2:
            return False  # wait for both kinds of targets
        t0 = time.perf_counter()
        frame = links_frame(self.buffer)
        self.model.partial_fit(frame, y)
        self.trained = True
        n = len(self.buffer)
        self.buffer, self.labels = [], []
        it = LearningIteration(
            iteration=len(self.iterations) + 1, learner=self.name, at_page=self.pages_seen,
            n_paths=n, seconds=round(time.perf_counter() - t0, 4),
            features={"pairs": int(self.model.n_seen_), "batches": int(self.model.n_batches_),
                      "on_topic_share": round(float(np.mean(y >= self.model.threshold)), 4)},
            note="apprentice batch",
        )
        self.iterations.append(it)
        if self.on_learning is not None:
            self.on_learning(it)
        return True

    def scorer(self, base: LinkScorer | None = None) -> ApprenticeScorer:
        """A snapshot of the current apprentice layered over ``base`` (or self.base)."""
        snap = copy.deepcopy(self.model) if self.trained else None
        return ApprenticeScorer(snap, base if base is not None else self.base,
                                sink_below=self.sink_below)  # fmt: skip


class LayeredLearner:
    """ACHE's link learner with the apprentice as a layer within its levels."""

    def __init__(self, links: AdaptiveLinkLearner, apprentice: ApprenticeLearner,
                 base: LinkScorer | None = None) -> None:  # fmt: skip
        self.links = links
        self.apprentice = apprentice
        self.apprentice.memory = links.memory  # one memory for both
        self.base = base
        self.link_scorer: LinkScorer | None = None

    @property
    def iterations(self) -> list[LearningIteration]:
        return sorted(self.links.iterations + self.apprentice.iterations, key=lambda i: i.at)

    @property
    def last_iteration(self) -> LearningIteration | None:
        its = self.iterations
        return its[-1] if its else None

    def failed(self, link: LinkRecord, lid: int) -> None:
        self.links.failed(link, lid)
        self.apprentice.failed(link, lid)

    def finish(self) -> None:
        self.links.finish()
        self.apprentice.finish()

    def state(self) -> bytes:
        """Both learners' states (one pickle: they share the link memory) and the
        link learner's last scorer."""
        return dump_state("layered", {"links": self.links.state(),
                                      "apprentice": self.apprentice._values(),
                                      "link_scorer": self.link_scorer})  # fmt: skip

    def restore(self, state: bytes) -> LinkScorer | None:
        v = load_state("layered", state)
        self.links.restore(v["links"])
        self.apprentice._set(v["apprentice"])
        self.apprentice.memory = self.links.memory  # one memory for both
        self.link_scorer = v["link_scorer"]
        if self.link_scorer is None and not self.apprentice.trained:
            return None
        return self.apprentice.scorer(self.link_scorer or self.base)

    def observe(self, outcome: PageOutcome) -> LinkScorer | None:
        new_links = self.links.observe(outcome)  # also updates the shared memory
        hop = self.links.memory.hop(outcome.page.url)
        self.apprentice.pages_seen += 1
        if hop is not None:
            self.apprentice.add_pair(outcome, hop)
        learned = self.apprentice.train_if_ready()
        if new_links is not None:
            self.link_scorer = new_links
        if new_links is None and not learned:
            return None
        return self.apprentice.scorer(self.link_scorer or self.base)
