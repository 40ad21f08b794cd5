"""The multi-level naive Bayes link classifier of the FFC and ACHE.

A link's *level* is its distance to a relevant form: level 0 links point at a
page with a relevant form, level 1 links at a page with level-0 links, and so
on up to ``n_levels - 1``. Optionally a *background* class (``n_levels``) holds
links seen in the crawl that were on no path to a relevant form, so that links
without any selected feature fall to the bottom band instead of the most
frequent level.

The classifier is a Pipeline of ``LinkFeatureSelector`` (ACHE's automatic
feature selection) and a multinomial naive Bayes. ``predict_level`` gives the
frontier band (the most likely class) and, as the within-band priority, the
probability of that class (ACHE §2.2: "ordered based on their likelihood of
belonging to the level").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from classifiers.link_features import LinkFeatureSelector, as_frame
from classifiers.link_tokens import (
    WORD_SPACES,
    TokenizedLinks,
    WordVocabulary,
    class_probabilities,
)


class MultiLevelLinkClassifier(ClassifierMixin, BaseEstimator):
    """Estimate a link's distance (in links) to a relevant form.

    fit(X, y): ``X`` links (DataFrame/Table/records with url, anchor, around);
    ``y`` integer levels in ``0..n_levels`` (``n_levels`` = background, only
    used when ``background``). Learned: ``pipeline_``, ``classes_``,
    ``features_`` (terms per space), ``n_train_`` (instances per class).
    """

    def __init__(
        self,
        n_levels: int = 3,
        background: bool = True,
        n_url: int = 10,
        n_anchor: int = 10,
        n_around: int = 10,
        url_k: int = 10,
        min_df: int = 2,
        per_level: bool = True,
        alpha: float = 1.0,
        min_sites: int = 1,
        drop_host_terms: bool = False,
    ) -> None:
        self.n_levels = n_levels
        self.background = background
        self.n_url = n_url
        self.n_anchor = n_anchor
        self.n_around = n_around
        self.url_k = url_k
        self.min_df = min_df
        self.per_level = per_level
        self.alpha = alpha
        self.min_sites = min_sites
        self.drop_host_terms = drop_host_terms

    @property
    def n_bands(self) -> int:
        """Frontier bands this classifier fills: the levels plus background."""
        return self.n_levels + (1 if self.background else 0)

    def fit(self, X: Any, y: Any) -> MultiLevelLinkClassifier:
        frame = as_frame(X)
        levels = np.asarray(y, dtype=np.int64)
        if len(levels) != len(frame):
            raise ValueError(f"X has {len(frame)} rows but y has {len(levels)}")
        if len(levels) == 0:
            raise ValueError("no training links")
        top = self.n_levels if self.background else self.n_levels - 1
        if levels.min() < 0 or levels.max() > top:
            raise ValueError(f"levels must lie in 0..{top}, got {levels.min()}..{levels.max()}")
        if not np.any(levels < self.n_levels):
            raise ValueError("no links on paths to relevant forms (all background)")
        self.pipeline_ = Pipeline(
            [
                (
                    "features",
                    LinkFeatureSelector(
                        n_url=self.n_url,
                        n_anchor=self.n_anchor,
                        n_around=self.n_around,
                        url_k=self.url_k,
                        min_df=self.min_df,
                        per_level=self.per_level,
                        n_levels=self.n_levels,
                        min_sites=self.min_sites,
                        drop_host_terms=self.drop_host_terms,
                    ),
                ),
                ("nb", MultinomialNB(alpha=self.alpha)),
            ]
        )
        selector = self.pipeline_.named_steps["features"]
        Xs = selector.fit(frame, levels).transform(frame)
        if Xs.shape[1] == 0:
            raise ValueError(
                f"feature selection found no term in >= {self.min_df} links of a level; "
                "more paths are needed"
            )
        self.pipeline_.named_steps["nb"].fit(Xs, levels)
        self.classes_ = self.pipeline_.classes_
        self.features_ = self.pipeline_.named_steps["features"].features_
        self.n_train_ = {int(c): int(np.sum(levels == c)) for c in self.classes_}
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "pipeline_")
        return np.asarray(self.pipeline_.predict_proba(X))

    def predict(self, X: Any) -> np.ndarray:
        return np.asarray(self.predict_level(X)[0])

    def predict_level(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """(level of each link, its priority within the level). Vectorised.

        On a path level the priority is the probability of that level (ACHE §2.2).
        In the background band it is the probability of being on *some* path
        (1 - Pr(background)): the frontier takes the highest priority first, and
        the background band is what the crawl falls back on when the path levels
        run dry, so its most promising links must come first, not its most
        background-like ones. A link without any selected feature carries no
        evidence of its distance: it goes to the last band (background, or the
        farthest level) with that band's prior as its probability.
        """
        check_is_fitted(self, "pipeline_")
        Xs = self.pipeline_.named_steps["features"].transform(X)
        nb = self.pipeline_.named_steps["nb"]
        proba = np.asarray(nb.predict_proba(Xs))
        return self._levels(proba, np.asarray(Xs.getnnz(axis=1) == 0))

    def token_weights(self, words: WordVocabulary) -> np.ndarray:
        """Per word of ``words`` (by id), its log-likelihood under each class summed over
        the selected features it counts for in each space, and how many it counts for:
        shape (spaces, vocabulary, classes + 1). ``predict_level_tokens`` reads it."""
        check_is_fitted(self, "pipeline_")
        feats = self.pipeline_.named_steps["features"].features_
        flp = self.pipeline_.named_steps["nb"].feature_log_prob_
        stems = words.stems_array()
        out = np.zeros((len(WORD_SPACES), len(stems), flp.shape[0] + 1))
        offset = 0
        for k, space in enumerate(WORD_SPACES):
            tok, col = term_incidence(stems, feats[space], url=space == "url")
            if len(tok):
                inc = sp.csr_matrix((np.ones(len(tok)), (tok, col)),
                                    shape=(len(stems), len(feats[space])))  # fmt: skip
                out[k, :, :-1] = inc @ flp[:, offset : offset + len(feats[space])].T
                out[k, :, -1] = np.bincount(tok, minlength=len(stems))
            offset += len(feats[space])
        return out

    def predict_level_tokens(self, links: TokenizedLinks,
                             weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """``predict_level`` of links given as token ids, with ``token_weights`` of
        their vocabulary (equal to it up to float rounding)."""
        check_is_fitted(self, "pipeline_")
        nb = self.pipeline_.named_steps["nb"]
        acc = np.zeros((links.n, weights.shape[2]))
        for k, space in enumerate(WORD_SPACES):
            acc += links.product(space, weights[k])
        jll = acc[:, :-1] + nb.class_log_prior_
        return self._levels(class_probabilities(jll), acc[:, -1] == 0)

    def _levels(self, proba: np.ndarray, empty: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        nb = self.pipeline_.named_steps["nb"]
        best = np.argmax(proba, axis=1)
        classes = np.asarray(self.classes_, dtype=np.int64)
        levels = classes[best]
        scores = proba[np.arange(len(best)), best]
        last = len(classes) - 1
        if empty.any():
            levels[empty] = classes[last]
            scores[empty] = float(np.exp(nb.class_log_prior_[last]))
        if self.background and classes[last] == self.n_levels:
            bg = levels == self.n_levels
            p_bg = np.where(empty, float(np.exp(nb.class_log_prior_[last])), proba[:, last])
            scores[bg] = 1.0 - p_bg[bg]
        return levels, scores


def term_incidence(stems: pa.Array, feats: list[str], *, url: bool
                   ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(word id, feature column) pairs: a URL word counts for every feature its stem
    contains, another word for the feature equal to its stem (``link_features._matcher``)."""
    toks: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    if url:
        for j, term in enumerate(feats):
            hit = np.flatnonzero(pc.match_substring(stems, term).to_numpy(zero_copy_only=False))
            toks.append(hit)
            cols.append(np.full(len(hit), j, np.int64))
    elif feats:
        idx = pc.index_in(stems, value_set=pa.array(feats, pa.string()))
        found = np.flatnonzero(pc.is_valid(idx).to_numpy(zero_copy_only=False))
        toks.append(found)
        cols.append(pc.take(idx, pa.array(found)).to_numpy(zero_copy_only=False).astype(np.int64))
    if not toks:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(toks).astype(np.int64), np.concatenate(cols)
