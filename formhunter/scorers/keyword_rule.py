"""The keyword best-first reference: a rule, no learning.

``scorer/keyword``: one level; a link's score is its parent page's score under the
``keywords`` page classifier, 1 - 0.6 ** hits with hits the distinct domain keywords
the page holds (title hits counted twice), so links are fetched in order of how many
of the domain's keywords their parent page holds; equal parents: shallower first,
then discovery order.

Strategy ``keyword`` (``formhunter.strategies``) uses it with the ``keywords`` page
classifier, follows every outlink and applies no site limits, like the other
references (bfs, random): every learner in ``bench harvest`` is measured against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from formhunter.interfaces import LinkRecord

if TYPE_CHECKING:
    from classifiers.link_tokens import TokenizedLinks

#: Per hop of depth, less than the smallest gap between two parent scores (0.6**12 * 0.4).
DEPTH_TIE = 1e-6


class KeywordRuleScorer:
    """One level; score = parent page's keyword score, shallower first on ties."""

    n_levels = 1
    token_spaces: tuple[str, ...] | None = ()  # depth and parent score only

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        n = len(links)
        s = np.fromiter((lk.parent_score for lk in links), dtype=np.float64, count=n)
        d = np.fromiter((lk.depth for lk in links), dtype=np.float64, count=n)
        return np.zeros(n, dtype=np.int64), s - DEPTH_TIE * d

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        s = frame["parent_score"].to_numpy(dtype=np.float64)
        d = frame["depth"].to_numpy(dtype=np.float64)
        return np.zeros(len(s), dtype=np.int64), s - DEPTH_TIE * d

    def score_tokens(self, links: TokenizedLinks) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(links.n, dtype=np.int64), links.parent_score - DEPTH_TIE * links.depth
