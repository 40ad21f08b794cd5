"""The trained page classifier behind the engine's ``PageClassifier`` contract.

``page_classifier_for(domain, model)`` loads ``<models>/page/<domain>/<model>/``
when it exists (a ``classifiers.persist`` model directory) and otherwise trains
from the domain pack (a second or two; cached per process); with ``real=True``
``<model>-real/``, the classifier trained on the real pages too
(domains/REALPAGES.md), else trained from the pack and the real pages. NotConfigured when
the domain has no pack pages, so that the "auto" choice falls back to keywords.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from classifiers.context import SHARED_ANALYZERS
from classifiers.fast_inference import Checked, compile_proba
from classifiers.linear_inference import weigh_terms
from classifiers.page_classifier import (
    PageTopicClassifier,
    load_page_classifier,
    model_dir,
    page_text,
    train_page_classifier,
)
from formhunter.exceptions import NotConfigured, UsageError
from formhunter.model import Page

log = logging.getLogger(__name__)


class TextPageClassifier:
    """PageClassifier: Pr(topic | page) from the page's title and text."""

    def __init__(self, estimator: PageTopicClassifier, source: str = "") -> None:
        self.estimator = estimator
        self.source = source
        self._on = list(estimator.classes_).index(1)
        self._proba: Checked | None = None

    def _predict(self, texts: list[str]) -> np.ndarray:
        """``estimator.predict_proba`` through the compiled path (same floats, no
        per-call validation: ``classifiers.fast_inference``)."""
        if self._proba is None or self._proba.est is not self.estimator:
            self._proba = Checked(self.estimator, "page classifier")
        return self._proba(texts)

    def page_score(self, page: Page) -> float:
        return float(self._predict([page_text(page)])[0, self._on])

    def page_scores(self, pages: list[Page]) -> list[float]:
        """Batch form of ``page_score``."""
        if not pages:
            return []
        proba = self._predict([page_text(p) for p in pages])
        return [float(x) for x in proba[:, self._on]]


@lru_cache(maxsize=32)
def _cached(domain: str, model: str, models_dir: str | None, random_state: int,
            domains_root: str | None, real: bool) -> TextPageClassifier:  # fmt: skip
    d = model_dir(domain, model, models_dir, real)
    if (d / "manifest.json").is_file():
        est, _ = load_page_classifier(d)
        return TextPageClassifier(est, str(d))
    try:
        est, metrics = train_page_classifier(domain, model, domains_root, evaluate=False,
                                             random_state=random_state, real=real)  # fmt: skip
    except UsageError as exc:
        raise NotConfigured(f"no page classifier for {domain!r}: {exc}") from None
    log.info("page classifier %s/%s trained from the pack (%s terms)", domain, model,
             metrics.get("vocabulary"))  # fmt: skip
    return TextPageClassifier(est, f"pack:{domain}")


def page_classifier_for(domain: str, model: str = "nb", models_dir: str | Path | None = None,
                        random_state: int = 0, domains_root: str | Path | None = None,
                        real: bool = False) -> TextPageClassifier:  # fmt: skip
    """The page classifier of ``domain`` (module doc); ``real``: the one trained on the
    real pages too (``<models>/page/<domain>/<model>-real``)."""
    md = str(models_dir) if models_dir is not None else None
    dr = str(domains_root) if domains_root is not None else None
    return _cached(domain, model, md, random_state, dr, real)


class DomainPageScores:
    """Pr(on topic) of many pages for several domains at once: each page's words are
    stemmed once (the classifiers' shared analyzer, ``classifiers.context.SHARED_ANALYZERS``)
    and counted against every domain's vocabulary, not once per domain. The first call
    checks the result against each classifier's own ``page_scores`` bit for bit and keeps
    the shared path only if they agree (else it logs a warning and scores domain by
    domain from then on).
    """

    def __init__(self, classifiers: dict[str, TextPageClassifier]) -> None:
        self.classifiers = classifiers
        self._parts: dict[str, tuple[Any, ...]] | None = {}
        self._analyzer: Any = None
        for domain, clf in classifiers.items():
            part = _shared_part(clf)
            analyzer = clf.estimator.pipeline_.named_steps["tfidf"].analyzer
            if part is None or self._analyzer not in (None, analyzer):
                self._parts = None
                break
            self._analyzer = analyzer
            self._parts[domain] = part
        self._checked = False

    def __call__(self, pages: list[Page]) -> dict[str, list[float]]:
        """domain -> Pr(on topic) per page."""
        if not pages or self._parts is None:
            return {d: c.page_scores(pages) for d, c in self.classifiers.items()}
        terms = [self._analyzer(page_text(p)) for p in pages]
        out = {d: [float(x) for x in _score(part, terms)] for d, part in self._parts.items()}
        if not self._checked:
            slow = {d: c.page_scores(pages) for d, c in self.classifiers.items()}
            if slow != out:
                log.warning("shared page scoring differs from the classifiers'; "
                            "scoring domain by domain")  # fmt: skip
                self._parts = None
                return slow
            self._checked = True
        return out


def _shared_part(clf: TextPageClassifier) -> tuple[Any, ...] | None:
    """(vocabulary, idf, sublinear, norm, final predict_proba, on-topic column) of a
    words-only page classifier, or None when its pipeline has another shape."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    pipe = clf.estimator.pipeline_
    vec = pipe.named_steps.get("tfidf")
    if (not isinstance(vec, TfidfVectorizer) or vec.analyzer not in SHARED_ANALYZERS
            or vec.binary):
        return None
    final = pipe.steps[-1][1]
    proba = compile_proba(final) or final.predict_proba
    tf = vec._tfidf
    return (vec.vocabulary_, getattr(tf, "idf_", None), tf.sublinear_tf, tf.norm, proba,
            clf._on, np.dtype(vec.dtype))  # fmt: skip


def _score(part: tuple[Any, ...], terms: list[list[str]]) -> np.ndarray:
    """CountVectorizer + TfidfTransformer + the final step, as scikit-learn computes them."""
    from scipy import sparse
    from sklearn.utils.sparsefuncs_fast import (
        inplace_csr_row_normalize_l1,
        inplace_csr_row_normalize_l2,
    )

    vocab, idf, sublinear, norm, proba, on, dtype = part
    indptr, indices, counts = [0], [], []
    for doc in terms:
        ids = [vocab[t] for t in doc if t in vocab]
        cols, n = np.unique(np.asarray(ids, dtype=np.int64), return_counts=True)
        indices.append(cols)
        counts.append(n)
        indptr.append(indptr[-1] + len(cols))
    X = sparse.csr_matrix(
        (np.concatenate(counts).astype(dtype) if counts else np.zeros(0, dtype),
         np.concatenate(indices).astype(np.int32) if indices else np.zeros(0, np.int32),
         np.asarray(indptr, dtype=np.int32)),
        shape=(len(terms), len(vocab)), dtype=dtype,
    )  # fmt: skip
    weigh_terms(X, binary=False, sublinear=sublinear, idf=idf)
    if norm == "l2":
        inplace_csr_row_normalize_l2(X)
    elif norm == "l1":
        inplace_csr_row_normalize_l1(X)
    return np.asarray(proba(X))[:, on]


def page_scores_by_domain(
    pages: list[Page], domains: list[str], model: str = "svm",
    models_dir: str | Path | None = None, real: bool = True,
) -> dict[str, list[float]]:  # fmt: skip
    """domain -> Pr(on topic) per page, for many pages and domains at once
    (``page_classifier_for``, by default the models trained on the real pages;
    ``DomainPageScores``)."""
    md = str(models_dir) if models_dir else None
    return _scorer(tuple(domains), model, md, real)(pages)


@lru_cache(maxsize=8)
def _scorer(domains: tuple[str, ...], model: str, models_dir: str | None,
            real: bool) -> DomainPageScores:  # fmt: skip
    return DomainPageScores({d: page_classifier_for(d, model, models_dir, real=real)
                             for d in domains})  # fmt: skip
