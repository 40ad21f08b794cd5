"""Link scorers that need no model: breadth first, random, parent score."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from formhunter.interfaces import LinkRecord

if TYPE_CHECKING:
    from classifiers.link_tokens import TokenizedLinks


class BreadthFirstScorer:
    """One level; shallower links first (the frontier breaks ties by discovery order)."""

    n_levels = 1
    token_spaces: tuple[str, ...] | None = ()  # depth and parent score only

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        depth = np.fromiter((lk.depth for lk in links), dtype=np.float64, count=len(links))
        return np.zeros(len(links), dtype=np.int64), -depth

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        depth = frame["depth"].to_numpy(dtype=np.float64)
        return np.zeros(len(depth), dtype=np.int64), -depth

    def score_tokens(self, links: TokenizedLinks) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(links.n, dtype=np.int64), -links.depth


class RandomScorer:
    """One level, uniform random scores from a seeded generator."""

    n_levels = 1
    token_spaces: tuple[str, ...] | None = ()  # depth and parent score only

    def __init__(self, random_state: int = 0) -> None:
        self.rng = np.random.default_rng(random_state)

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(len(links), dtype=np.int64), self.rng.random(len(links))

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        n = len(frame)
        return np.zeros(n, dtype=np.int64), self.rng.random(n)

    def score_tokens(self, links: TokenizedLinks) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(links.n, dtype=np.int64), self.rng.random(links.n)


class ParentScoreScorer:
    """Best first: a link inherits its parent page's on-topic probability."""

    n_levels = 1
    token_spaces: tuple[str, ...] | None = ()  # depth and parent score only

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        s = np.fromiter((lk.parent_score for lk in links), dtype=np.float64, count=len(links))
        return np.zeros(len(links), dtype=np.int64), s

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        s = frame["parent_score"].to_numpy(dtype=np.float64)
        return np.zeros(len(s), dtype=np.int64), s

    def score_tokens(self, links: TokenizedLinks) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(links.n, dtype=np.int64), links.parent_score.copy()
