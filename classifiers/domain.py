"""The domain classifier: a linear SVM on a form's text (ACHE's HIFI, second stage).

``DomainFormClassifier`` is one multi-class model over every domain pack plus
"other" (searchable forms of no pack's kind). One model serves every domain: the
critic asks it for the best domain of a searchable form and calls the form
relevant when that is the crawl's target domain. Adding a pack and retraining
(``formhunter train domain``) makes the new domain available to ``--domain``.

Features: one stemmed TF-IDF per text signal (labels, field names, option texts,
submit texts, page title, text near the form, text inside the form, action URL),
plus character n-grams (within word boundaries) in two blocks, one over the
form's own text (labels, names, options, submit, text, action) and a lighter one
over the page around it (title, nearby text), joined by a weighted FeatureUnion.
The character blocks carry the forms written in languages without spaces
(Japanese, Chinese) and short keyword boxes whose few words stem badly. Keeping
the page text in its own, lighter block is what tells a site-wide "Search" box
on a travel page ("other") from a "Search flights" box (airfare): with one block
over everything, the page's topic drowned the label and generic site searches
of topical sites were called domain forms.
The site's context is its own pair of signals: "host" (the words of the page's
host and the site's name: "autotrader.co.uk" -> autotrader auto trader, see
``HostWords``) and "nav" (the texts of the site's navigation links), plus, per
domain, how many of its pack's keywords the site's host, name, title and
navigation hold (``SiteKeywords``, off by default: weight 0.5 cost 0.03 of
real-form macro-F1). A third character block, "keyword_site", holds the page
title and host words of keyword boxes only (one free-text field): the box's own
words do not say what it searches, the site does, and a block of its own lets
the model weigh the site more for such boxes than for forms that speak for
themselves (883 real forms, site-grouped CV: macro-F1 0.861 -> 0.869, book
0.754 -> 0.771, music 0.769 -> 0.800; the same text as a word signal changed
nothing). Measured on 730 real forms, the host and navigation
signals at weight 0.5 move scores (by up to 0.07) but no decision, and at
weight 1.0 they cost 0.014; what lifted the real-form figures is training on
real forms.
The "page_concepts" signal is language-neutral: one word "lex<domain>" per entry of the
multilingual lexicon (``classifiers.lexicon.concept_words``) in the page title and site
name, so that what English titles teach ("books") carries to "knihy", "книги" or "图书".
It is empty for keyword boxes, whose domain the page and the site decide
(``classifiers.context``). 609 real tuning forms, site-grouped CV of the two-stage
decision: macro-F1 0.853 -> 0.871, keyword boxes 0.878 -> 0.912, forms right: non-English
193 -> 196 of 223, English 371 -> 375 of 386. The same words for keyword boxes too gave
0.863 and kept a box of a site shown on topic "other"; over the form's own words, 0.837.
Scores: ``CalibratedClassifierCV`` (sigmoid) around ``LinearSVC``
when every class has enough examples, else a softmax of the decision function.

Evaluation: the figures are those of the REAL labelled forms
(``formhunter.trainers.critic.domain_data``), cross-validated grouped by site;
the curated forms join every training fold and are never scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.svm import LinearSVC

from classifiers.form_features import (
    FormText,
    HostWords,
    SiteKeywords,
    as_samples,
    text_pipeline,
)

__all__ = [
    "DEFAULT_CHAR_BLOCKS",
    "DEFAULT_SIGNALS",
    "MIN_FORMS",
    "REAL_WEIGHT",
    "RECOMMENDED_FORMS",
    "DomainFormClassifier",
    "cross_validate_domain",
    "holdout_domain",
    "keyword_box_report",
]

DEFAULT_SIGNALS: tuple[str, ...] = (
    "labels", "names", "options", "submit", "title", "context", "text", "action", "host", "nav",
    "page_concepts",
)  # fmt: skip
#: the site-context signals, weighted by ``site_weight`` instead of ``word_weight``
SITE_SIGNALS = frozenset({"host", "nav"})
#: character n-gram blocks: (signals joined by "+", weight). The form's own text
#: and the page around it get separate blocks so that a long page title or
#: navigation cannot drown the few words of a keyword box's label.
DEFAULT_CHAR_BLOCKS: tuple[tuple[str, float], ...] = (
    ("labels+names+options+submit+text+action", 2.0),
    ("title+context", 1.2),
    ("keyword_site", 1.5),
)
_CALIBRATION_FOLDS = 3
#: training weight of a real labelled form against a curated one (1); measured on the
#: real forms' site-grouped CV: 3.0 cost 0.011 of macro-F1
REAL_WEIGHT = 1.0


def _host_pipeline() -> Pipeline:
    """``HostWords`` then the stemmed TF-IDF of ``text_pipeline``."""
    tfidf = text_pipeline("host").named_steps["tfidf"]
    return Pipeline([("signal", HostWords()), ("tfidf", tfidf)])


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True))


class DomainFormClassifier(ClassifierMixin, BaseEstimator):
    """Which database domain a (searchable) form belongs to; labels are domain names."""

    def __init__(
        self,
        C: float = 0.5,
        signals: tuple[str, ...] = DEFAULT_SIGNALS,
        calibrate: bool = True,
        class_weight: str | None = "balanced",
        random_state: int | None = 0,
        char_ngrams: tuple[int, int] | None = (2, 5),
        char_blocks: tuple[tuple[str, float], ...] = DEFAULT_CHAR_BLOCKS,
        word_weight: float = 0.5,
        site_weight: float = 0.5,
        keyword_weight: float = 0.0,
    ) -> None:
        self.C = C
        self.signals = signals
        self.calibrate = calibrate
        self.class_weight = class_weight
        self.random_state = random_state
        self.char_ngrams = char_ngrams
        self.char_blocks = char_blocks
        self.word_weight = word_weight
        self.site_weight = site_weight
        self.keyword_weight = keyword_weight

    def _features(self, signals: Sequence[str]) -> FeatureUnion:
        parts: list[tuple[str, Any]] = [
            (s, _host_pipeline() if s == "host" else text_pipeline(s)) for s in signals
        ]
        weights = {s: self.site_weight if s in SITE_SIGNALS else self.word_weight for s in signals}
        if self.char_ngrams is not None:
            for i, (signal, weight) in enumerate(self.char_blocks):
                chars = TfidfVectorizer(
                    analyzer="char_wb",
                    ngram_range=tuple(self.char_ngrams),
                    sublinear_tf=True,
                    min_df=2,
                    dtype=np.float32,
                )
                name = f"chars{i}"
                parts.append((name, Pipeline([("signal", FormText(signal)), ("tfidf", chars)])))
                weights[name] = weight
        if self.keyword_weight:
            from classifiers.datasets import iter_packs, load_pack

            words = {n: load_pack(n, with_data=False).keywords or [n] for n in iter_packs()}
            parts.append(("site_keywords", SiteKeywords(words)))
            weights["site_keywords"] = self.keyword_weight
        return FeatureUnion(parts, transformer_weights=weights)

    def fit(
        self, X: Sequence[Any], y: Sequence[Any], sample_weight: Sequence[float] | None = None
    ) -> DomainFormClassifier:
        samples = as_samples(X)
        target = np.asarray(y, dtype=object).astype(str)
        classes, counts = np.unique(target, return_counts=True)
        if len(classes) < 2:
            raise ValueError("the domain model needs forms of at least two labels")
        # a signal no training form has (e.g. navigation, for curated forms only) is left out
        self.signals_ = tuple(
            s for s in self.signals
            if any(t.strip() for t in FormText("title" if s == "host" else s).transform(samples))
            or s == "host"
        )  # fmt: skip
        self.features_ = self._features(self.signals_).fit(samples)
        for _, part in self.features_.transformer_list:
            # the pruned-term set only serves introspection and dominates the pickle
            if isinstance(part, Pipeline) and isinstance(part[-1], TfidfVectorizer):
                part[-1].__dict__.pop("stop_words_", None)
        Z = self.features_.transform(samples)
        svm = LinearSVC(C=self.C, class_weight=self.class_weight, random_state=self.random_state)
        self.calibrated_ = bool(self.calibrate and counts.min() >= _CALIBRATION_FOLDS)
        weight = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if self.calibrated_:
            self.svm_: Any = CalibratedClassifierCV(
                svm, method="sigmoid", cv=_CALIBRATION_FOLDS
            ).fit(Z, target, sample_weight=weight)
        else:
            self.svm_ = svm.fit(Z, target, sample_weight=weight)
        self.classes_ = np.asarray(self.svm_.classes_)
        return self

    def predict_proba(self, X: Sequence[Any]) -> np.ndarray:
        samples = as_samples(X)
        if not samples:
            return np.zeros((0, len(self.classes_)))
        Z = self.features_.transform(samples)
        if self.calibrated_:
            return np.asarray(self.svm_.predict_proba(Z), dtype=np.float64)
        d = self.svm_.decision_function(Z)
        if d.ndim == 1:  # two classes
            d = np.column_stack([-d, d])
        return _softmax(2.0 * d)

    def predict(self, X: Sequence[Any]) -> np.ndarray:
        proba = self.predict_proba(X)
        return np.asarray(self.classes_[np.argmax(proba, axis=1)]) if len(proba) else np.array([])


def cross_validate_domain(
    df: pd.DataFrame,
    model: DomainFormClassifier | None = None,
    n_splits: int = 5,
    extra: pd.DataFrame | None = None,
    weight: float = 1.0,
) -> dict[str, Any]:
    """Site-grouped K-fold CV on labelled forms (columns form, title, url, site, label).

    ``extra`` (same columns, e.g. the curated forms) is training data only: its
    rows join every training fold, except those of a site that is in the test
    fold, and are never scored; ``weight`` is the training weight of a ``df`` row
    against an ``extra`` row (1). Returns, on ``df``: macro precision/recall/F1,
    per-label P/R/F1/support, accuracy, the confusion matrix (rows = true
    labels, in ``labels`` order), predictions and their scores.
    """
    from classifiers.datasets import samples

    model = model if model is not None else DomainFormClassifier()
    X = samples(df)
    y = df["label"].to_numpy(dtype=object).astype(str)
    groups = df["site"].to_numpy()
    n_splits = min(n_splits, len(np.unique(groups)))
    has_extra = extra is not None and not extra.empty
    X_extra = samples(extra) if has_extra and extra is not None else []
    y_extra = (
        extra["label"].to_numpy(dtype=object).astype(str)
        if has_extra and extra is not None
        else np.array([], dtype=str)
    )
    g_extra = extra["site"].to_numpy() if has_extra and extra is not None else np.array([])
    pred = np.empty(len(y), dtype=object)
    score = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=n_splits).split(X, y, groups):
        held = set(groups[test])
        keep = [i for i in range(len(X_extra)) if g_extra[i] not in held]
        m = clone(model).fit(
            [X[i] for i in train] + [X_extra[i] for i in keep],
            np.concatenate([y[train], y_extra[keep]]),
            sample_weight=None if weight == 1.0 or not keep
            else [weight] * len(train) + [1.0] * len(keep),
        )  # fmt: skip
        proba = m.predict_proba([X[i] for i in test])
        best = np.argmax(proba, axis=1)
        pred[test] = m.classes_[best]
        score[test] = proba[np.arange(len(test)), best]
    report = multiclass_report(y, pred.astype(str))
    return report | {"n_splits": n_splits, "pred": pred, "score": score, "extra_n": len(X_extra)}


def holdout_domain(
    train: pd.DataFrame,
    test: pd.DataFrame,
    model: DomainFormClassifier | None = None,
    extra: pd.DataFrame | None = None,
    weight: float = 1.0,
) -> dict[str, Any]:
    """Fit on ``train`` (+ ``extra``, training only), score ``test`` (the frozen split):
    the keys of ``cross_validate_domain`` with ``n_splits`` 0. The sites of ``test``
    must not occur in ``train`` or ``extra`` (ValueError)."""
    from classifiers.datasets import samples

    model = clone(model) if model is not None else DomainFormClassifier()
    parts = [train] + ([extra] if extra is not None and not extra.empty else [])
    overlap = set(test["site"]) & set(pd.concat([p["site"] for p in parts]))
    if overlap:
        raise ValueError(f"{len(overlap)} test sites are in the training data, e.g. "
                         f"{sorted(overlap)[:3]}")  # fmt: skip
    both = pd.concat(parts, ignore_index=True)
    y = both["label"].to_numpy(dtype=object).astype(str)
    w = [weight] * len(train) + [1.0] * (len(both) - len(train))
    model.fit(samples(both), y, sample_weight=None if weight == 1.0 else w)
    proba = model.predict_proba(samples(test))
    best = np.argmax(proba, axis=1)
    pred = np.asarray(model.classes_[best]).astype(str)
    report = multiclass_report(test["label"].to_numpy(dtype=object).astype(str), pred)
    return report | {"n_splits": 0, "pred": pred, "score": proba[np.arange(len(test)), best],
                     "extra_n": len(both) - len(train)}  # fmt: skip


def keyword_box_report(df: pd.DataFrame, pred: Sequence[str] | np.ndarray) -> dict[str, Any]:
    """Accuracy and macro-F1 of the keyword boxes alone (one free-text field:
    ``classifiers.form_features.keyword_box``), and of those of a domain (not other)."""
    from classifiers.form_features import keyword_box

    box = np.array([keyword_box(f) for f in df["form"]], dtype=bool)
    y = df["label"].to_numpy(dtype=object).astype(str)
    p = np.asarray(pred, dtype=object).astype(str)
    out: dict[str, Any] = {"n": int(box.sum())}
    if box.any():
        sub = multiclass_report(y[box], p[box])
        out |= {"accuracy": sub["accuracy"], "macro_f1": sub["macro_f1"]}
        dom = box & (y != "other")
        out["domain_n"] = int(dom.sum())
        out["domain_recall"] = round(float(np.mean(p[dom] == y[dom])), 4) if dom.any() else 0.0
        oth = box & (y == "other")
        out["other_n"] = int(oth.sum())
        out["other_kept"] = round(float(np.mean(p[oth] == "other")), 4) if oth.any() else 0.0
    return out


def multiclass_report(y: np.ndarray, pred: np.ndarray) -> dict[str, Any]:
    """Macro and per-label precision/recall/F1, accuracy, confusion matrix."""
    labels = sorted({str(v) for v in y} | {str(v) for v in pred})
    p, r, f, s = precision_recall_fscore_support(y, pred, labels=labels, zero_division=0)
    mp, mr, mf, _ = precision_recall_fscore_support(
        y, pred, labels=sorted(set(y)), average="macro", zero_division=0
    )
    per = {
        lab: {
            "precision": round(float(p[i]), 4),
            "recall": round(float(r[i]), 4),
            "f1": round(float(f[i]), 4),
            "support": int(s[i]),
        }
        for i, lab in enumerate(labels)
    }
    return {
        "macro_precision": round(float(mp), 4),
        "macro_recall": round(float(mr), 4),
        "macro_f1": round(float(mf), 4),
        "accuracy": round(float(np.mean(y == pred)), 4),
        "n": len(y),
        "labels": labels,
        "per_label": per,
        "confusion": confusion_matrix(y, pred, labels=labels).tolist(),
    }


#: fewest labelled forms a domain needs before it is trained
MIN_FORMS = 10
#: below this many labelled forms a domain's cross-validated figures mean little
#: (``formhunter train`` warns; domains/README.md asks for at least this many)
RECOMMENDED_FORMS = 40
