"""The searchable-form classifier: a decision tree on a form's structure (ACHE's HIFI).

``SearchableFormClassifier`` is a scikit-learn classifier over ``FormSample``
(or ``Form``) items with labels True (searchable) / False. ``learner`` picks the
model: "tree" (default, a ``DecisionTreeClassifier`` on ``FormStructure``),
"gbm" (histogram gradient boosting on the same features) or "logreg" (logistic
regression on structural plus TF-IDF text features) for comparisons.
``cross_validate_searchable`` is the site-grouped evaluation used by
``formhunter train/evaluate`` and the CI gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import FunctionTransformer, MaxAbsScaler
from sklearn.tree import DecisionTreeClassifier

from classifiers.form_features import FormStructure, as_samples, text_pipeline

__all__ = [
    "LEARNERS",
    "SearchableFormClassifier",
    "cross_validate_searchable",
    "train_searchable_model",
]

LEARNERS = ("tree", "gbm", "logreg")


def _log1p(X: np.ndarray) -> np.ndarray:
    return np.log1p(X)


class SearchableFormClassifier(ClassifierMixin, BaseEstimator):
    """Says whether a form is searchable (a query interface to a database).

    ``predict_proba(X)[:, 1]`` is the searchable score; ``classes_`` is
    ``[False, True]``.
    """

    def __init__(
        self,
        learner: str = "tree",
        max_depth: int | None = 8,
        min_samples_leaf: int = 5,
        class_weight: str | dict[Any, float] | None = None,
        random_state: int | None = 0,
    ) -> None:
        self.learner = learner
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.class_weight = class_weight
        self.random_state = random_state

    def _build(self) -> Pipeline:
        if self.learner == "tree":
            clf: Any = DecisionTreeClassifier(
                max_depth=self.max_depth,
                min_samples_leaf=self.min_samples_leaf,
                class_weight=self.class_weight,
                random_state=self.random_state,
            )
            return Pipeline([("structure", FormStructure()), ("clf", clf)])
        if self.learner == "gbm":
            clf = HistGradientBoostingClassifier(
                max_iter=200,
                learning_rate=0.1,
                min_samples_leaf=max(self.min_samples_leaf, 5),
                class_weight=self.class_weight,
                random_state=self.random_state,
            )
            return Pipeline([("structure", FormStructure()), ("clf", clf)])
        if self.learner == "logreg":
            structure = Pipeline(
                [
                    ("counts", FormStructure()),
                    ("log", FunctionTransformer(_log1p)),
                    ("scale", MaxAbsScaler()),
                ]
            )
            union = FeatureUnion(
                [
                    ("structure", structure),
                    ("submit", text_pipeline("submit", min_df=2)),
                    ("labels", text_pipeline("labels", min_df=2)),
                    ("names", text_pipeline("names", min_df=2)),
                    ("attrs", text_pipeline("attrs", min_df=2)),
                ]
            )
            clf = LogisticRegression(C=3.0, class_weight=self.class_weight, max_iter=2000)
            return Pipeline([("features", union), ("clf", clf)])
        raise ValueError(f"unknown learner {self.learner!r} (known: {', '.join(LEARNERS)})")

    def fit(self, X: Sequence[Any], y: Sequence[Any]) -> SearchableFormClassifier:
        samples = as_samples(X)
        target = np.asarray(y, dtype=bool)
        self.pipeline_ = self._build().fit(samples, target)
        self.classes_ = np.array([False, True])
        if len(np.unique(target)) < 2:
            raise ValueError("training data needs searchable and non-searchable forms")
        return self

    def predict_proba(self, X: Sequence[Any]) -> np.ndarray:
        samples = as_samples(X)
        if not samples:
            return np.zeros((0, 2))
        proba = self.pipeline_.predict_proba(samples)
        # the pipeline's classes are sorted [False, True] already
        return np.asarray(proba, dtype=np.float64)

    def predict(self, X: Sequence[Any]) -> np.ndarray:
        return self.predict_proba(X)[:, 1] >= 0.5

    def feature_importances(self) -> list[tuple[str, float]]:
        """(feature, importance) of a fitted tree, largest first."""
        clf = self.pipeline_.named_steps.get("clf")
        if not isinstance(clf, DecisionTreeClassifier):
            return []
        names = self.pipeline_.named_steps["structure"].get_feature_names_out()
        pairs = sorted(zip(names, clf.feature_importances_, strict=True), key=lambda p: -p[1])
        return [(str(n), float(v)) for n, v in pairs if v > 0]


def cross_validate_searchable(
    df: pd.DataFrame,
    model: SearchableFormClassifier | None = None,
    n_splits: int = 5,
) -> dict[str, Any]:
    """Site-grouped K-fold CV on labelled forms (columns form, title, url, site, searchable).

    Returns precision/recall/F1 of the search class, accuracy, the confusion
    matrix ([[tn, fp], [fn, tp]]) and the out-of-fold predictions.
    """
    from classifiers.datasets import samples

    model = model if model is not None else SearchableFormClassifier()
    X = samples(df)
    y = df["searchable"].to_numpy(dtype=bool)
    groups = df["site"].to_numpy()
    pred = np.zeros(len(y), dtype=bool)
    score = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=n_splits).split(X, y, groups):
        m = clone(model).fit([X[i] for i in train], y[train])
        p = m.predict_proba([X[i] for i in test])[:, 1]
        score[test] = p
        pred[test] = p >= 0.5
    return binary_report(y, pred) | {"n_splits": n_splits, "pred": pred, "score": score}


def binary_report(y: np.ndarray, pred: np.ndarray) -> dict[str, Any]:
    """Precision, recall, F1 of the positive class, accuracy, confusion matrix."""
    p, r, f, _ = precision_recall_fscore_support(
        y, pred, average="binary", pos_label=True, zero_division=0
    )
    cm = confusion_matrix(y, pred, labels=[False, True])
    return {
        "precision": round(float(p), 4),
        "recall": round(float(r), 4),
        "f1": round(float(f), 4),
        "accuracy": round(float(np.mean(y == pred)), 4),
        "n": len(y),
        "n_positive": int(np.sum(y)),
        "confusion": cm.tolist(),
    }


def train_searchable_model(
    out: Path | str | None = None,
    *,
    data: Path | str | None = None,
    n_splits: int = 5,
    **params: Any,
) -> tuple[SearchableFormClassifier, dict[str, Any]]:
    """Cross-validate by site, fit on all formasaurus forms, save to ``out`` (if given).

    Returns (model, metrics). Positive class: formasaurus type "s" (search);
    every other annotated type is negative.
    """
    from classifiers.datasets import FORMASAURUS_FILE, data_hash, load_formasaurus, samples
    from classifiers.persist import save_model

    src = Path(data) if data is not None else FORMASAURUS_FILE
    df = load_formasaurus(src)
    model = SearchableFormClassifier(**params)
    report = cross_validate_searchable(df, model, n_splits=n_splits)
    metrics = {k: v for k, v in report.items() if k not in ("pred", "score")}
    metrics["cv"] = f"GroupKFold({n_splits}) by site"
    model.fit(samples(df), df["searchable"].to_numpy(dtype=bool))
    if out is not None:
        save_model(
            model,
            out,
            kind="searchable",
            data_hash=data_hash([src]),
            params=model.get_params(),
            metrics=metrics,
            extra={"data": str(src.name), "top_features": model.feature_importances()[:12]},
        )
    return model, metrics
