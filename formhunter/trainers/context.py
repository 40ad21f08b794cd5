"""The critic's second stage (``classifiers.context``): its training data from the REAL
labelled forms, site-grouped stacking CV, the frozen-split score, and the saved model
(``formhunter train context``).

Per real searchable form: the domain model's out-of-fold probabilities (GroupKFold by
site; the curated forms join the training folds), the page classifiers' topic scores
over the whole page the form was saved from (``data/realforms/pages.jsonl.gz``, made by
``scripts/realforms/page_texts.py``; a record whose page could not be had reads its own
title, site name, navigation and nearby text instead), and whether it is a keyword box.
The context model is cross-validated on the same site folds, so no site's forms ever
judge themselves.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import GroupKFold

from classifiers.context import (
    CONTEXT_FEATURES,
    ContextBundle,
    DomainContextModel,
    PageTopics,
    lexicon_text,
    pair_features,
)
from classifiers.datasets import REPO_ROOT, data_hash, samples
from classifiers.domain import (
    REAL_WEIGHT,
    DomainFormClassifier,
    keyword_box_report,
    multiclass_report,
)
from classifiers.form_features import keyword_box
from classifiers.lexicon import lexicon_scores
from classifiers.page_classifier import page_text
from classifiers.persist import save_model

__all__ = [
    "PAGES_FILE", "context_files", "context_inputs", "evaluate_context", "page_topics",
    "train_context_model",
]

PAGES_FILE = REPO_ROOT / "data" / "realforms" / "pages.jsonl.gz"
#: the context model reads the page classifiers trained on the real pages too (the
#: ``real`` page classifier, which is the crawl's ``default``; False: the packs' only)
REAL_PAGES = True


def context_files() -> list[Path]:
    """The data files the context model reads beyond the domain model's (for the data hash):
    the real forms' whole pages and the page classifiers' pages."""
    from classifiers.page_classifier import corpus_files

    return [*([PAGES_FILE] if PAGES_FILE.is_file() else []), *corpus_files()]


def page_topics(domains: list[str], models_dir: Path | str | None = None,
                real: bool = REAL_PAGES) -> PageTopics:  # fmt: skip
    """The page classifiers (``page_classifiers.page_classifier_for(d, "svm", real=real)``)
    of ``domains``."""
    from formhunter.page_classifiers import page_classifier_for

    return PageTopics({d: page_classifier_for(d, "svm", models_dir, real=real).estimator
                       for d in domains})  # fmt: skip


def _whole_pages(path: Path = PAGES_FILE) -> dict[str, dict[str, str]]:
    if not path.is_file():
        return {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return {rec["key"]: rec for rec in map(json.loads, fh)}


def record_page_texts(df: pd.DataFrame, path: Path = PAGES_FILE) -> tuple[list[str], int]:
    """The ``page_text`` of each real form's page, and how many were whole pages."""
    pages = _whole_pages(path)
    out, whole = [], 0
    for key, title, site_name, nav, form in zip(df["key"], df["title"], df["site_name"],
                                                 df["nav"], df["form"], strict=True):  # fmt: skip
        rec = pages.get(str(key))
        if rec is not None:
            whole += 1
            out.append(page_text(rec))
        else:
            out.append(page_text({"title": title,
                                  "text": f"{site_name}\n{nav}\n{form.context}"}))  # fmt: skip
    return out, whole


def _oof_proba(real: pd.DataFrame, curated: pd.DataFrame, model: DomainFormClassifier,
               folds: list[tuple[np.ndarray, np.ndarray]],
               classes: list[str]) -> np.ndarray:  # fmt: skip
    X, y = samples(real), real["label"].to_numpy(dtype=object).astype(str)
    Xc, yc = samples(curated), curated["label"].to_numpy(dtype=object).astype(str)
    gc = curated["site"].to_numpy()
    out = np.zeros((len(real), len(classes)))
    for train, test in folds:
        held = set(real["site"].iloc[test])
        keep = [i for i in range(len(Xc)) if gc[i] not in held]
        m = clone(model).fit([X[i] for i in train] + [Xc[i] for i in keep],
                             np.concatenate([y[train], yc[keep]]),
                             sample_weight=None if REAL_WEIGHT == 1.0 else
                             [REAL_WEIGHT] * len(train) + [1.0] * len(keep))  # fmt: skip
        p = m.predict_proba([X[i] for i in test])
        for j, c in enumerate(m.classes_):
            out[test, classes.index(str(c))] = p[:, j]
    return out


def _page_training(domains: list[str], real: bool) -> dict[str, pd.DataFrame]:
    """Per domain what its page classifier is trained on (``train_page_classifier``): the
    packs' pages (``page_corpus``) and, with ``real``, the real pages outside the frozen
    split (columns text, label 0/1, site)."""
    from classifiers.page_classifier import page_corpus, real_pages

    dev = real_pages()
    dev = dev[~dev["frozen"]] if real else dev.iloc[:0]
    out = {}
    for d in domains:
        c = page_corpus(d)[["text", "label", "site"]]
        r = pd.DataFrame({"text": dev["text"], "label": (dev["label"] == d).astype(np.int64),
                          "site": dev["site"]})  # fmt: skip
        out[d] = pd.concat([c, r], ignore_index=True)
    return out


def _oof_topics(real: pd.DataFrame, texts: list[str], domains: list[str],
                folds: list[tuple[np.ndarray, np.ndarray]],
                real_pages: bool = REAL_PAGES) -> np.ndarray:  # fmt: skip
    """Page topic scores of each fold's pages from page classifiers trained as the shipped
    ones are (``_page_training``) without the fold's sites: a real form's page may itself
    be one of the page classifiers' training pages."""
    from classifiers.page_classifier import CRAWL_PARAMS, PageTopicClassifier

    corpora = _page_training(domains, real_pages)
    out = np.zeros((len(real), len(domains)))
    for _, test in folds:
        held = set(real["site"].iloc[test])
        models = {}
        for d, c in corpora.items():
            c = c[~c["site"].isin(held)]
            models[d] = PageTopicClassifier(**CRAWL_PARAMS).fit(
                c["text"].tolist(), c["label"].to_numpy(dtype=np.int64))
        out[test] = PageTopics(models).scores([texts[i] for i in test])
    return out


def context_inputs(
    real: pd.DataFrame, curated: pd.DataFrame, domain_params: dict[str, Any],
    domains: list[str], n_splits: int = 5, real_pages: bool = REAL_PAGES,
) -> dict[str, Any]:  # fmt: skip
    """Out-of-fold form probabilities and page topics, lexicon scores, keyword boxes,
    folds and classes of the real forms ``real`` (``real_pages``: ``_page_training``)."""
    classes = sorted(set(real["label"]) | set(curated["label"]))
    groups = real["site"].to_numpy()
    folds = list(GroupKFold(n_splits=min(n_splits, len(set(groups)))).split(real, groups=groups))
    proba = _oof_proba(real, curated, DomainFormClassifier(**domain_params), folds, classes)
    texts, whole = record_page_texts(real)
    return {
        "lexicon": lexicon_scores([lexicon_text(x) for x in samples(real)], domains),
        "topic_domains": domains, "classes": classes, "folds": folds, "form_proba": proba,
        "topics": _oof_topics(real, texts, domains, folds, real_pages),
        "box": np.array([keyword_box(f) for f in real["form"]]),
        "y": real["label"].to_numpy(dtype=object).astype(str), "whole_pages": whole,
    }  # fmt: skip


def _report(y: np.ndarray, pred: np.ndarray, real: pd.DataFrame) -> dict[str, Any]:
    rep = multiclass_report(y, pred)
    rep["keyword_boxes"] = keyword_box_report(real, pred)
    return rep


def features(inputs: dict[str, Any], *, page: bool = True, lexicon: bool = True) -> np.ndarray:
    """``pair_features`` of ``context_inputs`` (``page``/``lexicon`` False: those left at 0)."""
    topics = inputs["topics"] if page else np.zeros_like(inputs["topics"])
    return pair_features(inputs["form_proba"], inputs["classes"], topics,
                         inputs["topic_domains"], inputs["box"],
                         inputs["lexicon"] if lexicon else None)  # fmt: skip


def evaluate_context(
    real: pd.DataFrame, curated: pd.DataFrame, domain_params: dict[str, Any], *,
    C: float = 1.0, n_splits: int = 5, frozen: pd.DataFrame | None = None,
    real_pages: bool = REAL_PAGES,
) -> tuple[dict[str, Any], dict[str, Any]]:  # fmt: skip
    """The critic's domain decision measured: (report, inputs).

    Without ``frozen``: site-grouped CV on ``real`` (the form model's out-of-fold
    probabilities, then the context model cross-validated on the same site folds).
    With ``frozen`` (the frozen split's real forms): the domain model fit on ``real`` +
    ``curated``, the context model on ``real``'s out-of-fold inputs, both scored on
    ``frozen`` once. The report is a ``multiclass_report`` of the two-stage decision with
    ``keyword_boxes`` and ``form_only`` (the domain model alone on the same forms).
    """
    real = real.reset_index(drop=True)
    domains = sorted((set(real["label"]) | set(curated["label"])) - {"other"})
    inputs = context_inputs(real, curated, domain_params, domains, n_splits, real_pages)
    classes, y = inputs["classes"], inputs["y"]
    X = features(inputs)
    model = DomainContextModel(classes=classes, C=C)
    if frozen is None:
        pred = np.empty(len(y), dtype=object)
        score = np.zeros(len(y))
        for train, test in inputs["folds"]:
            m = clone(model).fit(X[train], y[train])
            p = m.predict_proba(X[test])
            pred[test] = m.classes_[np.argmax(p, axis=1)]
            score[test] = p.max(axis=1)
        form_pred = np.asarray(classes, dtype=object)[np.argmax(inputs["form_proba"], axis=1)]
        rows = real
    else:
        rows = frozen.reset_index(drop=True)
        both = pd.concat([real, curated], ignore_index=True)
        dom = DomainFormClassifier(**domain_params).fit(
            samples(both), both["label"].to_numpy(dtype=object).astype(str),
            sample_weight=None if REAL_WEIGHT == 1.0 else
            [REAL_WEIGHT] * len(real) + [1.0] * len(curated))  # fmt: skip
        p = dom.predict_proba(samples(rows))
        proba = np.zeros((len(rows), len(classes)))
        for j, c in enumerate(dom.classes_):
            proba[:, classes.index(str(c))] = p[:, j]
        texts, _ = record_page_texts(rows)
        topics = page_topics(domains, real=real_pages).scores(texts)
        lex = lexicon_scores([lexicon_text(x) for x in samples(rows)], domains)
        box = np.array([keyword_box(f) for f in rows["form"]])
        model.fit(X, y)
        Xf = pair_features(proba, classes, topics, domains, box, lex)
        p = model.predict_proba(Xf)
        pred = model.classes_[np.argmax(p, axis=1)]
        score = p.max(axis=1)
        form_pred = np.asarray(classes, dtype=object)[np.argmax(proba, axis=1)]
        y = rows["label"].to_numpy(dtype=object).astype(str)
    report = _report(y, pred.astype(str), rows)
    report["form_only"] = _report(y, form_pred.astype(str), rows)
    report |= {"n_splits": 0 if frozen is not None else len(inputs["folds"]),
               "pred": pred, "score": score, "whole_pages": inputs["whole_pages"],
               "extra_n": len(curated)}  # fmt: skip
    return report, inputs


def train_context_model(
    out: Path | str | None = None,
    *,
    domain_params: dict[str, Any] | None = None,
    models_dir: Path | str | None = None,
    n_splits: int = 5,
    C: float = 1.0,
) -> tuple[ContextBundle, dict[str, Any]]:
    """Site-grouped CV on the real forms (the frozen split left out), fit, save to ``out``."""
    from formhunter.trainers.critic import domain_data

    real, curated, _, files = domain_data()
    report, inputs = evaluate_context(real, curated, dict(domain_params or {}), C=C,
                                      n_splits=n_splits)  # fmt: skip
    model = DomainContextModel(classes=inputs["classes"], C=C).fit(features(inputs), inputs["y"])
    topics = page_topics(inputs["topic_domains"], models_dir)
    drop = ("pred", "score", "confusion")
    metrics = {
        "cv": f"GroupKFold({report['n_splits']}) by site on {report['n']} real forms (frozen "
              "split left out); form probabilities and page topics out of fold",
        "whole_pages": report["whole_pages"], "n": report["n"],
        "form_only": {k: v for k, v in report["form_only"].items() if k not in drop},
        "with_page": {k: v for k, v in report.items() if k not in (*drop, "form_only")},
        "coef": dict(zip(CONTEXT_FEATURES, [round(float(c), 4) for c in model.coef_],
                         strict=True)),
    }  # fmt: skip
    bundle = ContextBundle(model, topics)
    if out is not None:
        save_model(bundle, out, kind="context",
                   data_hash=data_hash([*files, *context_files()]),
                   params={"C": C, "page_model": "svm-real" if REAL_PAGES else "svm",
                           "topic_domains": topics.domains_},
                   metrics=metrics)  # fmt: skip
        from classifiers.inference_export import ContextCheck, after_save

        after_save(out, "context", ContextCheck(
            texts=record_page_texts(real)[0], form_proba=inputs["form_proba"],
            form_classes=inputs["classes"], topics=inputs["topics"], boxes=inputs["box"],
            lexicon=inputs["lexicon"]))  # fmt: skip
    return bundle, metrics
