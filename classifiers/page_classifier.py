"""The page classifier: Pr(topic | page) from a page's title and text.

It is the baseline crawler's focus and the apprentice's critic. A multinomial
naive Bayes or a calibrated linear SVM (the crawl default) over TF-IDF weighted,
Porter-stemmed words (``classifiers.text.stem_terms``), trained per domain from
the REAL pages (``domains/<name>/pages_real.jsonl``, domains/REALPAGES.md; the
``real`` page classifier) and/or only the domain pack's hand-written topical pages
(``domains/<name>/pages.jsonl``; ``train_page_classifier(real=False)``, the crawl's
``default`` for now) against the off-topic pages (``domains/_offtopic``, real and
hand-written) and the other domains' pages. The real pages of the frozen split
(``data/splits/pages_frozen.json``) are never trained on. Quality is measured on the
real pages only: site-grouped cross-validation (``cross_validate_real``), and once on
the frozen split.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import accuracy_score, precision_recall_fscore_support, roc_auc_score
from sklearn.model_selection import GroupKFold
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.svm import LinearSVC
from sklearn.utils.validation import check_is_fitted

from classifiers.exceptions import DataError
from classifiers.lexicon import concept_terms
from classifiers.text import page_text, stem_terms

KIND = "page"
MODELS = ("nb", "svm")
OFFTOPIC = "_offtopic"
OFF = "offtopic"  # the label of the off-topic real pages
REAL_FILE = "pages_real.jsonl"
FROZEN_FILE = Path(__file__).resolve().parents[1] / "data" / "splits" / "pages_frozen.json"
#: the parameters the crawl's page classifier is trained with (``train_page_classifier``)
#: and the gate measures by default
CRAWL_PARAMS: dict[str, Any] = {"model": "svm", "char_chars": 0, "lexicon": True,
                                 "random_state": 0}


def _heads(texts: Sequence[str], n: int) -> list[str]:
    """The first ``n`` characters of each text (lower-cased), for the character n-grams."""
    return [t[:n].lower() for t in texts]


class PageTopicClassifier(ClassifierMixin, BaseEstimator):
    """Text classifier, label 1 = on topic.

    fit(X, y): ``X`` texts (see ``page_text``), ``y`` 0/1. Learned:
    ``pipeline_``, ``classes_``, ``vocabulary_size_``. ``char_chars`` > 0 adds
    character 3-5-grams (within words) of the first ``char_chars`` characters of the
    text: evidence that carries across languages and scripts without a word list.
    ``lexicon``: the words are ``classifiers.lexicon.concept_terms`` (stems plus one
    concept token per multilingual lexicon entry of the page's start), so that what the
    (mostly English) training pages teach about "books" carries to "knihy" or "图书".
    """

    def __init__(
        self,
        model: str = "nb",
        alpha: float = 0.1,
        C: float = 1.0,
        min_df: int = 1,
        max_features: int | None = 50_000,
        sublinear_tf: bool = True,
        char_chars: int = 0,
        lexicon: bool = False,
        random_state: int | None = None,
    ) -> None:
        self.model = model
        self.alpha = alpha
        self.C = C
        self.min_df = min_df
        self.max_features = max_features
        self.sublinear_tf = sublinear_tf
        self.char_chars = char_chars
        self.lexicon = lexicon
        self.random_state = random_state

    def _final(self, y: np.ndarray) -> Any:
        if self.model == "nb":
            # Uniform class prior: being on topic must not depend on how many
            # negative pages the packs happen to hold.
            return MultinomialNB(alpha=self.alpha, fit_prior=False)
        if self.model == "svm":
            svm = LinearSVC(C=self.C, class_weight="balanced", random_state=self.random_state)
            smallest = int(np.bincount(y).min()) if len(np.unique(y)) > 1 else 0
            return CalibratedClassifierCV(svm, cv=max(2, min(3, smallest)), method="sigmoid")
        raise ValueError(f"model must be one of {MODELS}, not {self.model!r}")

    def fit(self, X: Sequence[str], y: Any) -> PageTopicClassifier:
        labels = np.asarray(y, dtype=np.int64)
        texts = list(X)
        if len(texts) != len(labels):
            raise ValueError(f"X has {len(texts)} texts but y has {len(labels)}")
        if len(np.unique(labels)) < 2:
            raise ValueError("need on-topic and off-topic examples")
        words = TfidfVectorizer(analyzer=concept_terms if self.lexicon else stem_terms,
                                min_df=self.min_df,
                                max_features=self.max_features, sublinear_tf=self.sublinear_tf)
        features: Any = words
        if self.char_chars > 0:
            chars = Pipeline([
                ("head", FunctionTransformer(_heads, kw_args={"n": self.char_chars})),
                ("tfidf", TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), min_df=2,
                                          max_features=self.max_features, sublinear_tf=True,
                                          dtype=np.float64)),
            ])  # fmt: skip
            features = FeatureUnion([("words", words), ("chars", chars)])
        self.pipeline_ = Pipeline([("tfidf", features), ("clf", self._final(labels))])
        self.pipeline_.fit(texts, labels)
        self.classes_ = self.pipeline_.classes_
        self.vocabulary_size_ = len(words.vocabulary_) + (
            len(features.transformer_list[1][1].named_steps["tfidf"].vocabulary_)
            if self.char_chars > 0 else 0
        )  # fmt: skip
        return self

    def predict_proba(self, X: Sequence[str]) -> np.ndarray:
        check_is_fitted(self, "pipeline_")
        return np.asarray(self.pipeline_.predict_proba(list(X)))

    def predict(self, X: Sequence[str]) -> np.ndarray:
        return np.asarray(self.pipeline_.predict(list(X)))

    def topic_probability(self, X: Sequence[str]) -> np.ndarray:
        """Pr(on topic) per text."""
        proba = self.predict_proba(X)
        return proba[:, list(self.classes_).index(1)]


# --------------------------------------------------------------------------- data


def page_corpus(
    domain: str, root: Path | str | None = None, *, other_domains: bool = True
) -> pd.DataFrame:
    """Training pages for ``domain``: columns text, label (1 on topic), site, source.

    Positives: the pack's pages. Negatives: ``_offtopic`` pages and (when
    ``other_domains``) the other packs' pages. DataError when the pack has no pages.
    """
    from classifiers.datasets import domains_root, iter_packs, load_pack

    base = domains_root(root)
    pack = load_pack(domain, base)
    if not pack.pages:
        raise DataError(f"domain pack {domain!r} has no pages.jsonl to train a page classifier")
    rows: list[dict[str, Any]] = []

    def add(pages: list[dict[str, Any]], label: int, source: str) -> None:
        for p in pages:
            rows.append(
                {
                    "text": page_text(p),
                    "label": label,
                    "site": str(p.get("site") or p.get("url") or f"{source}-{len(rows)}"),
                    "source": source,
                }
            )

    add(pack.pages, 1, domain)
    if (base / OFFTOPIC).is_dir():
        add(load_pack(OFFTOPIC, base).pages, 0, OFFTOPIC)
    if other_domains:
        for name in iter_packs(base):
            if name != domain:
                add(load_pack(name, base).pages, 0, name)
    frame = pd.DataFrame(rows, columns=["text", "label", "site", "source"])
    if frame["label"].nunique() < 2:
        raise DataError(
            f"no negative pages for {domain!r}: add domains/{OFFTOPIC}/pages.jsonl or other packs"
        )
    return frame


def corpus_files(root: Path | str | None = None) -> list[Path]:
    """The files a page classifier is trained from (for the manifest's data hash): the
    packs' pages, the real pages and the frozen split that keeps some of them out."""
    from classifiers.datasets import domains_root

    base = domains_root(root)
    files = sorted(base.glob("*/pages.jsonl")) + real_page_files(base)
    return files + ([FROZEN_FILE] if FROZEN_FILE.is_file() else [])


def cross_validate(
    estimator: PageTopicClassifier, corpus: pd.DataFrame, n_splits: int = 5
) -> dict[str, Any]:
    """Site-grouped cross-validated metrics of the on-topic class."""
    y = corpus["label"].to_numpy()
    groups = corpus["site"].to_numpy()
    n_splits = min(n_splits, len(np.unique(groups)))
    if n_splits < 2:
        return {"n_pos": int(y.sum()), "n_neg": int((1 - y).sum()), "folds": 0}
    proba = np.zeros(len(y))
    texts = corpus["text"].tolist()
    for train, test in GroupKFold(n_splits=n_splits).split(texts, y, groups):
        if len(np.unique(y[train])) < 2:
            proba[test] = y[train].mean()
            continue
        est = clone(estimator).fit([texts[i] for i in train], y[train])
        proba[test] = est.topic_probability([texts[i] for i in test])
    pred = (proba >= 0.5).astype(np.int64)
    p, r, f, _ = precision_recall_fscore_support(y, pred, average="binary", zero_division=0)
    return {
        "folds": n_splits,
        "grouped_by": "site",
        "n_pos": int(y.sum()),
        "n_neg": int((1 - y).sum()),
        "accuracy": round(float(accuracy_score(y, pred)), 4),
        "precision": round(float(p), 4),
        "recall": round(float(r), 4),
        "f1": round(float(f), 4),
        "roc_auc": round(float(roc_auc_score(y, proba)), 4),
    }


def train_page_classifier(
    domain: str,
    model: str = "nb",
    root: Path | str | None = None,
    *,
    evaluate: bool = True,
    n_splits: int = 5,
    random_state: int = 0,
    other_domains: bool = True,
    real: bool = True,
) -> tuple[PageTopicClassifier, dict[str, Any]]:
    """Train on the domain's pack pages and (``real``) the real pages outside the frozen
    split; returns (fitted classifier, metrics). ``metrics`` (with ``evaluate``) is the
    site-grouped CV on the real pages of the domain against all other real pages
    (``cross_validate_real``; pack pages join every training fold), or the packs'
    CV when there are no real pages of the domain."""
    corpus = page_corpus(domain, root, other_domains=other_domains)
    pages = real_pages(root)
    dev = pages[~pages["frozen"]].reset_index(drop=True)
    if not real:
        dev = dev.iloc[:0]
    if not other_domains:
        dev = dev[dev["label"].isin([domain, OFF])].reset_index(drop=True)
    params = CRAWL_PARAMS if real else {}
    est = PageTopicClassifier(**{**params, "model": model, "random_state": random_state})
    metrics: dict[str, Any] = {}
    if evaluate:
        if (dev["label"] == domain).any():
            packs = pack_pages(root)
            if not other_domains:
                packs = packs[packs["label"].isin([domain, OFF])]
            rep = cross_validate_real(est, dev, [domain], extra=packs, n_splits=n_splits)
            metrics = {"real_cv": rep["per_label"][domain], "folds": rep["folds"],
                       "grouped_by": "site", "n_sites": rep["n_sites"],
                       "offtopic_fp_rate": rep["offtopic_fp_rate"]}  # fmt: skip
        else:
            metrics = cross_validate(est, corpus, n_splits)
    texts = corpus["text"].tolist() + dev["text"].tolist()
    y = np.concatenate([corpus["label"].to_numpy(), (dev["label"] == domain).to_numpy()])
    est.fit(texts, y.astype(np.int64))
    metrics["vocabulary"] = est.vocabulary_size_
    metrics["n_real_pages"] = len(dev)
    return est, metrics


def model_dir(domain: str, model: str = "nb", models_dir: Path | str | None = None,
              real: bool = False) -> Path:  # fmt: skip
    """Where the page classifier of a domain is loaded from: <models>/page/<domain>/<model>/,
    ``<model>-real`` for one trained on the real pages too (``models_dir`` None: the user
    model directory if it has one, else data/models)."""
    from classifiers.persist import model_path

    return model_path(Path(KIND) / domain / (f"{model}-real" if real else model), models_dir)


def save_page_classifier(
    est: PageTopicClassifier,
    directory: Path | str,
    *,
    domain: str,
    metrics: dict[str, Any],
    root: Path | str | None = None,
) -> Path:
    """Write the model directory (model.npz + manifest.json, classifiers.persist)."""
    from classifiers.datasets import data_hash
    from classifiers.persist import save_model

    return save_model(
        est,
        directory,
        kind=KIND,
        data_hash=data_hash(corpus_files(root)),
        params=est.get_params(),
        metrics=metrics,
        extra={"domain": domain},
    )


def load_page_classifier(directory: Path | str) -> tuple[PageTopicClassifier, dict[str, Any]]:
    """(classifier, manifest); ModelError when missing or incompatible."""
    from classifiers.persist import load_model

    est, manifest = load_model(directory, KIND)
    return est, manifest


# --------------------------------------------------------------------------- real pages

def real_page_files(root: Path | str | None = None) -> list[Path]:
    """The real-page files: ``domains/<pack>/pages_real.jsonl`` (``_offtopic`` included)."""
    from classifiers.datasets import domains_root

    return sorted(domains_root(root).glob(f"*/{REAL_FILE}"))


def frozen_page_sites(path: Path | str | None = None) -> frozenset[str]:
    """Sites of the frozen test split of the real pages (empty when the file is missing)."""
    import json

    src = Path(path) if path is not None else FROZEN_FILE
    if not src.is_file():
        return frozenset()
    return frozenset(json.loads(src.read_text(encoding="utf-8"))["sites"])


def real_pages(root: Path | str | None = None, frozen: Path | str | None = None) -> pd.DataFrame:
    """Every real page: columns text, label (a domain or "offtopic"), site, kind, frozen."""
    from classifiers.datasets import read_jsonl

    sites = frozen_page_sites(frozen)
    rows = [
        {"text": page_text(p), "label": str(p["label"]), "site": str(p["site"]),
         "kind": str(p.get("kind", "")), "frozen": str(p["site"]) in sites}
        for f in real_page_files(root)
        for p in read_jsonl(f)
    ]
    return pd.DataFrame(rows, columns=["text", "label", "site", "kind", "frozen"]).astype(
        {"frozen": bool}
    )


def pack_pages(root: Path | str | None = None) -> pd.DataFrame:
    """The hand-written pack pages in the layout of ``real_pages`` (never frozen)."""
    from classifiers.datasets import domains_root, iter_packs, load_pack

    base = domains_root(root)
    rows: list[dict[str, Any]] = []
    for name in [*iter_packs(base), OFFTOPIC]:
        if not (base / name).is_dir():
            continue
        label = OFF if name == OFFTOPIC else name
        for p in load_pack(name, base).pages:
            rows.append({"text": page_text(p), "label": label,
                         "site": str(p.get("site") or p.get("url") or ""),
                         "kind": "curated", "frozen": False})  # fmt: skip
    return pd.DataFrame(rows, columns=["text", "label", "site", "kind", "frozen"])


def _binary(y: np.ndarray, proba: np.ndarray) -> dict[str, Any]:
    pred = (proba >= 0.5).astype(np.int64)
    p, r, f, _ = precision_recall_fscore_support(y, pred, average="binary", zero_division=0)
    out: dict[str, Any] = {"n_pos": int(y.sum()), "n_neg": int((1 - y).sum()),
                           "precision": round(float(p), 4),
           "recall": round(float(r), 4), "f1": round(float(f), 4)}
    out["roc_auc"] = round(float(roc_auc_score(y, proba)), 4) if 0 < y.sum() < len(y) else None
    return out


#: fewest sites of a domain's pages for its figures to count in the macro mean: with one
#: site, one page decides the domain's F1 (0 or 1), and a site-grouped CV cannot train
#: on one of its sites and test on another
MIN_SITES = 2


def real_report(
    labels: np.ndarray, scores: dict[str, np.ndarray], domains: Sequence[str],
    sites: np.ndarray | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Per domain one-vs-rest P/R/F1 of Pr(on topic) >= 0.5 (as the crawler uses it),
    their macro mean, and the off-topic pages' false-positive rate (the share of
    off-topic pages some domain calls on topic). With ``sites`` (each page's site), a
    domain whose pages come from fewer than ``MIN_SITES`` sites is reported with
    ``"n_sites"`` but left out of the macro mean (``macro_left_out``)."""
    per: dict[str, Any] = {}
    left_out = []
    for d in domains:
        y = (labels == d).astype(np.int64)
        if y.sum() == 0:
            continue
        per[d] = _binary(y, scores[d])
        if sites is not None:
            per[d]["n_sites"] = len(set(sites[labels == d]))
            if per[d]["n_sites"] < MIN_SITES:
                left_out.append(d)
    off = labels == OFF
    any_on = np.zeros(len(labels), dtype=bool)
    for d in domains:
        any_on |= scores[d] >= 0.5
    return {"per_label": per, "macro_left_out": left_out,
            "macro_f1": round(float(np.mean([m["f1"] for d, m in per.items()
                                             if d not in left_out])), 4),
            "offtopic_fp_rate": round(float(any_on[off].mean()), 4) if off.any() else None,
            "n_pages": len(labels), "n_sites": None}  # fmt: skip


def _fit_domain(est: PageTopicClassifier, train: pd.DataFrame, domain: str) -> PageTopicClassifier:
    y = (train["label"].to_numpy() == domain).astype(np.int64)
    return clone(est).fit(train["text"].tolist(), y)


def cross_validate_real(
    estimator: PageTopicClassifier,
    real: pd.DataFrame,
    domains: Sequence[str],
    *,
    extra: pd.DataFrame | None = None,
    n_splits: int = 5,
) -> dict[str, Any]:
    """Site-grouped CV on the real pages only: per fold and domain, a one-vs-rest model
    is trained on the other folds' real pages (plus ``extra``, e.g. the pack pages, in
    every training fold) and scores the held-out real pages."""
    groups = real["site"].to_numpy()
    labels = real["label"].to_numpy()
    n_splits = min(n_splits, len(np.unique(groups)))
    scores = {d: np.zeros(len(real)) for d in domains}
    for train_idx, test_idx in GroupKFold(n_splits=n_splits).split(real, labels, groups):
        train = real.iloc[train_idx]
        if extra is not None and len(extra):
            train = pd.concat([train, extra], ignore_index=True)
        test_texts = real["text"].iloc[test_idx].tolist()
        for d in domains:
            if not (train["label"] == d).any():
                continue
            model = _fit_domain(estimator, train, d)
            scores[d][test_idx] = model.topic_probability(test_texts)
    report = real_report(labels, scores, domains, groups)
    report.update(folds=n_splits, grouped_by="site", n_sites=len(np.unique(groups)))
    return report


def score_real(
    models: dict[str, PageTopicClassifier], real: pd.DataFrame
) -> dict[str, Any]:
    """Report of fitted per-domain models on real pages they were not trained on."""
    texts = real["text"].tolist()
    scores = {d: m.topic_probability(texts) for d, m in models.items()}
    report = real_report(real["label"].to_numpy(), scores, list(models),
                         real["site"].to_numpy())
    report["n_sites"] = int(real["site"].nunique())
    return report


def page_domains(root: Path | str | None = None) -> list[str]:
    """The domains with a pack (the page classifier's one-vs-rest tasks)."""
    from classifiers.datasets import domains_root, iter_packs

    return [d for d in iter_packs(domains_root(root)) if not d.startswith("_")]


def evaluate_real(
    estimator: PageTopicClassifier,
    root: Path | str | None = None,
    *,
    n_splits: int = 5,
    frozen: bool = False,
) -> dict[str, Any]:
    """The page classifier's figures on the real pages, per domain one-vs-rest.

    ``frozen`` False: site-grouped CV on the real pages outside the frozen split (pack
    pages join every training fold). True: one model per domain trained on all of
    those (plus the packs) scores the frozen split's pages, once.
    """
    domains = page_domains(root)
    real = real_pages(root)
    dev = real[~real["frozen"]].reset_index(drop=True)
    packs = pack_pages(root)
    if not frozen:
        return cross_validate_real(estimator, dev, domains, extra=packs, n_splits=n_splits)
    test = real[real["frozen"]].reset_index(drop=True)
    train = pd.concat([dev, packs], ignore_index=True)
    models = {d: _fit_domain(estimator, train, d) for d in domains if (train["label"] == d).any()}
    report = score_real(models, test)
    report["split"] = "frozen"
    return report
