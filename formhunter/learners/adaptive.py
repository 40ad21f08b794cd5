"""ACHE's adaptive link learner (Barbosa & Freire 2007, §3.2-3.3, Algorithm 1).

``PathRepository`` keeps, for every page where a new relevant form was found,
the links of the path that led to it: the hop into the form page is a level-0
instance, the hop into its parent level 1, and so on up to ``n_levels - 1``.
``AdaptiveLinkLearner.observe`` feeds it; when ``threshold`` new relevant forms
have been found since the last iteration, it runs automatic feature selection,
trains a multi-level naive Bayes link classifier on all paths (plus background
links: fetched links on no path) and returns it as a ``LinkClassifierScorer``,
so that the engine re-ranks the whole frontier. Every iteration is recorded
(``iterations``; ``on_learning`` callback, e.g. the catalogue).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from classifiers.link_classifier import MultiLevelLinkClassifier
from classifiers.link_tokens import WORD_SPACES, TokenizedLinks
from formhunter.config import LearningSettings
from formhunter.interfaces import LinkRecord, LinkScorer, PageOutcome
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


class LinkClassifierScorer(FrameScorer):
    """A fitted multi-level link classifier as a LinkScorer: level = predicted
    distance band (background last), score = probability of that band."""

    def __init__(self, model: MultiLevelLinkClassifier) -> None:
        self.model = model
        self.n_levels = int(model.n_bands)
        self.weights = TokenWeights()

    @property
    def token_spaces(self) -> tuple[str, ...] | None:
        return WORD_SPACES

    def score_tokens(self, links: TokenizedLinks) -> tuple[np.ndarray, np.ndarray]:
        if links.n == 0:
            return np.zeros(0, np.int64), np.zeros(0)
        return self.model.predict_level_tokens(
            links, self.weights.get(links.words, self.model.token_weights))

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        frame = normalise_frame(frame)
        if len(frame) == 0:
            return np.zeros(0, np.int64), np.zeros(0)
        return self.model.predict_level(frame)


class PathRepository:
    """Links on paths to relevant forms, by level (module doc)."""

    def __init__(self, n_levels: int = 3) -> None:
        self.n_levels = n_levels
        self.instances: dict[tuple[str, int], LinkRecord] = {}
        self.paths: list[list[str]] = []
        self.form_pages: set[str] = set()

    def add(self, path: list[str], memory: LinkMemory) -> int:
        """Add the path (seed -> ... -> form page) of a relevant form; returns the
        number of hop instances it contributed (the seed itself is no hop)."""
        if not path:
            return 0
        self.paths.append(list(path))
        self.form_pages.add(path[-1])
        added = 0
        for level in range(min(self.n_levels, len(path) - 1)):
            url = path[-1 - level]
            rec = memory.hop(url) or LinkRecord(url, "", 0, parent_url=path[-2 - level])
            key = (url, level)
            if key not in self.instances:
                self.instances[key] = rec
                added += 1
        return added

    def urls(self) -> set[str]:
        return {u for u, _ in self.instances}

    def frame(self) -> tuple[pd.DataFrame, np.ndarray]:
        keys = list(self.instances)
        frame = links_frame([self.instances[k] for k in keys])
        return frame, np.asarray([lv for _, lv in keys], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.paths)


class AdaptiveLinkLearner:
    """Learner: ACHE's online link learning (module doc).

    Parameters: ``threshold`` new relevant forms per iteration (ACHE: 100 on the
    real Web; 10 here by default, see ``formhunter.learners.DEFAULT_THRESHOLD``);
    ``retrain_pages``: also an iteration when so many pages passed since the last
    one and at least one new relevant form was found meanwhile (0: off);
    ``initial_ratio``: at most so many ``initial`` instances per instance of the
    crawl's own in each level, sampled anew each iteration (0: all of them);
    ``n_levels`` link levels (3); ``background`` and ``background_ratio``
    (background links per path instance); ``classifier`` parameters of
    ``MultiLevelLinkClassifier``; ``initial`` (frame, levels) training instances
    kept in every iteration (ache-offline-online starts from the offline paths);
    ``name`` recorded with each iteration.
    """

    def __init__(
        self,
        threshold: int = LearningSettings.threshold,
        n_levels: int = LearningSettings.path_length,
        *,
        background: bool = True,
        background_ratio: float = 1.0,
        classifier: dict[str, Any] | None = None,
        initial: tuple[pd.DataFrame, np.ndarray] | None = None,
        memory: LinkMemory | None = None,
        random_state: int = 0,
        name: str = "ache-online",
        on_learning: Callable[[LearningIteration], None] | None = None,
        retrain_pages: int = LearningSettings.retrain_pages,
        initial_ratio: float = 0.0,
        stall_pages: int = LearningSettings.stall_pages,
    ) -> None:
        if threshold < 1:
            raise ValueError("threshold must be at least 1")
        if retrain_pages < 0:
            raise ValueError("retrain_pages must not be negative")
        self.threshold = threshold
        self.retrain_pages = retrain_pages
        self.stall_pages = stall_pages
        self.last_new_page = 0  # page count when the last new relevant form was found
        self.initial_ratio = initial_ratio
        self.n_levels = n_levels
        self.background = background
        self.background_ratio = background_ratio
        # Online paths come from few sites at first: a term must be seen on two sites.
        self.classifier_params = {"min_sites": 2, **(classifier or {})}
        self.initial = initial
        self.memory = memory or LinkMemory()
        self.rng = np.random.default_rng(random_state)
        self.name = name
        self.on_learning = on_learning
        self.repository = PathRepository(n_levels)
        self.relevant_forms: set[tuple[str, str]] = set()
        self.new_since_learning = 0
        self.pages_seen = 0
        self.last_try_page = 0  # page count at the last learning attempt
        self.iterations: list[LearningIteration] = []
        self.model: MultiLevelLinkClassifier | None = None

    @property
    def last_iteration(self) -> LearningIteration | None:
        return self.iterations[-1] if self.iterations else None

    def failed(self, link: LinkRecord, lid: int) -> None:
        """A fetch without a page teaches this learner nothing."""

    def finish(self) -> None:
        """Nothing to save at the end of a crawl."""

    def state(self) -> bytes:
        """Path repository, relevant forms, counters, link memory and current model."""
        return dump_state("adaptive", {
            "repository": self.repository, "relevant_forms": self.relevant_forms,
            "new_since_learning": self.new_since_learning, "pages_seen": self.pages_seen,
            "iterations": self.iterations, "model": self.model, "memory": self.memory,
            "rng": self.rng, "last_new_page": self.last_new_page,
        })  # fmt: skip

    def restore(self, state: bytes) -> LinkScorer | None:
        v = load_state("adaptive", state)
        self.repository, self.relevant_forms = v["repository"], v["relevant_forms"]
        self.new_since_learning, self.pages_seen = v["new_since_learning"], v["pages_seen"]
        self.iterations, self.model, self.rng = v["iterations"], v["model"], v["rng"]
        self.memory = v["memory"]
        self.last_new_page = v.get("last_new_page", 0)
        return LinkClassifierScorer(self.model) if self.model is not None else None

    def observe(self, outcome: PageOutcome) -> LinkScorer | None:
        self.pages_seen += 1
        self.memory.observe(outcome)
        page = outcome.page
        new = 0
        for form, verdict in zip(page.forms, outcome.verdicts, strict=False):
            if verdict.relevant:
                key = (page.site, form.signature)
                if key not in self.relevant_forms:
                    self.relevant_forms.add(key)
                    new += 1
        if new:
            self.repository.add(list(outcome.path) or [page.url], self.memory)
            self.new_since_learning += new
            self.last_new_page = self.pages_seen
        if self.new_since_learning >= self.threshold and new:
            return self.learn()
        # On a page schedule too: a crawl that finds few forms keeps learning.
        if (self.retrain_pages and self.new_since_learning
                and self.pages_seen - self.last_try_page >= self.retrain_pages):  # fmt: skip
            return self.learn()
        # A model that finds nothing learns from its own misses: the links it chose since.
        if (self.stall_pages and self.model is not None
                and self.pages_seen - max(self.last_new_page, self.last_try_page)
                >= self.stall_pages):  # fmt: skip
            return self.learn(misses=self.pages_seen - self.last_try_page)
        return None

    def training_set(self, misses: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
        """Path instances (+ initial instances) and sampled background links; with
        ``misses``, half the background comes from the last ``misses`` fetched links."""
        frame, levels = self.repository.frame()
        if self.initial is not None:
            ini_frame, ini_levels = self.initial[0], np.asarray(self.initial[1], np.int64)
            if self.initial_ratio > 0:
                ini_frame, ini_levels = self._balanced_initial(ini_frame, ini_levels, levels)
            frame = pd.concat([ini_frame, frame], ignore_index=True)
            levels = np.concatenate([ini_levels, levels])
        if self.background:
            on_path = self.repository.urls() | self.repository.form_pages
            pool = [rec for url, rec in self.memory.fetched.items() if url not in on_path]
            n_bg = min(len(pool), int(np.ceil(self.background_ratio * max(len(levels), 1))))
            if n_bg:
                recent = min(misses, len(pool))
                n_recent = min(recent, max(n_bg // 2, n_bg - (len(pool) - recent)))
                pick = self.rng.choice(len(pool) - recent, size=n_bg - n_recent, replace=False)
                if n_recent:
                    pick = np.concatenate([pick, len(pool) - recent + self.rng.choice(
                        recent, size=n_recent, replace=False)])  # fmt: skip
                bg = links_frame([pool[i] for i in sorted(pick)])
                frame = pd.concat([frame, bg], ignore_index=True)
                levels = np.concatenate([levels, np.full(len(pick), self.n_levels, np.int64)])
        return frame, levels

    def _balanced_initial(self, frame: pd.DataFrame, levels: np.ndarray, own: np.ndarray
                          ) -> tuple[pd.DataFrame, np.ndarray]:  # fmt: skip
        """At most ``initial_ratio`` initial instances per own instance of each level
        (at least ``initial_ratio`` when the crawl has none yet), sampled."""
        keep: list[np.ndarray] = []
        for lv in np.unique(levels):
            idx = np.flatnonzero(levels == lv)
            cap = int(np.ceil(self.initial_ratio * max(int(np.sum(own == lv)), 1)))
            if len(idx) > cap:
                idx = np.sort(self.rng.choice(idx, size=cap, replace=False))
            keep.append(idx)
        pick = np.sort(np.concatenate(keep)) if keep else np.zeros(0, np.int64)
        return frame.iloc[pick].reset_index(drop=True), levels[pick]

    def learn(self, misses: int = 0) -> LinkClassifierScorer | None:
        """One learning iteration (ACHE Alg. 1, lines 2-5); None if there is no path.
        ``misses``: see ``training_set``."""
        t0 = time.perf_counter()
        self.last_try_page = self.pages_seen
        frame, levels = self.training_set(misses)
        if not np.any(levels < self.n_levels):
            return None
        model = MultiLevelLinkClassifier(
            n_levels=self.n_levels, background=self.background, **self.classifier_params
        )
        try:
            model.fit(frame, levels)
        except ValueError as exc:
            self._record(time.perf_counter() - t0, {}, f"not trained: {exc}")
            return None
        self.model = model
        self.new_since_learning = 0
        self._record(
            time.perf_counter() - t0,
            {"features": model.features_, "instances": model.n_train_},
            f"{len(self.relevant_forms)} relevant forms",
        )
        return LinkClassifierScorer(model)

    def _record(self, seconds: float, features: dict[str, Any], note: str) -> None:
        it = LearningIteration(
            iteration=len(self.iterations) + 1,
            learner=self.name,
            at_page=self.pages_seen,
            n_paths=len(self.repository),
            seconds=round(seconds, 4),
            features=features,
            note=note,
        )
        self.iterations.append(it)
        if self.on_learning is not None:
            self.on_learning(it)
