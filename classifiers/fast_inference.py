"""``predict_proba`` without scikit-learn's per-call machinery, for the crawl's hot path.

On every ``transform``/``predict_proba`` scikit-learn validates its input (dtype,
finiteness, dataframe detection), routes metadata, runs ``joblib`` for a
``FeatureUnion`` and wraps outputs: about 0.2 ms per vectoriser and 2 ms per
calibrated SVM per call, whatever the batch size. The critic calls its two models
once per batch of pages with a handful of new forms, so that overhead was most of
its cost (the domain model has ten vectorisers).

``compile_proba(estimator)`` returns a function computing the estimator's
``predict_proba`` with the same numpy/scipy operations, in the same order, on the
same fitted attributes -- hence the same floats -- for the shapes the critic's
models and the page classifier have (pipelines and feature unions of
``FormText``/``FormStructure``, ``TfidfVectorizer``, ``FunctionTransformer``,
``MaxAbsScaler``, ending in a binary ``LogisticRegression``, a sigmoid
``CalibratedClassifierCV`` over a linear model or a ``MultinomialNB``); None for
anything else. ``Checked`` guards it: its first call computes
both and keeps the fast path only when the two agree bit for bit, otherwise (a
scikit-learn upgrade changed the maths) it logs a warning and stays with
scikit-learn for good.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import sparse
from scipy.special import expit
from sklearn import get_config
from sklearn.calibration import CalibratedClassifierCV
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import FunctionTransformer, LabelEncoder, MaxAbsScaler
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.sparsefuncs_fast import (
    inplace_csr_row_normalize_l1,
    inplace_csr_row_normalize_l2,
)

from classifiers.form_features import FormStructure, FormText, HostWords, SiteKeywords
from classifiers.linear_inference import calibrated_proba, union_of, weigh_terms

__all__ = ["Checked", "compile_proba", "compile_transform"]

log = logging.getLogger(__name__)

Fn = Callable[[Any], Any]


def _default_output(est: Any) -> bool:
    """No pandas/polars output configured on ``est`` (nor globally)."""
    config = getattr(est, "_sklearn_output_config", {})
    return config.get("transform", "default") == "default"


def _tfidf(vec: TfidfVectorizer) -> Fn | None:
    tf = getattr(vec, "_tfidf", None)
    if (tf is None or not hasattr(vec, "vocabulary_")
            or np.dtype(vec.dtype) not in (np.float32, np.float64)
            or tf.norm not in (None, "l1", "l2")):  # fmt: skip
        return None
    normalize = {"l1": inplace_csr_row_normalize_l1, "l2": inplace_csr_row_normalize_l2}
    norm = normalize.get(tf.norm) if tf.norm else None
    idf = getattr(tf, "idf_", None)
    binary, sublinear = vec.binary, tf.sublinear_tf

    def transform(docs: Sequence[str]) -> Any:
        # CountVectorizer.transform then TfidfTransformer.transform(copy=False)
        if isinstance(docs, str):
            raise ValueError("Iterable over raw text documents expected, string object received.")
        _, X = vec._count_vocab(docs, fixed_vocab=True)
        weigh_terms(X, binary=binary, sublinear=sublinear, idf=idf)
        if norm is not None:
            norm(X)
        return X

    return transform


def _max_abs(scaler: MaxAbsScaler) -> Fn | None:
    if not hasattr(scaler, "scale_"):
        return None
    scale, clip = scaler.scale_, scaler.clip

    def transform(X: Any) -> Any:
        if sparse.issparse(X) or not isinstance(X, np.ndarray) or X.dtype != np.float64:
            return scaler.transform(X)
        X = np.array(X, copy=True) if scaler.copy else X
        X /= scale
        if clip:
            np.clip(X, -1.0, 1.0, out=X)
        return X

    return transform


def compile_transform(t: Any) -> Fn | None:
    """A function equal to ``t.transform`` (module doc), or None when unsupported."""
    if not _default_output(t):
        return None
    if isinstance(t, FormText | FormStructure | HostWords | SiteKeywords):
        return t.transform  # ours: no validation to skip
    if isinstance(t, TfidfVectorizer):
        return _tfidf(t)
    if isinstance(t, MaxAbsScaler):
        return _max_abs(t)
    if isinstance(t, FunctionTransformer):
        if t.validate or t.func is None:
            return None
        func, kw = t.func, dict(t.kw_args or {})
        return lambda X: func(X, **kw)
    if isinstance(t, Pipeline):
        steps = [s for _, s in t.steps if s is not None and s != "passthrough"]
        fns = [compile_transform(s) for s in steps]
        if any(f is None for f in fns):
            return None
        chain: list[Fn] = [f for f in fns if f is not None]

        def run(X: Any) -> Any:
            for f in chain:
                X = f(X)
            return X

        return run
    if isinstance(t, FeatureUnion):
        weights = t.transformer_weights or {}
        parts: list[tuple[Fn, Any]] = []
        for name, part in t.transformer_list:
            if part is None or isinstance(part, str):  # "drop"/"passthrough": not ours
                return None
            f = compile_transform(part)
            if f is None:
                return None
            parts.append((f, weights.get(name)))
        if not parts:
            return None
        return union_of(parts)
    return None


def _decision(est: Any) -> Fn | None:
    """``LinearClassifierMixin.decision_function`` (LinearSVC, LogisticRegression)."""
    if not isinstance(est, LinearClassifierMixin) or not hasattr(est, "coef_"):
        return None
    coef_t = est.coef_.T if est.coef_.ndim == 2 else est.coef_
    intercept = est.intercept_

    def decision(X: Any) -> Any:
        scores = safe_sparse_dot(X, coef_t, dense_output=True) + intercept
        return scores.reshape(-1) if scores.ndim > 1 and scores.shape[1] == 1 else scores

    return decision


def _calibrated(cal: CalibratedClassifierCV) -> Fn | None:
    """``CalibratedClassifierCV.predict_proba``, sigmoid method, linear estimators."""
    if cal.method != "sigmoid" or not hasattr(cal, "calibrated_classifiers_"):
        return None
    n_classes = len(cal.classes_)
    members = []
    for cc in cal.calibrated_classifiers_:
        decision = _decision(cc.estimator)
        if decision is None or len(cc.classes) != n_classes:
            return None
        if len(cc.estimator.classes_) == 2 and n_classes != 2:
            return None  # a binary member of a multi-class ensemble: not our shape
        idx = LabelEncoder().fit(cc.classes).transform(cc.estimator.classes_)
        if n_classes == 2:
            idx = idx + 1
        members.append((decision, [(int(i), c.a_, c.b_) for i, c in
                                   zip(idx, cc.calibrators, strict=False)]))  # fmt: skip

    return calibrated_proba(members, n_classes)


def _logistic(lr: LogisticRegression) -> Fn | None:
    """Binary ``LogisticRegression.predict_proba``."""
    decision = _decision(lr)
    if decision is None or len(lr.classes_) != 2:
        return None

    def proba(X: Any) -> Any:
        p = decision(X)
        p = expit(p, out=p)
        return np.stack([1 - p, p], axis=1)

    return proba


def _multinomial_nb(nb: MultinomialNB) -> Fn | None:
    """``MultinomialNB.predict_proba``."""
    if not hasattr(nb, "feature_log_prob_"):
        return None
    try:
        from sklearn.utils._array_api import _logsumexp
    except ImportError:  # moved: scikit-learn's own path then
        return None
    log_prob_t, log_prior = nb.feature_log_prob_.T, nb.class_log_prior_

    def proba(X: Any) -> Any:
        jll = safe_sparse_dot(X, log_prob_t) + log_prior
        return np.exp(jll - np.atleast_2d(_logsumexp(jll, axis=1)).T)

    return proba


def compile_proba(est: Any) -> Fn | None:
    """A function equal to ``est.predict_proba`` (module doc), or None when unsupported."""
    from classifiers.domain import DomainFormClassifier
    from classifiers.form_features import as_samples
    from classifiers.page_classifier import PageTopicClassifier
    from classifiers.searchable import SearchableFormClassifier

    if get_config().get("transform_output", "default") != "default":
        return None
    if isinstance(est, SearchableFormClassifier):
        inner = compile_proba(getattr(est, "pipeline_", None))
        if inner is None:
            return None
        return lambda X: np.asarray(inner(as_samples(X)), dtype=np.float64)
    if isinstance(est, PageTopicClassifier):
        pipeline = compile_proba(getattr(est, "pipeline_", None))
        if pipeline is None:
            return None
        f_pipeline = pipeline
        return lambda X: np.asarray(f_pipeline(list(X)))
    if isinstance(est, DomainFormClassifier):
        if not getattr(est, "calibrated_", False):
            return None
        union, svm = compile_transform(est.features_), compile_proba(est.svm_)
        if union is None or svm is None:
            return None
        f_union, f_svm = union, svm  # narrowed for the closure
        return lambda X: np.asarray(f_svm(f_union(as_samples(X))), dtype=np.float64)
    if isinstance(est, Pipeline):
        *head, (_, last) = est.steps
        features = compile_transform(Pipeline(head)) if head else (lambda X: X)
        final = compile_proba(last)
        if features is None or final is None:
            return None
        f_features, f_final = features, final
        return lambda X: f_final(f_features(X))
    if isinstance(est, CalibratedClassifierCV):
        return _calibrated(est)
    if isinstance(est, LogisticRegression):
        return _logistic(est)
    if isinstance(est, MultinomialNB):
        return _multinomial_nb(est)
    return None


class Checked:
    """``predict_proba`` of ``est`` through ``compile_proba`` when it agrees exactly.

    The first non-empty call computes both; the compiled path is kept only if
    its output equals scikit-learn's bit for bit (else a warning, and scikit-learn
    from then on). An empty input goes to the estimator itself.
    """

    def __init__(self, est: Any, name: str = "") -> None:
        self.est = est
        self.name = name or type(est).__name__
        self.fast = compile_proba(est)
        self.checked = False

    def __call__(self, X: Sequence[Any]) -> np.ndarray:
        if self.fast is None or not len(X):
            return np.asarray(self.est.predict_proba(X))
        if self.checked:
            return np.asarray(self.fast(X))
        slow = np.asarray(self.est.predict_proba(X))
        try:
            fast = np.asarray(self.fast(X))
            same = fast.shape == slow.shape and fast.dtype == slow.dtype and \
                bool(np.array_equal(fast, slow, equal_nan=True))  # fmt: skip
        except Exception:
            log.exception("compiled predict_proba of %s failed", self.name)
            same = False
        if same:
            self.checked = True
        else:
            log.warning("compiled predict_proba of %s differs from scikit-learn's; "
                        "using scikit-learn", self.name)  # fmt: skip
            self.fast = None
        return slow
