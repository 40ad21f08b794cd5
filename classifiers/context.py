"""The second stage of the domain decision: the form, its page and its site (issue 24).

The domain model (``classifiers.domain``) reads a form's own text and structure and
the page title around it. Where a form does not say what it searches (a keyword
box: one free-text field, ``classifiers.form_features.keyword_box``), its page and
its site do: a "Search" box on a used-car page searches cars. ``DomainContextModel``
combines, per candidate class c of a searchable form:

- the domain model's probability of c (as a logit),
- the page's topic score for c: the page classifier of domain c over the WHOLE page
  (``PageTopics``; in a crawl, the larger of the page's and its site's evidence),
- how many of c's multilingual concept words (``classifiers.lexicon``) the form's own
  text, its page title and site name hold,
- whether the form is a keyword box, and their products,

with weights shared by every class (a conditional logit: one binary logistic regression
over (form, class) pairs, the class with the highest score wins). Sharing the weights
is what lets a domain with few real forms (rental) use what every other domain's real
forms taught, and keeps the model from fitting one domain's sites. "other" has its
own indicator features (the page's best topic score pulls a box away from "other").

``PageTopics`` scores many pages for many domains with one tokenization per page:
the page classifiers share their analyzer (``classifiers.text.stem_terms`` or
``classifiers.lexicon.concept_terms``), so a
page's terms are counted once over the union of their vocabularies and each model
takes its columns (the same floats as each model's ``topic_probability``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import normalize
from sklearn.utils.validation import check_is_fitted

from classifiers.context_features import (
    CONTEXT_FEATURES,
    OTHER,
    lexicon_text,
    pair_features,
)
from classifiers.lexicon import concept_terms
from classifiers.text import stem_terms

__all__ = [
    "CONTEXT_FEATURES", "OTHER", "ContextBundle", "DomainContextModel", "PageTopics",
    "lexicon_text", "pair_features",
]

#: analyzers (module-level functions of a text) whose terms ``PageTopics`` can share
SHARED_ANALYZERS = (stem_terms, concept_terms)


class PageTopics:
    """Pr(on topic) of each page for each of several domains' page classifiers.

    ``models``: domain -> a fitted ``classifiers.page_classifier.PageTopicClassifier``.
    ``scores(texts)`` -> array (n pages, len(domains_)), texts as ``page_text`` gives.
    """

    #: a bundle saved before the analyzer was kept shares ``stem_terms`` (the only one then)
    _analyzer: Any = staticmethod(stem_terms)

    def __init__(self, models: Mapping[str, Any]) -> None:
        self.models = dict(models)
        self.domains_ = sorted(self.models)
        vocab: dict[str, int] = {}
        self._cols: list[np.ndarray] = []
        self._shared: list[bool] = []
        seen: list[dict[str, int]] = []
        analyzer: Any = None
        for d in self.domains_:
            vec = self.models[d].pipeline_.named_steps["tfidf"]
            if analyzer is None and vec.analyzer in SHARED_ANALYZERS:
                analyzer = vec.analyzer
            shared = analyzer is not None and vec.analyzer is analyzer
            self._shared.append(shared)
            if not shared:
                self._cols.append(np.zeros(0, dtype=np.int64))
                continue
            # page classifiers fitted on the same pages have equal vocabularies: one dict
            # object for all, so that a saved bundle holds (and loads) it once
            same = next((v for v in seen if v == vec.vocabulary_), None)
            if same is None:
                seen.append(vec.vocabulary_)
            else:
                vec.vocabulary_ = same
            terms = sorted(vec.vocabulary_, key=vec.vocabulary_.__getitem__)
            self._cols.append(np.array([vocab.setdefault(t, len(vocab)) for t in terms]))
        # the union is the vocabulary itself when they are all one (the same object again)
        self._vocab = seen[0] if len(seen) == 1 and vocab == seen[0] else vocab
        #: the one analyzer whose terms are counted once for every model that uses it
        self._analyzer = analyzer or stem_terms

    def _counts(self, texts: Sequence[str]) -> sp.csr_matrix:
        from classifiers.linear_inference import count_terms

        return count_terms(texts, self._analyzer, self._vocab)

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(self.domains_)))
        if not len(texts):
            return out
        counts = self._counts(texts) if any(self._shared) else None
        for k, d in enumerate(self.domains_):
            est = self.models[d]
            on = list(est.classes_).index(1)
            if not self._shared[k] or counts is None:
                out[:, k] = est.predict_proba(list(texts))[:, on]
                continue
            vec = est.pipeline_.named_steps["tfidf"]
            X = counts[:, self._cols[k]].tocsr()
            if vec.sublinear_tf:
                X.data = np.log(X.data) + 1.0
            if vec.use_idf:
                X = X @ sp.diags(vec.idf_)
            if vec.norm:
                X = normalize(X, norm=vec.norm, copy=False)
            out[:, k] = est.pipeline_.named_steps["clf"].predict_proba(X)[:, on]
        return out


class DomainContextModel(ClassifierMixin, BaseEstimator):
    """Which domain a searchable form belongs to, from the domain model's probabilities,
    its page's (or site's) topic scores and whether it is a keyword box (module doc).

    fit(X, y): ``X`` the array of ``pair_features`` (n, k, f) with the classes in
    ``classes`` order, ``y`` the true class names. ``predict_proba`` gives a softmax of
    the pair scores, columns in ``classes_`` order.
    """

    def __init__(self, classes: Sequence[str] = (), C: float = 1.0,
                 class_weight: str | None = "balanced") -> None:  # fmt: skip
        self.classes = classes
        self.C = C
        self.class_weight = class_weight

    def fit(self, X: np.ndarray, y: Sequence[str]) -> DomainContextModel:
        X = np.asarray(X, dtype=np.float64)
        self.classes_ = np.asarray(list(self.classes), dtype=object)
        n, k, f = X.shape
        if k != len(self.classes_):
            raise ValueError(f"X has {k} classes per form, classes has {len(self.classes_)}")
        target = np.asarray(y, dtype=object).astype(str)
        hit = (target.reshape(n, 1) == self.classes_.astype(str).reshape(1, k)).astype(int)
        self.lr_ = LogisticRegression(C=self.C, class_weight=self.class_weight, max_iter=2000)
        self.lr_.fit(X.reshape(n * k, f), hit.reshape(-1))
        self.coef_ = self.lr_.coef_.ravel()
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        check_is_fitted(self, "lr_")
        X = np.asarray(X, dtype=np.float64)
        n, k, f = X.shape
        return np.asarray(self.lr_.decision_function(X.reshape(n * k, f)).reshape(n, k))

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        z = self.decision_function(X)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True))

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.classes_[np.argmax(self.decision_function(X), axis=1)])


class ContextBundle:
    """What the critic loads as the "context" model: the fitted ``DomainContextModel``
    and the ``PageTopics`` whose scores it was trained on (so that a new page model
    changes nothing until the context model is retrained with it)."""

    def __init__(self, model: DomainContextModel, topics: PageTopics) -> None:
        self.model = model
        self.topics = topics

    @property
    def classes_(self) -> np.ndarray:
        return self.model.classes_

    def proba(self, form_proba: np.ndarray, form_classes: Sequence[str], topics: np.ndarray,
              keyword_box: np.ndarray,
              lexicon: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
        """Probabilities over ``classes_`` (the domain model's ``form_classes`` reordered)."""
        order = [list(form_classes).index(str(c)) for c in self.model.classes_]
        X = pair_features(np.asarray(form_proba)[:, order], [str(c) for c in self.model.classes_],
                          topics, self.topics.domains_, keyword_box, lexicon)  # fmt: skip
        return self.model.predict_proba(X)
