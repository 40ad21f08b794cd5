"""The apprentice of Chakrabarti, Punera & Subramanyam (WWW 2002).

For a link (u, v) found on page u, the apprentice estimates Pr(v on topic)
before v is fetched. Its features are <term, d> pairs: a term of u at DOM
offset d from the link's anchor (d = 0 inside the anchor, negative before,
positive after; |d| <= ``d_max``), plus the page classifier's probability for u
(bucketed, so that a multinomial naive Bayes can use it). It is trained online
in batches from pairs whose target v has been fetched and judged by the page
classifier (the critic); labels are two buckets, Pr(c*|v) >= ``threshold`` or
not, and the prediction is the probability of the high bucket (paper §2.3).

Input: links with ``dom_terms`` ("term@d" tokens joined by spaces, as
``LinkRecord.dom_terms``) and ``parent_score``. Tokens are hashed
(murmurhash3, stable across processes) into ``n_features`` columns so the
vocabulary can grow during the crawl without refitting; hashing runs once per
distinct token, the rest is columnar.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.naive_bayes import MultinomialNB
from sklearn.utils import murmurhash3_32
from sklearn.utils.validation import check_is_fitted

from classifiers.link_features import as_frame, numeric_column, string_column
from classifiers.link_tokens import (
    DOM_SPACE,
    NO_OFFSET,
    DomVocabulary,
    TokenizedLinks,
)

_CLASSES = np.array([0, 1])
#: Up to this many links, ``transform`` runs in Python (kernel set-up costs more).
SMALL = 2_000


@lru_cache(maxsize=500_000)
def _hashed(token: str, n_features: int) -> int:
    return int(murmurhash3_32(token, seed=0, positive=True)) % n_features


def offset_of(token: str) -> int | None:
    """The d of a "term@d" token (None when it carries no offset)."""
    at = token.rfind("@")
    if at < 0:
        return None
    try:
        return int(token[at + 1 :])
    except ValueError:
        return None


class Apprentice(ClassifierMixin, BaseEstimator):
    """Naive Bayes over <term, d> features of a link and the parent's topic score.

    fit(X, y) learns from scratch; partial_fit(X, y) adds a batch. ``y`` is
    Pr(c*|v) of the fetched target (or 0/1). Learned: ``nb_`` (MultinomialNB),
    ``classes_`` ([0, 1]), ``n_seen_`` (instances), ``n_batches_``.
    """

    def __init__(
        self,
        d_max: int = 5,
        n_features: int = 1 << 18,
        alpha: float = 0.5,
        threshold: float = 0.5,
        parent_bins: int = 5,
        parent_weight: float = 2.0,
    ) -> None:
        self.d_max = d_max
        self.n_features = n_features
        self.alpha = alpha
        self.threshold = threshold
        self.parent_bins = parent_bins
        self.parent_weight = parent_weight

    # -- features
    def _column_of(self, token: str) -> int:
        return _hashed(token, self.n_features)

    def _token_column(self, tok: str) -> int:
        """Column of a "term@d" token, -1 when |d| > d_max."""
        d = offset_of(tok)
        return -1 if d is not None and abs(d) > self.d_max else self._column_of(tok.lower())

    def transform(self, X: Any) -> sp.csr_matrix:
        """Hashed counts (n_links, n_features): <term, d> tokens and the parent's bucket."""
        frame = X if isinstance(X, pa.Table | pd.DataFrame) else as_frame(X)
        terms = string_column(frame, "dom_terms")
        n = len(terms)
        if n <= SMALL:  # a page's outlinks: plain Python beats kernel set-up
            rows_s: list[int] = []
            cols_s: list[int] = []
            for i, text in enumerate(terms.to_pylist()):
                for tok in (text or "").split():
                    c = self._token_column(tok)
                    if c >= 0:
                        rows_s.append(i)
                        cols_s.append(c)
            tokens = sp.csr_matrix((np.ones(len(rows_s)), (rows_s, cols_s)),
                                   shape=(n, self.n_features))  # fmt: skip
            return sp.csr_matrix(tokens + self._parent_matrix(frame, n))
        split = pc.utf8_split_whitespace(terms)
        parents = pc.list_parent_indices(split).to_numpy(zero_copy_only=False).astype(np.int64)
        flat = pc.list_flatten(split)
        nonempty = pc.greater(pc.utf8_length(flat), 0)
        if len(flat) and not pc.all(nonempty).as_py():
            parents = parents[nonempty.to_numpy(zero_copy_only=False)]
            flat = pc.filter(flat, nonempty)
        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        vals: list[np.ndarray] = []
        if len(flat):
            enc = pc.dictionary_encode(flat)
            codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
            uniques = enc.dictionary.to_pylist()
            col_of = np.fromiter((self._token_column(t) for t in uniques), np.int64, len(uniques))
            token_cols = col_of[codes]
            keep = token_cols >= 0
            rows.append(parents[keep])
            cols.append(token_cols[keep])
            vals.append(np.ones(int(keep.sum())))
        if not rows:
            return self._parent_matrix(frame, n)
        tokens = sp.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(n, self.n_features),
        )
        return sp.csr_matrix(tokens + self._parent_matrix(frame, n))

    def _parent_matrix(self, frame: pd.DataFrame | pa.Table, n: int) -> sp.csr_matrix:
        """The bucket of Pr(topic | u) as a pseudo-token of weight ``parent_weight``."""
        if self.parent_bins <= 0 or self.parent_weight <= 0:
            return sp.csr_matrix((n, self.n_features))
        ps = numeric_column(frame, "parent_score", n)
        bins = np.clip((ps * self.parent_bins).astype(np.int64), 0, self.parent_bins - 1)
        bin_cols = np.array(
            [self._column_of(f"__parent_topic@{b}") for b in range(self.parent_bins)]
        )
        return sp.csr_matrix(
            (np.full(n, float(self.parent_weight)), (np.arange(n), bin_cols[bins])),
            shape=(n, self.n_features),
        )

    # -- learning
    def _labels(self, y: Any) -> np.ndarray:
        return (np.asarray(y, dtype=np.float64) >= self.threshold).astype(np.int64)

    def fit(self, X: Any, y: Any) -> Apprentice:
        for attr in ("nb_", "n_seen_", "n_batches_"):
            if hasattr(self, attr):
                delattr(self, attr)
        return self.partial_fit(X, y)

    def partial_fit(self, X: Any, y: Any, classes: Any = None) -> Apprentice:
        Xs = self.transform(X)
        labels = self._labels(y)
        if Xs.shape[0] != len(labels):
            raise ValueError(f"X has {Xs.shape[0]} rows but y has {len(labels)}")
        if not hasattr(self, "nb_"):
            self.nb_ = MultinomialNB(alpha=self.alpha)
            self.classes_ = _CLASSES
            self.n_seen_ = 0
            self.n_batches_ = 0
        if len(labels):
            self.nb_.partial_fit(Xs, labels, classes=_CLASSES)
            self.n_seen_ += len(labels)
            self.n_batches_ += 1
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "nb_")
        Xs = self.transform(X)
        if not hasattr(self.nb_, "classes_"):  # no batch yet: uninformative
            return np.full((Xs.shape[0], 2), 0.5)
        return np.asarray(self.nb_.predict_proba(Xs))

    def predict(self, X: Any) -> np.ndarray:
        return (self.predict_proba(X)[:, 1] >= 0.5).astype(np.int64)

    def relevance(self, X: Any) -> np.ndarray:
        """Pr(target on topic) per link."""
        return self.predict_proba(X)[:, 1]

    # -- links as token ids (classifiers.link_tokens)
    def token_weights(self, dom: DomVocabulary) -> np.ndarray | None:
        """Per ``term@d`` token of ``dom`` (by id), how much more likely it is under the
        high bucket than the low one (log ratio; 0 for a token beyond ``d_max``); None
        before the first batch (``relevance_tokens`` is then 0.5)."""
        check_is_fitted(self, "nb_")
        if not hasattr(self.nb_, "classes_"):
            return None
        hashes, offsets = dom.arrays()
        flp = self.nb_.feature_log_prob_
        out = (flp[1] - flp[0])[hashes % self.n_features]
        out[(offsets != NO_OFFSET) & (np.abs(offsets) > self.d_max)] = 0.0
        return np.asarray(out)

    def relevance_tokens(self, links: TokenizedLinks, weights: np.ndarray | None) -> np.ndarray:
        """``relevance`` of links given as token ids, with ``token_weights`` of their
        vocabulary (equal to it up to float rounding)."""
        if weights is None:
            return np.full(links.n, 0.5)
        prior = self.nb_.class_log_prior_
        ratio = links.product(DOM_SPACE, weights) + (prior[1] - prior[0])
        if self.parent_bins > 0 and self.parent_weight > 0:
            bins = np.clip((np.nan_to_num(links.parent_score) * self.parent_bins)
                           .astype(np.int64), 0, self.parent_bins - 1)  # fmt: skip
            bin_cols = np.array(
                [self._column_of(f"__parent_topic@{b}") for b in range(self.parent_bins)]
            )
            flp = self.nb_.feature_log_prob_
            ratio += self.parent_weight * (flp[1] - flp[0])[bin_cols][bins]
        return np.asarray(expit(ratio))
