"""Cross-validation of a model kind on its labelled data: the figure the CI gate
(``data/baselines.json``, ``classifiers.persist.pin_baseline``) checks
(``formhunter evaluate``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from formhunter.exceptions import ModelError

#: the metric each kind is gated on
GATED_METRIC = {"searchable": "f1", "domain": "macro_f1", "page": "macro_f1"}


def evaluate_kind(
    kind: str,
    params: dict[str, Any] | None = None,
    *,
    domains_dir: Path | str | None = None,
    n_splits: int = 5,
) -> tuple[dict[str, Any], str]:
    """Site-grouped CV of a model kind on its labelled data: (report, data hash).

    ``params`` are the estimator's parameters (e.g. a manifest's), default ones
    otherwise. The report holds the gated metric under ``GATED_METRIC[kind]``.
    ``page``: the page classifier on the real pages outside the frozen split, per
    domain one-vs-rest (``classifiers.page_classifier.evaluate_real``).
    """
    from classifiers.datasets import data_hash

    params = dict(params or {})
    if kind == "searchable":
        from classifiers.searchable import (
            SearchableFormClassifier,
            binary_report,
            cross_validate_searchable,
            nav_near_misses,
        )
        from formhunter.trainers.critic import searchable_data

        packs = bool(params.pop("packs", True))
        df, extra, files = searchable_data(packs=packs, domains_dir=domains_dir)
        model = SearchableFormClassifier(**params)
        report = cross_validate_searchable(df, model, n_splits, extra=extra)
        report["nav_near_misses"] = nav_near_misses(report, df, extra)
        report["relabelled"] = int(df["corrected"].sum()) if "corrected" in df else 0
        raw = df["searchable"].to_numpy(dtype=bool)
        if "corrected" in df:
            raw = raw ^ df["corrected"].to_numpy(dtype=bool)
        report["f1_formasaurus_labels"] = binary_report(raw, report["pred"])["f1"]
        return report, data_hash(files)
    if kind == "domain":
        from classifiers.domain import REAL_WEIGHT, DomainFormClassifier, cross_validate_domain
        from formhunter.trainers.critic import domain_data

        for key in ("signals", "char_blocks"):
            if key in params:
                params[key] = tuple(tuple(x) if isinstance(x, list) else x for x in params[key])
        real, curated, _, files = domain_data(domains_dir)
        report = cross_validate_domain(real, DomainFormClassifier(**params), n_splits,
                                       extra=curated, weight=REAL_WEIGHT)  # fmt: skip
        return report, data_hash(files)
    if kind == "page":
        from classifiers.page_classifier import (
            CRAWL_PARAMS,
            PageTopicClassifier,
            corpus_files,
            evaluate_real,
        )

        est = PageTopicClassifier(**{**CRAWL_PARAMS, **params})
        report = evaluate_real(est, domains_dir, n_splits=n_splits)
        report["n_splits"] = report["folds"]
        return report, data_hash(corpus_files(domains_dir))
    raise ModelError(f"unknown model kind {kind!r} (known: searchable, domain, page)")
