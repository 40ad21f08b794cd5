"""Write a saved model's inference file (``classifiers.linear_inference``), checked.

``export_spec(model, kind)`` reads the fitted attributes of the critic's models (the
shapes ``classifiers.fast_inference`` compiles) into a spec and arrays; None for any
other shape. ``write_inference(directory, kind, check)`` loads the model of a model
directory, exports it, scores ``check`` both ways and writes ``inference.npz`` only when
every probability is the same float (else ModelError, and no file). ``check``: samples
(``FormSample``) for the searchable and domain models; for the context model
``ContextCheck`` (page texts, and forms' inputs to the context model).
"""

from __future__ import annotations

import io
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import FunctionTransformer, LabelEncoder, MaxAbsScaler

from classifiers import linear_inference as li
from classifiers.context import ContextBundle, PageTopics
from classifiers.domain import DomainFormClassifier
from classifiers.exceptions import ModelError
from classifiers.form_features import (
    STRUCTURE_FEATURES,
    FormStructure,
    FormText,
    HostWords,
    StemTokenizer,
)
from classifiers.persist import load_model
from classifiers.searchable import SearchableFormClassifier, _log1p

__all__ = ["ContextCheck", "after_save", "export_spec", "write_inference"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class ContextCheck:
    """What the context model's inference file is checked on: page texts (their topics),
    and the domain model's probabilities, page topics, keyword boxes and lexicon scores
    of some forms (rows alike)."""

    texts: Sequence[str]
    form_proba: np.ndarray
    form_classes: Sequence[str]
    topics: np.ndarray
    boxes: np.ndarray
    lexicon: np.ndarray


class _Out:
    """The arrays of a spec being written, named a0, a1, ..."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def add(self, a: Any) -> str | None:
        if a is None:
            return None
        name = f"a{len(self.arrays)}"
        self.arrays[name] = np.asarray(a)
        return name


def _terms(vocabulary: dict[str, Any]) -> list[str]:
    terms = [""] * len(vocabulary)
    for t, i in vocabulary.items():
        terms[int(i)] = str(t)
    return terms


def _analyzer(vec: TfidfVectorizer) -> dict[str, Any] | None:
    if (vec.input != "content" or vec.preprocessor is not None or vec.strip_accents
            or vec.stop_words is not None):  # fmt: skip
        return None
    lo, hi = vec.ngram_range
    if vec.analyzer == "word" and isinstance(vec.tokenizer, StemTokenizer):
        return {"kind": "word", "tokenizer": "stem", "ngram": [lo, hi],
                "lowercase": bool(vec.lowercase)}  # fmt: skip
    if vec.analyzer == "char_wb":
        return {"kind": "char_wb", "ngram": [lo, hi], "lowercase": bool(vec.lowercase)}
    return None


def _transform(t: Any, out: _Out) -> dict[str, Any] | None:
    if getattr(t, "_sklearn_output_config", {}).get("transform", "default") != "default":
        return None
    if isinstance(t, FormStructure):
        return {"type": "structure", "width": len(STRUCTURE_FEATURES)}
    if isinstance(t, FormText):
        return {"type": "signal", "signal": t.signal}
    if isinstance(t, HostWords):
        return {"type": "host_words", "vocabulary": sorted(t.vocabulary_)}
    if isinstance(t, FunctionTransformer):
        if t.validate or t.func is not _log1p or t.kw_args:
            return None
        return {"type": "log1p"}
    if isinstance(t, MaxAbsScaler):
        return {"type": "max_abs", "scale": out.add(t.scale_), "clip": bool(t.clip),
                "copy": bool(t.copy)}  # fmt: skip
    if isinstance(t, TfidfVectorizer):
        analyzer, tf = _analyzer(t), t._tfidf
        if (analyzer is None or tf.norm not in (None, "l2")
                or np.dtype(t.dtype) not in (np.float32, np.float64)):  # fmt: skip
            return None
        return {"type": "tfidf", "analyzer": analyzer, "terms": _terms(t.vocabulary_),
                "dtype": np.dtype(t.dtype).name, "idf": out.add(getattr(tf, "idf_", None)),
                "binary": bool(t.binary), "sublinear": bool(tf.sublinear_tf),
                "norm": tf.norm}  # fmt: skip
    if isinstance(t, Pipeline):
        steps = [_transform(s, out) for _, s in t.steps if s is not None and s != "passthrough"]
        if any(s is None for s in steps):
            return None
        return {"type": "chain", "steps": steps}
    if isinstance(t, FeatureUnion):
        weights = t.transformer_weights or {}
        parts = []
        for name, part in t.transformer_list:
            node = None if part is None or isinstance(part, str) else _transform(part, out)
            if node is None:
                return None
            parts.append({"node": node, "weight": weights.get(name)})
        return {"type": "union", "parts": parts} if parts else None
    return None


def _linear(est: Any, out: _Out) -> dict[str, Any] | None:
    if not isinstance(est, LinearClassifierMixin) or not hasattr(est, "coef_"):
        return None
    return {"coef": out.add(est.coef_), "intercept": out.add(est.intercept_)}


def _proba(est: Any, out: _Out) -> dict[str, Any] | None:
    if isinstance(est, LogisticRegression):
        node = _linear(est, out)
        return None if node is None or len(est.classes_) != 2 else {"type": "logistic", **node}
    if isinstance(est, CalibratedClassifierCV) and est.method == "sigmoid":
        n_classes = len(est.classes_)
        members = []
        for cc in est.calibrated_classifiers_:
            node = _linear(cc.estimator, out)
            if node is None or len(cc.classes) != n_classes or (
                    len(cc.estimator.classes_) == 2 and n_classes != 2):  # fmt: skip
                return None
            idx = LabelEncoder().fit(cc.classes).transform(cc.estimator.classes_)
            if n_classes == 2:
                idx = idx + 1
            node["calibrators"] = [[int(i), float(c.a_), float(c.b_)]
                                   for i, c in zip(idx, cc.calibrators, strict=False)]  # fmt: skip
            members.append(node)
        return {"type": "calibrated", "n_classes": n_classes, "members": members}
    return None


def _topics(topics: PageTopics, out: _Out) -> dict[str, Any] | None:
    names = {id(f): n for n, f in li.ANALYZERS.items()}
    if not all(topics._shared) or id(topics._analyzer) not in names:
        return None
    models = []
    for k, d in enumerate(topics.domains_):
        est = topics.models[d]
        vec = est.pipeline_.named_steps["tfidf"]
        final = _proba(est.pipeline_.named_steps["clf"], out)
        if final is None or vec.norm not in (None, "l2"):
            return None
        models.append({"cols": out.add(topics._cols[k]), "sublinear": bool(vec.sublinear_tf),
                       "idf": out.add(vec.idf_ if vec.use_idf else None), "norm": vec.norm,
                       "final": final, "on": list(est.classes_).index(1)})  # fmt: skip
    return {"domains": list(topics.domains_), "analyzer": names[id(topics._analyzer)],
            "terms": _terms(topics._vocab), "models": models}  # fmt: skip


def export_spec(model: Any, kind: str) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
    """(spec of ``model``, its arrays) for ``linear_inference.build``; None when the model
    has a shape the format does not hold."""
    out = _Out()
    node: dict[str, Any] | None = None
    if kind == "searchable" and isinstance(model, SearchableFormClassifier):
        pipe = model.pipeline_
        *head, (_, last) = pipe.steps
        features = _transform(Pipeline(head), out) if head else None
        final = _proba(last, out)
        if features is not None and final is not None:
            node = {"classes": [bool(c) for c in model.classes_], "features": features,
                    "final": final}  # fmt: skip
    elif kind == "domain" and isinstance(model, DomainFormClassifier) and model.calibrated_:
        features, final = _transform(model.features_, out), _proba(model.svm_, out)
        if features is not None and final is not None:
            node = {"classes": [str(c) for c in model.classes_], "features": features,
                    "final": final}  # fmt: skip
    elif kind == "context" and isinstance(model, ContextBundle):
        lr = model.model.lr_
        topics = _topics(model.topics, out)
        if topics is not None and lr.coef_.shape[0] == 1:
            node = {"classes": [str(c) for c in model.classes_], "topics": topics,
                    "coef": out.add(lr.coef_), "intercept": out.add(lr.intercept_)}  # fmt: skip
    if node is None:
        return None
    return {"format": li.FORMAT, "version": li.VERSION, "kind": kind, "model": node}, out.arrays


def _same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=True))


def _checked(model: Any, scorer: Any, kind: str, check: Any) -> str:
    """Where the scorer and the model differ on ``check`` ("" when nowhere)."""
    if kind == "context":
        c: ContextCheck = check
        if not len(c.texts) or not len(c.form_proba):
            return "no check inputs"
        if not _same(model.topics.scores(list(c.texts)), scorer.topics.scores(list(c.texts))):
            return "page topics"
        args = (c.form_proba, list(c.form_classes), c.topics, c.boxes, c.lexicon)
        return "" if _same(model.proba(*args), scorer.proba(*args)) else "context probabilities"
    samples = list(check)
    if not samples:
        return "no check inputs"
    for start in range(0, len(samples), 256):  # batches, as the critic calls it
        part = samples[start:start + 256]
        if not _same(model.predict_proba(part), scorer.predict_proba(part)):
            return f"probabilities of samples {start}-{start + len(part) - 1}"
    return ""


def write_inference(directory: Path | str, kind: str, check: Any) -> Path | None:
    """Write ``directory``/inference.npz for the model saved there (module doc); the path,
    or None when the model has a shape the format does not hold."""
    d = Path(directory)
    model, manifest = load_model(d, kind)
    built = export_spec(model, kind)
    if built is None:
        return None
    spec, arrays = built
    spec.update(model_sha256=manifest.get("model_sha256"), data_hash=manifest.get("data_hash"),
                versions=li.runtime_versions())  # fmt: skip
    buf = io.BytesIO()
    raw = np.frombuffer(json.dumps(spec, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    np.savez_compressed(buf, spec=raw, **arrays)  # type: ignore[arg-type]
    again, again_arrays = li.read_inference(_tmp_write(d, buf.getvalue()))
    scorer = li.build(kind, again, again_arrays)
    where = _checked(model, scorer, kind, check)
    tmp = d / (li.FILE + ".tmp")
    if where:
        tmp.unlink(missing_ok=True)
        raise ModelError(f"the {kind} model's inference file differs from scikit-learn "
                         f"({where}); not written")  # fmt: skip
    os.replace(tmp, d / li.FILE)
    return d / li.FILE


def _tmp_write(d: Path, data: bytes) -> Path:
    tmp = d / (li.FILE + ".tmp")
    tmp.write_bytes(data)
    return tmp


def after_save(directory: Path | str, kind: str, check: Any) -> Path | None:
    """The inference file of a model just saved (``write_inference``), checked on
    ``check``; None, with a warning, when it cannot be written (judge then loads the
    model with scikit-learn, as before)."""
    try:
        return write_inference(directory, kind, check)
    except (ModelError, ValueError, TypeError, KeyError, IndexError) as exc:
        log.warning("no inference file for the %s model in %s: %s", kind, directory, exc)
        return None
