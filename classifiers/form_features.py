"""Features of a form, one scikit-learn transformer per signal.

Samples are ``FormSample`` objects (a ``Form`` plus its page's title and URL);
plain ``Form`` objects are accepted too. ``FormStructure`` turns a form into a
fixed vector of structural counts and flags (the searchable-form tree's input);
``FormText`` picks one text signal (labels, field names, option texts, submit
texts, page title, text near the form, ...) and ``text_pipeline`` chains it with
a stemmed TF-IDF vectoriser (the domain SVM's input).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import Pipeline

from classifiers.form_signals import (
    _HOST_SPLIT_RE,
    STRUCTURE_FEATURES,
    TEXT_SIGNALS,
    FormSample,
    as_samples,
    host_split,
    host_tokens,
    host_words,
    keyword_box,
    signal_text,
    stem_tokens,
    structure_vector,
)
from classifiers.porter import PorterStemmer
from classifiers.text import stop_words

__all__ = [
    "STRUCTURE_FEATURES",
    "TEXT_SIGNALS",
    "FormSample",
    "FormStructure",
    "FormText",
    "HostWords",
    "SiteKeywords",
    "StemTokenizer",
    "as_samples",
    "host_tokens",
    "keyword_box",
    "structure_vector",
    "text_pipeline",
]


class FormStructure(BaseEstimator, TransformerMixin):
    """Structural counts and flags of each form (stateless; see ``STRUCTURE_FEATURES``)."""

    def fit(self, X: Sequence[Any], y: Any = None) -> FormStructure:
        self.n_features_out_ = len(STRUCTURE_FEATURES)
        return self

    def transform(self, X: Sequence[Any]) -> np.ndarray:
        samples = as_samples(X)
        if not samples:
            return np.zeros((0, len(STRUCTURE_FEATURES)))
        return np.vstack([structure_vector(s) for s in samples])

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        return np.asarray(STRUCTURE_FEATURES, dtype=object)


class SiteKeywords(BaseEstimator, TransformerMixin):
    """How much the site's context speaks of each domain: per domain, log(1 + the number
    of its keywords found in the host, site name, page title and navigation).

    ``keywords`` maps a domain to its keyword list (the domain model passes the
    packs' ``keywords``; none: no feature). Keywords match anywhere, so the host
    "autotrader" holds "auto". This is the plain keyword box's evidence: the form
    says "Search", the site says what it holds.
    """

    def __init__(self, keywords: dict[str, list[str]] | None = None) -> None:
        self.keywords = keywords

    def fit(self, X: Sequence[Any], y: Any = None) -> SiteKeywords:
        words = self.keywords or {}
        self.domains_ = sorted(words)
        self.patterns_ = [
            re.compile("|".join(re.escape(w.lower()) for w in
                                sorted(set(words[d]), key=len, reverse=True)))
            for d in self.domains_
        ]  # fmt: skip
        return self

    def transform(self, X: Sequence[Any]) -> np.ndarray:
        samples = as_samples(X)
        out = np.zeros((len(samples), len(self.domains_)))
        for i, s in enumerate(samples):
            text = " ".join((*host_tokens(s.url), s.site_name, s.title, s.nav)).lower()
            for j, rx in enumerate(self.patterns_):
                out[i, j] = len(rx.findall(text))
        return np.log1p(out)


class HostWords(BaseEstimator, TransformerMixin):
    """The words of a site's host and name: "autotrader.co.uk" -> "autotrader auto trader".

    ``fit`` learns a vocabulary (``vocabulary_``: words of 3+ letters seen at least
    ``min_count`` times in the training forms' labels, options, titles, nearby text,
    navigation and site names); ``transform`` keeps each host token and adds the
    vocabulary words it splits into (the split maximising the summed squared word
    lengths, each letter outside a word costing 1: "carsdirect" gives "cars direct").
    """

    _SOURCES = ("labels", "options", "submit", "title", "context", "nav")

    def __init__(self, min_count: int = 2) -> None:
        self.min_count = min_count

    def fit(self, X: Sequence[Any], y: Any = None) -> HostWords:
        counts: dict[str, int] = {}
        for sample in as_samples(X):
            text = " ".join(signal_text(sample, g) for g in self._SOURCES) + " " + sample.site_name
            for w in _HOST_SPLIT_RE.split(text.lower()):
                if len(w) > 2:
                    counts[w] = counts.get(w, 0) + 1
        self.vocabulary_ = frozenset(w for w, c in counts.items() if c >= self.min_count)
        return self

    def split(self, token: str) -> list[str]:
        """The vocabulary words of 3+ letters inside ``token``, other than itself ([] if none)."""
        return host_split(token, self.vocabulary_)

    def transform(self, X: Sequence[Any]) -> list[str]:
        return [host_words(sample, self.vocabulary_) for sample in as_samples(X)]


class FormText(BaseEstimator, TransformerMixin):
    """One text signal of each form, as a list of strings (feed it to a vectoriser).

    ``signal`` may join several signals with ``+`` ("labels+names"): their texts
    are concatenated.
    """

    def __init__(self, signal: str = "labels") -> None:
        self.signal = signal

    def fit(self, X: Sequence[Any], y: Any = None) -> FormText:
        for signal in self.signal.split("+"):
            if signal not in TEXT_SIGNALS:
                raise ValueError(f"unknown text signal {signal!r}")
        return self

    def transform(self, X: Sequence[Any]) -> list[str]:
        signals = self.signal.split("+")
        return [" ".join(signal_text(s, g) for g in signals) for s in as_samples(X)]


class StemTokenizer:
    """Lower-case word tokens, English stop words removed, Porter-stemmed.

    Splits camelCase first. Picklable (a module-level class); keeps a cache of
    stems because form vocabularies are small and repetitive.
    """

    def __init__(self) -> None:
        self._stemmer = PorterStemmer()
        self._cache: dict[str, str] = {}

    def __call__(self, text: str) -> list[str]:
        return stem_tokens(text, stop_words(), self._stemmer, self._cache)

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._stemmer = PorterStemmer()
        self._cache = {}


def text_pipeline(signal: str, **tfidf: Any) -> Pipeline:
    """``FormText(signal)`` followed by a stemmed, stop-word-free TF-IDF vectoriser."""
    params: dict[str, Any] = {
        "tokenizer": StemTokenizer(),
        "lowercase": False,
        "token_pattern": None,
        "sublinear_tf": True,
        "min_df": 1,
        "ngram_range": (1, 2),
        "dtype": np.float32,
    }
    params.update(tfidf)
    return Pipeline([("signal", FormText(signal)), ("tfidf", TfidfVectorizer(**params))])
