"""The context model's features, without scikit-learn (``classifiers.context`` fits the
model on them; ``classifiers.linear_inference`` scores a saved one with them alone)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["CONTEXT_FEATURES", "OTHER", "lexicon_text", "pair_features"]

OTHER = "other"
#: per (form, class) pair, in column order (``pair_features``)
CONTEXT_FEATURES = (
    "form_logit", "topic", "box_topic", "box_form_logit", "lexicon",
    "is_other", "other_max_topic", "other_box", "other_box_max_topic", "other_max_lexicon",
)  # fmt: skip
_EPS = 1e-4


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, _EPS, 1.0 - _EPS)
    return np.asarray(np.log(p / (1.0 - p)))


def pair_features(
    form_proba: np.ndarray,
    classes: Sequence[str],
    topics: np.ndarray,
    topic_domains: Sequence[str],
    keyword_box: np.ndarray,
    lexicon: np.ndarray | None = None,
) -> np.ndarray:
    """Features of every (form, class) pair: array (n forms, n classes, len(CONTEXT_FEATURES)).

    ``form_proba`` (n, len(classes)) from the domain model; ``topics`` (n,
    len(topic_domains)) page (or site) topic scores; ``keyword_box`` (n,) 0/1;
    ``lexicon`` (n, len(topic_domains)) ``lexicon_scores`` of the form's words (None:
    0). A class without a page classifier has topic and lexicon 0.
    """
    n, k = form_proba.shape
    col = {d: i for i, d in enumerate(topic_domains)}
    lex_in = lexicon if lexicon is not None else np.zeros_like(topics)
    topic = np.zeros((n, k))
    lex = np.zeros((n, k))
    for j, c in enumerate(classes):
        if c in col:
            topic[:, j] = topics[:, col[c]]
            lex[:, j] = lex_in[:, col[c]]
    box = np.asarray(keyword_box, dtype=np.float64).reshape(n, 1)
    lp = _logit(np.asarray(form_proba, dtype=np.float64))
    is_other = np.array([c == OTHER for c in classes], dtype=np.float64).reshape(1, k)
    max_topic = (topics.max(axis=1) if topics.shape[1] else np.zeros(n)).reshape(n, 1)
    max_lex = (lex_in.max(axis=1) if lex_in.shape[1] else np.zeros(n)).reshape(n, 1)
    feats = [
        lp, topic, box * topic, box * lp, lex,
        np.broadcast_to(is_other, (n, k)), is_other * max_topic, is_other * box,
        is_other * box * max_topic, is_other * max_lex,
    ]  # fmt: skip
    return np.stack(feats, axis=2)


def lexicon_text(sample: Any) -> str:
    """What the lexicon feature reads of a ``FormSample``: the form's own words (labels,
    placeholders, option texts, submit texts, text, action), the page title, the site name."""
    f = sample.form
    fields = " ".join(f"{x.label} {x.placeholder} {' '.join(x.options[:30])}" for x in f.fields)
    return (f"{sample.title} {sample.site_name} {fields} {' '.join(f.submit_texts)} "
            f"{f.text[:1000]} {f.action}")  # fmt: skip
