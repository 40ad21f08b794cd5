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
    frozen: bool = False,
    context: dict[str, Any] | str | None = "shipped",
) -> tuple[dict[str, Any], str]:
    """Site-grouped CV of a model kind on its labelled data: (report, data hash).

    ``params`` are the estimator's parameters (e.g. a manifest's), default ones
    otherwise. The report holds the gated metric under ``GATED_METRIC[kind]``.
    ``page``: the page classifier on the real pages outside the frozen split, per
    domain one-vs-rest (``classifiers.page_classifier.evaluate_real``).
    The domain model's CV leaves out the frozen test split (``classifiers.splits``);
    ``frozen`` (domain only) instead fits on everything else and scores that split
    once. The domain report also has ``keyword_boxes`` (``keyword_box_report``).

    ``context`` (domain only): the parameters of the critic's second stage
    (``classifiers.context``; "shipped": those of data/models/context when it exists,
    else none). With them the report is the critic's two-stage domain decision
    (``formhunter.trainers.context.evaluate_context``; ``form_only`` holds the domain
    model alone), which is what the gate checks; None: the domain model alone.
    """
    from classifiers.datasets import data_hash

    params = dict(params or {})
    if frozen and kind != "domain":
        raise ModelError("only the domain model has a frozen test split")
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
        from classifiers.domain import (
            REAL_WEIGHT,
            DomainFormClassifier,
            cross_validate_domain,
            holdout_domain,
            keyword_box_report,
        )
        from formhunter.trainers.critic import domain_data

        for key in ("signals", "char_blocks"):
            if key in params:
                params[key] = tuple(tuple(x) if isinstance(x, list) else x for x in params[key])
        real, curated, _, files = domain_data(domains_dir)
        if context == "shipped":
            from classifiers.persist import DEFAULT_MODELS, read_manifest

            shipped = DEFAULT_MODELS / "context" / "manifest.json"
            context = ({"C": read_manifest(shipped.parent)["params"]["C"]}
                       if shipped.is_file() and domains_dir is None else None)  # fmt: skip
        if isinstance(context, dict):
            from formhunter.trainers.context import context_files, evaluate_context

            test = domain_data(domains_dir, split="frozen")[0] if frozen else None
            report, _ = evaluate_context(real, curated, params, C=float(context.get("C", 1.0)),
                                         n_splits=n_splits, frozen=test)  # fmt: skip
            return report, data_hash([*files, *context_files()])
        model = DomainFormClassifier(**params)
        if frozen:
            test = domain_data(domains_dir, split="frozen")[0]
            report = holdout_domain(real, test, model, extra=curated, weight=REAL_WEIGHT)
            real = test
        else:
            report = cross_validate_domain(real, model, n_splits, extra=curated,
                                           weight=REAL_WEIGHT)  # fmt: skip
        report["keyword_boxes"] = keyword_box_report(real, report["pred"])
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
