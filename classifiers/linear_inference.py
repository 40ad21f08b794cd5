"""Saved models scored with numpy and scipy.sparse alone: the inference format.

Importing scikit-learn costs about 1.5 CPU s (it brings scipy.stats and pandas), more
than ``formhunter judge`` spends judging a hundred pages. The critic's three models
(searchable, domain, context) are linear models over TF-IDF and counted features,
so ``classifiers.inference_export`` writes, beside a model's ``model.npz``, an
``inference.npz``: a JSON spec naming the steps (from the fixed table of this
module, never code) and the numeric arrays they use (vocabularies, idf, coefficients,
calibrators), read with ``allow_pickle=False``. ``load_scorer`` uses it when it was
made from that very model (the manifest's ``model_sha256`` and ``data_hash``) with the
installed numpy, scipy and Python, and else loads the model itself
(``classifiers.persist.load_model``, scikit-learn).

Every step does the float operations scikit-learn does, in the same order and dtype
(``classifiers.fast_inference``, its compiled path, is the reference), so the
probabilities are the same floats: the exporter writes a file only after the two paths
agreed bit for bit on the check inputs it is given.
"""

from __future__ import annotations

import json
import logging
import platform
import re
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from scipy.special import expit

from classifiers.context_features import pair_features
from classifiers.exceptions import ModelError
from classifiers.form_signals import (
    STRUCTURE_FEATURES,
    as_samples,
    host_words,
    signal_text,
    stem_tokens,
    structure_vector,
)
from classifiers.lexicon import concept_terms
from classifiers.porter import PorterStemmer
from classifiers.text import stem_terms, stop_words

__all__ = ["FILE", "FORMAT", "VERSION", "ContextScorer", "FormScorer", "build",
           "calibrated_proba", "count_terms", "l2_normalize_rows", "load_scorer",
           "read_inference", "runtime_versions", "union_of", "weigh_terms"]  # fmt: skip

log = logging.getLogger(__name__)

FILE = "inference.npz"
FORMAT = "formhunter-inference"
VERSION = 1
#: kinds of model the format holds
KINDS = ("searchable", "domain", "context")
#: the text analyzers a saved page model may name
ANALYZERS: dict[str, Callable[[str], list[str]]] = {
    "stem_terms": stem_terms, "concept_terms": concept_terms,
}  # fmt: skip
_WHITE_SPACES = re.compile(r"\s\s+")  # scikit-learn's CountVectorizer._white_spaces

Fn = Callable[[Any], Any]


#: leading version components that must agree with the file's (its scorers call the same
#: numpy and scipy functions as scikit-learn on the same machine, so a patch release,
#: which keeps those algorithms, changes nothing; scikit-learn's own version is the
#: manifest's check)
_MUST_MATCH = {"python": 2, "numpy": 2, "scipy": 2}


def runtime_versions() -> dict[str, str]:
    """The versions of what the scorers run on, recorded in an inference file."""
    return {"python": platform.python_version(), "numpy": metadata.version("numpy"),
            "scipy": metadata.version("scipy")}  # fmt: skip


def l2_normalize_rows(X: sparse.csr_matrix) -> None:
    """``sklearn.utils.sparsefuncs_fast.inplace_csr_row_normalize_l2``, the same floats: per
    row, the squares summed in order in double precision, each value divided by the
    square root (in double, rounded to the data's dtype); all-zero rows kept."""
    data, indptr = X.data, X.indptr
    for i in range(X.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        if a == b:
            continue
        row = data[a:b]
        total = np.cumsum(row * row, dtype=np.float64)[-1]  # sequential, as the C loop
        if total == 0.0:
            continue
        data[a:b] = row / np.sqrt(total)


def weigh_terms(X: sparse.csr_matrix, *, binary: bool, sublinear: bool,
                idf: np.ndarray | None) -> None:
    """Term counts ``X`` weighed in place as scikit-learn's TfidfTransformer does before
    its norm: 1 for any count (``binary``), 1 + log(count) (``sublinear``), times ``idf``."""
    if binary:
        X.data.fill(1)
    if sublinear:
        np.log(X.data, X.data)
        X.data += 1.0
    if idf is not None:
        X.data *= idf[X.indices]


def union_of(parts: list[tuple[Fn, float | None]]) -> Fn:
    """scikit-learn's FeatureUnion.transform: each part (times its weight), side by side."""

    def union(X: Any) -> Any:
        Xs = [f(X) if w is None else f(X) * w for f, w in parts]
        if any(sparse.issparse(x) for x in Xs):
            return sparse.hstack(Xs).tocsr()
        return np.concatenate(Xs, axis=1)

    return union


def _word_ngrams(tokens: list[str], lo: int, hi: int) -> list[str]:
    """``CountVectorizer._word_ngrams`` without stop words."""
    if hi == 1:
        return tokens
    original = tokens
    if lo == 1:
        tokens = list(original)
        lo += 1
    else:
        tokens = []
    n_tokens = len(original)
    for n in range(lo, min(hi + 1, n_tokens + 1)):
        for i in range(n_tokens - n + 1):
            tokens.append(" ".join(original[i:i + n]))
    return tokens


def _char_wb_ngrams(text: str, lo: int, hi: int) -> list[str]:
    """``CountVectorizer._char_wb_ngrams``."""
    text = _WHITE_SPACES.sub(" ", text)
    ngrams: list[str] = []
    for w in text.split():
        w = " " + w + " "
        w_len = len(w)
        for n in range(lo, hi + 1):
            offset = 0
            ngrams.append(w[offset:offset + n])
            while offset + n < w_len:
                offset += 1
                ngrams.append(w[offset:offset + n])
            if offset == 0:  # a short word (w_len < n) counted once
                break
    return ngrams


def _analyzer(node: dict[str, Any]) -> Fn:
    kind, lower = node["kind"], bool(node["lowercase"])
    lo, hi = (int(x) for x in node["ngram"])
    if kind == "word" and node["tokenizer"] == "stem":
        stop, stemmer = stop_words(), PorterStemmer()  # StemTokenizer's
        cache: dict[str, str] = {}

        def words(doc: str) -> list[str]:
            doc = doc.lower() if lower else doc
            return _word_ngrams(stem_tokens(doc, stop, stemmer, cache), lo, hi)

        return words
    if kind == "char_wb":
        return lambda doc: _char_wb_ngrams(doc.lower() if lower else doc, lo, hi)
    raise ModelError(f"unknown analyzer {node!r}")


class _Arrays:
    """The file's arrays, by the names the spec gives them."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.arrays = arrays

    def __call__(self, name: Any) -> np.ndarray:
        if not isinstance(name, str) or name not in self.arrays:
            raise ModelError(f"the inference spec names a missing array {name!r}")
        return self.arrays[name]

    def optional(self, name: Any) -> np.ndarray | None:
        return None if name is None else self(name)


def _tfidf(node: dict[str, Any], arr: _Arrays) -> Fn:
    """``TfidfVectorizer.transform`` (``CountVectorizer._count_vocab`` with the fitted
    vocabulary, then ``TfidfTransformer.transform``)."""
    vocab = {str(t): i for i, t in enumerate(node["terms"])}
    analyze = _analyzer(node["analyzer"])
    dtype = np.dtype(node["dtype"])
    idf = arr.optional(node["idf"])
    binary, sublinear, norm = bool(node["binary"]), bool(node["sublinear"]), node["norm"]
    if norm not in (None, "l2"):
        raise ModelError(f"unknown norm {norm!r}")

    def transform(docs: Sequence[str]) -> Any:
        j_indices: list[int] = []
        values: list[int] = []
        indptr = [0]
        for doc in docs:
            counter: dict[int, int] = {}
            for feature in analyze(doc):
                k = vocab.get(feature)
                if k is not None:
                    counter[k] = counter.get(k, 0) + 1
            j_indices.extend(counter)
            values.extend(counter.values())
            indptr.append(len(j_indices))
        index = np.int64 if indptr[-1] > np.iinfo(np.int32).max else np.int32
        X = sparse.csr_matrix(
            (np.asarray(values, dtype=np.intc), np.asarray(j_indices, dtype=index),
             np.asarray(indptr, dtype=index)),
            shape=(len(indptr) - 1, len(vocab)), dtype=dtype)  # fmt: skip
        X.sort_indices()
        weigh_terms(X, binary=binary, sublinear=sublinear, idf=idf)
        if norm == "l2":
            l2_normalize_rows(X)
        return X

    return transform


def _transform(node: dict[str, Any], arr: _Arrays) -> Fn:
    kind = node["type"]
    if kind == "structure":
        width = len(STRUCTURE_FEATURES)
        if int(node["width"]) != width:
            raise ModelError("the inference file's structure features are not this version's")
        return lambda X: (np.vstack([structure_vector(s) for s in as_samples(X)])
                          if len(X) else np.zeros((0, width)))  # fmt: skip
    if kind == "signal":
        signals = str(node["signal"]).split("+")
        return lambda X: [" ".join(signal_text(s, g) for g in signals) for s in as_samples(X)]
    if kind == "host_words":
        vocab = frozenset(str(w) for w in node["vocabulary"])
        return lambda X: [host_words(s, vocab) for s in as_samples(X)]
    if kind == "log1p":
        return np.log1p
    if kind == "max_abs":
        scale, clip, copy = arr(node["scale"]), bool(node["clip"]), bool(node["copy"])

        def scaled(X: Any) -> Any:
            X = np.array(X, copy=True) if copy else X
            X /= scale
            if clip:
                np.clip(X, -1.0, 1.0, out=X)
            return X

        return scaled
    if kind == "tfidf":
        return _tfidf(node, arr)
    if kind == "chain":
        steps = [_transform(s, arr) for s in node["steps"]]

        def chain(X: Any) -> Any:
            for f in steps:
                X = f(X)
            return X

        return chain
    if kind == "union":
        parts = [(_transform(p["node"], arr), p["weight"]) for p in node["parts"]]

        return union_of(parts)
    raise ModelError(f"unknown inference step {kind!r}")


def _decision(node: dict[str, Any], arr: _Arrays) -> Fn:
    """``LinearClassifierMixin.decision_function``."""
    coef, intercept = arr(node["coef"]), arr(node["intercept"])
    coef_t = coef.T if coef.ndim == 2 else coef

    def decision(X: Any) -> Any:
        scores = X @ coef_t
        if sparse.issparse(scores):
            scores = scores.toarray()
        scores = np.asarray(scores) + intercept
        return scores.reshape(-1) if scores.ndim > 1 and scores.shape[1] == 1 else scores

    return decision


def _proba(node: dict[str, Any], arr: _Arrays) -> Fn:
    kind = node["type"]
    if kind == "logistic":  # binary LogisticRegression.predict_proba
        decision = _decision(node, arr)

        def logistic(X: Any) -> Any:
            p = decision(X)
            p = expit(p, out=p)
            return np.stack([1 - p, p], axis=1)

        return logistic
    if kind == "calibrated":  # CalibratedClassifierCV.predict_proba, sigmoid
        return calibrated_proba(
            [(_decision(m, arr), [(int(i), float(a), float(b)) for i, a, b in
                                  m["calibrators"]]) for m in node["members"]],
            int(node["n_classes"]))  # fmt: skip
    raise ModelError(f"unknown inference step {kind!r}")


def calibrated_proba(members: list[tuple[Fn, list[tuple[int, float, float]]]],
                     n_classes: int) -> Fn:  # fmt: skip
    """``CalibratedClassifierCV.predict_proba`` (sigmoid) of its members: each member's
    decision function and its calibrators (class column, a, b)."""

    def proba(X: Any) -> Any:
        n = X.shape[0]
        mean = np.zeros((n, n_classes))
        for decision, calibrators in members:
            pred = decision(X)
            if pred.ndim == 1:
                pred = pred.reshape(-1, 1)
            p = np.zeros((n, n_classes))
            for (i, a, b), t in zip(calibrators, pred.T, strict=False):
                p[:, i] = expit(-(a * t + b))
            if n_classes == 2:
                p[:, 0] = 1.0 - p[:, 1]
            else:
                denominator = np.sum(p, axis=1)[:, np.newaxis]
                uniform = np.full_like(p, 1 / n_classes)
                p = np.divide(p, denominator, out=uniform, where=denominator != 0)
            p[(p > 1.0) & (p <= 1.0 + 1e-5)] = 1.0
            mean += p
        mean /= len(members)
        return mean

    return proba


def count_terms(texts: Sequence[str], analyzer: Callable[[str], list[str]],
                vocab: dict[str, int]) -> sparse.csr_matrix:  # fmt: skip
    """Term counts of each text over ``vocab`` (float64, columns in first-seen order per
    row, unsorted): what ``classifiers.context.PageTopics`` counts once for every page
    model."""
    indptr: list[int] = [0]
    indices: list[int] = []
    data: list[int] = []
    for text in texts:
        row: dict[int, int] = {}
        for t in analyzer(text):
            j = vocab.get(t)
            if j is not None:
                row[j] = row.get(j, 0) + 1
        indices.extend(row)
        data.extend(row.values())
        indptr.append(len(indices))
    return sparse.csr_matrix(
        (np.asarray(data, dtype=np.float64), np.asarray(indices, dtype=np.int64), indptr),
        shape=(len(texts), len(vocab)),
    )


class FormScorer:
    """The searchable or the domain model: ``predict_proba(samples)`` over ``classes_``."""

    def __init__(self, spec: dict[str, Any], arr: _Arrays) -> None:
        self.classes_ = np.asarray(spec["classes"], dtype=object)
        self._features = _transform(spec["features"], arr)
        self._final = _proba(spec["final"], arr)

    def predict_proba(self, X: Sequence[Any]) -> np.ndarray:
        return np.asarray(self._final(self._features(as_samples(X))), dtype=np.float64)


class TopicScorer:
    """``classifiers.context.PageTopics``: Pr(on topic) of pages for several domains."""

    def __init__(self, spec: dict[str, Any], arr: _Arrays) -> None:
        self.domains_ = [str(d) for d in spec["domains"]]
        self._analyzer = ANALYZERS[spec["analyzer"]]
        self._vocab = {str(t): i for i, t in enumerate(spec["terms"])}
        self._models = [(arr(m["cols"]), bool(m["sublinear"]), arr.optional(m["idf"]),
                         m["norm"], _proba(m["final"], arr), int(m["on"]))
                        for m in spec["models"]]  # fmt: skip
        if any(m[3] not in (None, "l2") for m in self._models):
            raise ModelError("unknown norm in the page models")

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(self.domains_)))
        if not len(texts):
            return out
        counts = count_terms(texts, self._analyzer, self._vocab)
        for k, (cols, sublinear, idf, norm, final, on) in enumerate(self._models):
            X = counts[:, cols].tocsr()
            if sublinear:
                X.data = np.log(X.data) + 1.0
            if idf is not None:
                X = X @ sparse.diags(idf)
            if norm == "l2":
                X = sparse.csr_matrix(X)
                l2_normalize_rows(X)
            out[:, k] = final(X)[:, on]
        return out


class ContextScorer:
    """``classifiers.context.ContextBundle``: the context model and its page topics."""

    def __init__(self, spec: dict[str, Any], arr: _Arrays) -> None:
        self.classes_ = np.asarray(spec["classes"], dtype=object)
        self.topics = TopicScorer(spec["topics"], arr)
        self._coef, self._intercept = arr(spec["coef"]), arr(spec["intercept"])

    def proba(self, form_proba: np.ndarray, form_classes: Sequence[str], topics: np.ndarray,
              keyword_box: np.ndarray,
              lexicon: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
        """``ContextBundle.proba``: probabilities over ``classes_``."""
        classes = [str(c) for c in self.classes_]
        order = [list(form_classes).index(c) for c in classes]
        X = pair_features(np.asarray(form_proba)[:, order], classes, topics,
                          self.topics.domains_, keyword_box, lexicon)  # fmt: skip
        X = np.asarray(X, dtype=np.float64)
        n, k, f = X.shape
        # DomainContextModel.predict_proba: LogisticRegression.decision_function, softmax
        z = X.reshape(n * k, f) @ self._coef.T + self._intercept
        z = z.reshape(-1).reshape(n, k)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True))


def build(kind: str, spec: dict[str, Any], arrays: dict[str, np.ndarray]) -> Any:
    """The scorer of a spec and its arrays (ModelError when malformed)."""
    arr = _Arrays(arrays)
    try:
        if kind == "context":
            return ContextScorer(spec["model"], arr)
        if kind in ("searchable", "domain"):
            return FormScorer(spec["model"], arr)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ModelError(f"malformed inference spec: {type(exc).__name__}: {exc}") from None
    raise ModelError(f"no inference format for {kind!r} models")


def read_inference(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(spec, arrays) of an inference file, read without pickle; ModelError when unreadable."""
    try:
        with np.load(path, allow_pickle=False) as z:
            spec = json.loads(bytes(z["spec"]).decode("utf-8"))
            arrays = {k: z[k] for k in z.files if k != "spec"}
    except (OSError, ValueError, KeyError, UnicodeDecodeError) as exc:
        raise ModelError(f"cannot read {path}: {exc}") from None
    if not isinstance(spec, dict):
        raise ModelError(f"{path} holds no inference spec")
    return spec, arrays


def _usable(spec: dict[str, Any], manifest: dict[str, Any], kind: str) -> str:
    """Why the spec may not stand for the manifest's model ("" when it may)."""
    if spec.get("format") != FORMAT or spec.get("version") != VERSION:
        return f"format {spec.get('format')}-{spec.get('version')}"
    if spec.get("kind") != kind:
        return f"a {spec.get('kind')!r} model"
    for key in ("model_sha256", "data_hash"):
        if not manifest.get(key) or spec.get(key) != manifest.get(key):
            return f"made from another model ({key})"
    saved, now = spec.get("versions"), runtime_versions()
    if not isinstance(saved, dict) or any(
            str(saved.get(lib, "")).split(".")[:n] != now[lib].split(".")[:n]
            for lib, n in _MUST_MATCH.items()):  # fmt: skip
        return f"made with {saved}, installed {now}"
    return ""


def load_scorer(directory: Path | str, kind: str) -> tuple[Any, dict[str, Any]]:
    """(model, manifest) of a model directory: its inference file's scorer when it stands
    for that model (module doc), else the model itself (``persist.load_model``)."""
    from classifiers.persist import MANIFEST, compatible, load_model, read_manifest

    d = Path(directory)
    path = d / FILE
    if kind in KINDS and path.is_file() and (d / MANIFEST).is_file():
        manifest = read_manifest(d)
        if manifest.get("kind") != kind or compatible(manifest.get("versions", {})):
            return load_model(d, kind)  # which says what is wrong
        try:
            spec, arrays = read_inference(path)
            why = _usable(spec, manifest, kind)
            if not why:
                return build(kind, spec, arrays), manifest
        except ModelError as exc:
            why = str(exc)
        log.info("not using %s (%s): loading the model with scikit-learn", path, why)
    return load_model(d, kind)
