"""Offline trainers of the form critic's two models (``formhunter train searchable`` and
``formhunter train domain``): their labelled data sets, site-grouped cross-validation,
the final fit and the saved model with its manifest.

The estimators and their cross-validation are in ``classifiers.searchable`` and
``classifiers.domain``; the data sets are assembled here because the labelled forms
are parsed by the crawler's form extractor (``formhunter.trainers.packs``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from classifiers.datasets import (
    FORMASAURUS_FILE,
    data_hash,
    load_pack,
    pack_files,
    real_files,
    samples,
)
from classifiers.domain import (
    MIN_FORMS,
    REAL_WEIGHT,
    DomainFormClassifier,
    cross_validate_domain,
)
from classifiers.inference_export import after_save
from classifiers.persist import save_model
from classifiers.searchable import (
    SearchableFormClassifier,
    binary_report,
    cross_validate_searchable,
    nav_near_misses,
)
from classifiers.splits import FROZEN_FILE, frozen_sites
from formhunter.exceptions import UsageError
from formhunter.trainers.packs import load_formasaurus, load_pack_forms, load_real_forms

__all__ = ["domain_data", "searchable_data", "train_domain_model", "train_searchable_model"]


def domain_data(
    root: Path | str | None = None, extra: pd.DataFrame | None = None, *, split: str = "tune",
) -> tuple[pd.DataFrame, pd.DataFrame, list[str], list[Path]]:
    """(real searchable forms, curated searchable forms, labels left out, data files).

    ``extra`` (columns site, url, title, label, form, pack; e.g. users' labels from a
    catalogue) joins the curated forms. Labels with fewer than ``MIN_FORMS`` forms
    (all together) are left out. The real forms are what the domain model is
    measured on; the curated ones are extra training data.

    ``split``: "tune" (default) leaves out every form, real or curated, of a site of
    the frozen test split (``classifiers.splits``); "frozen" gives the real forms of
    those sites only (the curated ones as for "tune"); "all" leaves nothing out.
    """
    if split not in ("tune", "frozen", "all"):
        raise UsageError(f"split must be tune, frozen or all, not {split!r}")
    curated = load_pack_forms(root=root)
    real = load_real_forms(root)
    curated = curated[curated["searchable"].astype(bool)]
    real = real[real["searchable"].astype(bool)]
    frozen = frozen_sites() if split != "all" else frozenset()
    held = real["site"].isin(frozen)
    curated = curated[~curated["site"].isin(frozen)]
    real = real[held] if split == "frozen" else real[~held]
    if extra is not None and len(extra):
        cols = ["site", "url", "title", "label", "form", "pack"]
        curated = pd.concat([curated[cols], extra[cols]], ignore_index=True)
    counts = pd.concat([curated["label"], real["label"]]).value_counts()
    skipped = sorted(str(k) for k, v in counts.items() if v < MIN_FORMS)
    curated = curated[~curated["label"].isin(skipped)].reset_index(drop=True)
    real = real[~real["label"].isin(skipped)].reset_index(drop=True)
    names = sorted(set(curated["pack"]) - {"_other"})
    files = [*pack_files(names, root), *real_files(root)]
    if frozen:
        files.append(FROZEN_FILE)
    return real, curated, skipped, files


def train_domain_model(
    out: Path | str | None = None,
    *,
    root: Path | str | None = None,
    require: str | None = None,
    n_splits: int = 5,
    extra: pd.DataFrame | None = None,
    extra_note: str = "",
    **params: Any,
) -> tuple[DomainFormClassifier, dict[str, Any]]:
    """Cross-validate by site, fit on every pack's forms plus ``_other``, save to ``out``.

    ``extra``: more labelled forms (columns site, url, title, label, form, pack), e.g.
    users' labels from a catalogue; ``extra_note`` says where they come from (manifest).

    ``require`` names a domain that must be present with at least ``MIN_FORMS``
    labelled forms (UsageError otherwise, saying what to add). Domains with
    fewer forms than that are left out of the model and listed in the metrics.
    """
    if require is not None:
        load_pack(require, root, with_data=False)  # UsageError when the pack is missing
    real, curated, skipped, files = domain_data(root, extra)
    both = pd.concat([real, curated], ignore_index=True)
    counts = both["label"].value_counts()
    if require is not None and counts.get(require, 0) < MIN_FORMS:
        raise UsageError(
            f"domain {require!r} has {int(counts.get(require, 0))} labelled searchable forms; "
            f"add at least {MIN_FORMS} to its forms.jsonl (one JSON object per line with "
            f'"site", "url", "title", "html", "label": "{require}") and train again'
        )
    if both["label"].nunique() < 2:
        raise UsageError("need labelled forms of at least two labels (two packs, or one + _other)")
    model = DomainFormClassifier(**params)
    if real["label"].nunique() >= 2:
        report = cross_validate_domain(real, model, n_splits=n_splits, extra=curated,
                                       weight=REAL_WEIGHT)  # fmt: skip
        cv = f"GroupKFold({report['n_splits']}) by site on the real forms; curated forms " \
             "in the training folds only"  # fmt: skip
    else:  # no real forms yet: the curated forms measure themselves
        report = cross_validate_domain(curated, model, n_splits=n_splits)
        cv = f"GroupKFold({report['n_splits']}) by site on the curated forms (no real forms)"
    metrics = {k: v for k, v in report.items() if k not in ("pred", "score")}
    metrics["cv"] = cv
    metrics["skipped_labels"] = skipped
    metrics["per_label_n"] = {str(k): int(v) for k, v in counts.items()}
    metrics["n_real"] = len(real)
    metrics["n_curated"] = len(curated)
    metrics["real_weight"] = REAL_WEIGHT
    model.fit(samples(both), both["label"].to_numpy(dtype=object).astype(str),
              sample_weight=[REAL_WEIGHT] * len(real) + [1.0] * len(curated))  # fmt: skip
    if out is not None:
        names = sorted(p for p in set(curated["pack"]) if not str(p).startswith("_"))
        save_model(
            model,
            out,
            kind="domain",
            data_hash=_with_extra(data_hash(files), extra),
            params={k: list(v) if isinstance(v, tuple) else v for k, v in
                    model.get_params().items()},
            metrics=metrics,
            extra={"classes": [str(c) for c in model.classes_], "packs": names,
                   **({"extra_data": extra_note, "extra_forms": len(extra)}
                      if extra is not None and len(extra) else {})},
        )  # fmt: skip
        after_save(out, "domain", samples(both))
    return model, metrics


def searchable_data(
    data: Path | str | None = None,
    *,
    packs: bool = True,
    domains_dir: Path | str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame | None, list[Path]]:
    """(formasaurus forms, extra training forms or None, data files).

    The extra forms (with ``packs``) are the curated pack forms and every real
    labelled form, searchable or not (navigation menus are the real negatives);
    they are training data only (``cross_validate_searchable``).
    """
    src = Path(data) if data is not None else FORMASAURUS_FILE
    df = load_formasaurus(src)
    files = [src]
    extra = None
    if packs:
        curated = load_pack_forms(root=domains_dir)
        real = load_real_forms(domains_dir)
        df, real = _apply_corrections(df, real)
        extra = pd.concat([curated, real], ignore_index=True) if len(real) else curated
        names = sorted(set(curated["pack"]) - {"_other"})
        files += [*pack_files(names, domains_dir), *real_files(domains_dir)]
    return df, extra, files


def _apply_corrections(df: pd.DataFrame, real: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Formasaurus forms that a real record relabels (same page URL and form markup, source
    formasaurus) take the real record's searchable label, and the duplicate leaves ``real``.

    Formasaurus marks some sort, page-size and period selects "search"; the real records
    review them as navigation (not searchable). ``corrected`` counts the changed rows.
    """
    if real.empty or "source" not in real:
        return df.assign(corrected=False), real
    from_fs = real["source"].astype(str).str.contains("formasaurus")
    labels = {
        (u, f.html): bool(s)
        for u, f, s in zip(real["url"][from_fs], real["form"][from_fs],
                           real["searchable"][from_fs], strict=True)
    }  # fmt: skip
    keys = [(u, f.html) for u, f in zip(df["url"], df["form"], strict=True)]
    new = [labels.get(k, s) for k, s in zip(keys, df["searchable"], strict=True)]
    df = df.assign(corrected=[n != s for n, s in zip(new, df["searchable"], strict=True)],
                   searchable=new)  # fmt: skip
    known = set(keys)
    dup = [from_fs.iloc[i] and (u, f.html) in known
           for i, (u, f) in enumerate(zip(real["url"], real["form"], strict=True))]  # fmt: skip
    return df, real[~pd.Series(dup, index=real.index)].reset_index(drop=True)


def train_searchable_model(
    out: Path | str | None = None,
    *,
    data: Path | str | None = None,
    packs: bool = True,
    domains_dir: Path | str | None = None,
    n_splits: int = 5,
    **params: Any,
) -> tuple[SearchableFormClassifier, dict[str, Any]]:
    """Cross-validate by site, fit, save to ``out`` (if given). Returns (model, metrics).

    Training data: the formasaurus forms (positive class: formasaurus type "s",
    every other annotated type negative) plus, with ``packs``, the labelled forms
    of every domain pack and ``_other`` (searchable forms, in front of all kinds of
    databases). The metrics are those of the formasaurus forms; the packs only
    add training data (see ``cross_validate_searchable``), and their out-of-fold
    recall is reported as ``extra_recall``.
    """
    df, extra, files = searchable_data(data, packs=packs, domains_dir=domains_dir)
    src = files[0]
    model = SearchableFormClassifier(**params)
    report = cross_validate_searchable(df, model, n_splits=n_splits, extra=extra)
    metrics = {k: v for k, v in report.items() if k not in ("pred", "score", "extra_pred")}
    metrics["cv"] = f"GroupKFold({n_splits}) by site" + (
        "; pack and real forms in the training folds only" if packs else ""
    )
    metrics["real_nav_near_misses"] = nav_near_misses(report, df, extra)
    if "corrected" in df:
        metrics["formasaurus_relabelled"] = int(df["corrected"].sum())
        raw = df.assign(searchable=df["searchable"] ^ df["corrected"])
        metrics["f1_formasaurus_labels"] = binary_report(
            raw["searchable"].to_numpy(dtype=bool), np.asarray(report["pred"], dtype=bool)
        )["f1"]
    both = df if extra is None else pd.concat([df, extra], ignore_index=True)
    model.fit(samples(both), both["searchable"].to_numpy(dtype=bool))
    if out is not None:
        save_model(
            model,
            out,
            kind="searchable",
            data_hash=data_hash(files),
            params=model.get_params(),
            metrics=metrics,
            extra={
                "data": str(src.name),
                "packs": packs,
                "top_features": model.feature_importances()[:12],
            },
        )
        after_save(out, "searchable", samples(both))
    return model, metrics


def _with_extra(files_hash: str, extra: pd.DataFrame | None) -> str:
    """The data hash of the pack files, combined with the extra forms' (site, url, label)
    when there are any (users' labels), so that two trainings on different labels get
    different hashes and model names."""
    if extra is None or not len(extra):
        return files_hash
    import hashlib

    rows = sorted(zip(extra["site"].astype(str), extra["url"].astype(str),
                      extra["label"].astype(str), strict=True))  # fmt: skip
    digest = hashlib.sha256(repr((files_hash, rows)).encode()).hexdigest()
    return digest[:len(files_hash) or 16]
