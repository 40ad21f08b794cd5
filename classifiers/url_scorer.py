"""The Conservative Focused Crawler's URL scorer (Dhuliawala et al., ICON 2015).

A link is scored *before* it is fetched, from its URL and anchor and from what
is known about the pages that link to it. Four token pools hold the URL and
anchor tokens of links that led to in-domain and to out-of-domain pages, each
token weighted by its frequency in the pool. A link's eight features (paper
§4.1):

    0 url    . positive URL pool      4 parents' URLs . positive URL pool
    1 anchor . positive anchor pool   5 parents' URLs . negative URL pool
    2 url    . negative URL pool      6 mean score of the parents
    3 anchor . negative anchor pool   7 number of in-domain parents

where ``a . P`` is the weighted overlap: the mean pool weight of a's tokens, a
token's weight being log(1 + count) / log(1 + max count) in that pool (common,
uninformative tokens sit in both pools; domain tokens weigh more in one).

The classifier is a Gaussian naive Bayes trained online (``partial_fit``) batch
by batch ("per depth"); each batch's features are computed with the pools as
they were before the batch, then the batch's tokens join the pools. The score
is Pr(in domain).

Input columns: ``url``, ``anchor``, ``parent_urls`` (parents' URLs joined by
spaces; falls back to ``parent_url``), ``parent_score`` (mean over parents)
and ``n_parents_in`` (in-domain parents; falls back to parent_score >= 0.5).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.validation import check_is_fitted

from classifiers.link_features import (
    _keep,
    as_frame,
    numeric_column,
    raw_tokens,
    string_column,
    tokenize_column,
)

FEATURES = (
    "url_pos", "anchor_pos", "url_neg", "anchor_neg",
    "parents_url_pos", "parents_url_neg", "parents_score", "parents_in",
)  # fmt: skip
POOLS = ("url_pos", "anchor_pos", "url_neg", "anchor_neg")
#: Up to this many links, features are computed in Python (kernel set-up costs more).
SMALL = 2_000
_CLASSES = np.array([0, 1])


class TokenPools:
    """The four token pools with frequency weights."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter[str]] = {p: Counter() for p in POOLS}
        self._weights: dict[str, dict[str, float]] | None = None

    def add(self, urls: list[str], anchors: list[str], labels: np.ndarray) -> None:
        for url, anchor, lab in zip(urls, anchors, labels, strict=True):
            side = "pos" if lab else "neg"
            self.counts[f"url_{side}"].update(url_tokens(url))
            self.counts[f"anchor_{side}"].update(anchor_tokens(anchor))
        self._weights = None

    def weights(self, pool: str) -> dict[str, float]:
        c = self.counts[pool]
        if not c:
            return {}
        top = float(np.log1p(max(c.values())))
        return {t: float(np.log1p(n)) / top for t, n in c.items()}

    def all_weights(self) -> dict[str, dict[str, float]]:
        """The weights of every pool, cached until the pools change."""
        if self._weights is None:
            self._weights = {p: self.weights(p) for p in POOLS}
        return self._weights

    def sizes(self) -> dict[str, int]:
        return {p: len(c) for p, c in self.counts.items()}


def url_tokens(url: str) -> list[str]:
    return [t for t in raw_tokens(url, url=True) if _keep(t, True)]


def anchor_tokens(text: str) -> list[str]:
    return [t for t in raw_tokens(text) if _keep(t, False)]


def weighted_overlaps(
    texts: pa.Array, pools: Sequence[dict[str, float]], *, url: bool
) -> list[np.ndarray]:
    """For each pool, the mean pool weight of each row's tokens (0 for rows
    without tokens). The column is tokenised once; columnar but for one dict
    look-up per distinct token and pool."""
    n = len(texts)
    if n <= SMALL:  # a page's outlinks: plain Python beats kernel set-up
        toks = [[t for t in raw_tokens(x or "", url=url) if _keep(t, url)]
                for x in texts.to_pylist()]  # fmt: skip
        return [np.array([sum(w.get(t, 0.0) for t in ts) / len(ts) if ts else 0.0
                          for ts in toks]) for w in pools]  # fmt: skip
    parents, codes, uniques = tokenize_column(texts, url=url)
    if not uniques:
        return [np.zeros(n) for _ in pools]
    arr = pa.array(uniques, pa.string())
    maybe = ~pc.or_(pc.less(pc.utf8_length(arr), 2), pc.utf8_is_digit(arr)).to_numpy(
        zero_copy_only=False
    )
    valid_u = np.fromiter((bool(m) and _keep(t, url) for t, m in zip(uniques, maybe, strict=True)),
                          bool, len(uniques))  # fmt: skip
    valid = valid_u[codes]
    rows = parents[valid]
    count = np.bincount(rows, minlength=n)
    out = []
    for weights in pools:
        w = np.fromiter((weights.get(t, 0.0) if ok else 0.0
                         for t, ok in zip(uniques, valid_u, strict=True)),
                        np.float64, len(uniques))  # fmt: skip
        total = np.bincount(rows, weights=w[codes][valid], minlength=n)
        out.append(np.divide(total, count, out=np.zeros(n), where=count > 0))
    return out


class ConservativeURLScorer(ClassifierMixin, BaseEstimator):
    """Online naive Bayes over token-pool overlaps and parent information.

    Learned: ``pools_`` (TokenPools), ``nb_`` (GaussianNB), ``classes_``,
    ``n_seen_``, ``n_batches_``.
    """

    def __init__(self, var_smoothing: float = 1e-6, in_domain_threshold: float = 0.5) -> None:
        self.var_smoothing = var_smoothing
        self.in_domain_threshold = in_domain_threshold

    def features(self, X: Any) -> np.ndarray:
        """The eight features per link (see module docstring)."""
        pools = self.pools_ if hasattr(self, "pools_") else TokenPools()
        frame = X if isinstance(X, pa.Table | pd.DataFrame) else as_frame(X)
        url = string_column(frame, "url")
        n = len(url)
        anchor = string_column(frame, "anchor")
        has_parents = (
            "parent_urls" in frame.column_names
            if isinstance(frame, pa.Table)
            else "parent_urls" in frame
        )
        parent_urls = string_column(frame, "parent_urls" if has_parents else "parent_url")
        ps = numeric_column(frame, "parent_score", n)
        has_in = (
            "n_parents_in" in frame.column_names
            if isinstance(frame, pa.Table)
            else "n_parents_in" in frame
        )
        n_in = (
            numeric_column(frame, "n_parents_in", n)
            if has_in
            else (ps >= self.in_domain_threshold).astype(np.float64)
        )
        w = pools.all_weights()
        url_pos, url_neg = weighted_overlaps(url, [w["url_pos"], w["url_neg"]], url=True)
        anchor_pos, anchor_neg = weighted_overlaps(
            anchor, [w["anchor_pos"], w["anchor_neg"]], url=False
        )
        par_pos, par_neg = weighted_overlaps(
            parent_urls, [w["url_pos"], w["url_neg"]], url=True
        )
        return np.column_stack(
            [url_pos, anchor_pos, url_neg, anchor_neg, par_pos, par_neg, ps, n_in]
        )

    def fit(self, X: Any, y: Any) -> ConservativeURLScorer:
        for attr in ("pools_", "nb_", "n_seen_", "n_batches_"):
            if hasattr(self, attr):
                delattr(self, attr)
        return self.partial_fit(X, y)

    def _init_state(self) -> None:
        if not hasattr(self, "pools_"):
            self.pools_ = TokenPools()
            self.nb_ = GaussianNB(var_smoothing=self.var_smoothing)
            self.classes_ = _CLASSES
            self.n_seen_ = 0
            self.n_batches_ = 0

    def update_pools(self, X: Any, y: Any) -> ConservativeURLScorer:
        """Add labelled links to the token pools only (the naive Bayes is unchanged)."""
        frame = as_frame(X) if not isinstance(X, pa.Table | pd.DataFrame) else X
        labels = (np.asarray(y, dtype=np.float64) >= self.in_domain_threshold).astype(np.int64)
        self._init_state()
        url = string_column(frame, "url").to_pylist()
        anchor = string_column(frame, "anchor").to_pylist()
        self.pools_.add(url, anchor, labels)
        return self

    def partial_fit(self, X: Any, y: Any, classes: Any = None) -> ConservativeURLScorer:
        """Learn one batch (one crawl depth): features with the current pools,
        then the batch joins the pools. ``y``: 1 in domain, 0 out (or Pr >= threshold)."""
        frame = as_frame(X) if not isinstance(X, pa.Table | pd.DataFrame) else X
        labels = (np.asarray(y, dtype=np.float64) >= self.in_domain_threshold).astype(np.int64)
        self._init_state()
        F = self.features(frame)
        if len(labels) != F.shape[0]:
            raise ValueError(f"X has {F.shape[0]} rows but y has {len(labels)}")
        if len(labels) == 0:
            return self
        self.nb_.partial_fit(F, labels, classes=_CLASSES)
        url = string_column(frame, "url").to_pylist()
        anchor = string_column(frame, "anchor").to_pylist()
        self.pools_.add(url, anchor, labels)
        self.n_seen_ += len(labels)
        self.n_batches_ += 1
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "nb_")
        F = self.features(X)
        if not hasattr(self.nb_, "class_count_") or np.any(self.nb_.class_count_ == 0):
            # nothing learned yet, or only one kind of page seen: no opinion
            return np.full((F.shape[0], 2), 0.5)
        return np.asarray(self.nb_.predict_proba(F))

    def predict(self, X: Any) -> np.ndarray:
        return (self.predict_proba(X)[:, 1] >= 0.5).astype(np.int64)

    def relevance(self, X: Any) -> np.ndarray:
        """Pr(link leads to an in-domain page)."""
        return self.predict_proba(X)[:, 1]
