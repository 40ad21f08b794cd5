"""Benchmark of the form critic; prints figures.

1. Searchable forms, formasaurus corpus, one GroupKFold(5)-by-site split shared by
   every model: our decision tree (default), gradient boosting and logistic
   regression (stronger learners), formasaurus's own form-type model (trained per
   fold on the same split; benchmark only) and the keyword heuristic.
   Precision/recall/F1 of the search class, F1 per fold (mean +- sd), time.
2. Domain classifier on domains/*: per-domain P/R/F1 and macro-F1 (site-grouped CV).
3. Speed: loading the default models, judging (forms/s, batched per page).

    .venv/bin/python scripts/bench_critic.py [--folds 5] [--skip-formasaurus]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.metrics import f1_score
from sklearn.model_selection import GroupKFold

from classifiers.critic import FormCritic, HeuristicCritic
from classifiers.datasets import iter_packs, load_formasaurus, load_pack_forms, samples
from classifiers.domain import MIN_FORMS, DomainFormClassifier, cross_validate_domain
from classifiers.persist import DEFAULT_MODELS, load_model, read_manifest
from classifiers.searchable import SearchableFormClassifier, binary_report
from formhunter.model import Page


def _run(
    name: str,
    fit_predict: Callable[[np.ndarray, np.ndarray], np.ndarray],
    y: np.ndarray,
    folds: list[tuple[np.ndarray, np.ndarray]],
) -> dict[str, Any]:
    pred = np.zeros(len(y), dtype=bool)
    per_fold = []
    t = time.perf_counter()
    for train, test in folds:
        pred[test] = fit_predict(train, test)
        per_fold.append(f1_score(y[test], pred[test], zero_division=0))
    r = binary_report(y, pred)
    r |= {"name": name, "fold_f1": per_fold, "seconds": time.perf_counter() - t}
    return r


def bench_searchable(n_folds: int, with_formasaurus: bool) -> None:
    df = load_formasaurus()
    X = samples(df)
    y = df["searchable"].to_numpy(dtype=bool)
    folds = list(GroupKFold(n_splits=n_folds).split(X, y, df["site"].to_numpy()))
    print(
        f"== searchable: {len(y)} formasaurus forms ({int(y.sum())} search) from "
        f"{df['site'].nunique()} sites, GroupKFold({n_folds}) by site, same split for all"
    )

    def ours(est: SearchableFormClassifier) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        def fp(train: np.ndarray, test: np.ndarray) -> np.ndarray:
            m = clone(est).fit([X[i] for i in train], y[train])
            return np.asarray(m.predict([X[i] for i in test]))

        return fp

    runs = [
        _run("decision tree (default)", ours(SearchableFormClassifier()), y, folds),
        _run("gradient boosting", ours(SearchableFormClassifier(learner="gbm")), y, folds),
        _run("logistic regression", ours(SearchableFormClassifier(learner="logreg")), y, folds),
    ]
    heur = HeuristicCritic("", strict=False)
    runs.append(
        _run(
            "keyword heuristic",
            lambda train, test: np.array(
                [v.searchable for v in heur.judge([X[i].form for i in test], None)]  # type: ignore[arg-type]
            ),
            y,
            folds,
        )
    )
    if with_formasaurus:
        try:
            from formasaurus import formtype_model
            from formasaurus.html import get_forms, load_html
        except ImportError:
            print("formasaurus not installed; its row is left out")
        else:
            elems = [
                get_forms(load_html(h, base_url=u))[0]
                for h, u in zip(df["html"], df["url"], strict=True)
            ]
            simplify = {"P": "o", "V": "o", "N": "o", "C": "o"}
            types = np.array([simplify.get(t, t) for t in df["type"]])

            def fsaurus(train: np.ndarray, test: np.ndarray) -> np.ndarray:
                model = formtype_model.get_model()
                model.fit([elems[i] for i in train], types[train])
                return np.asarray(model.predict([elems[i] for i in test])) == "s"

            runs.append(_run("formasaurus form-type model", fsaurus, y, folds))
    print(f"{'model':<30}{'P':>7}{'R':>7}{'F1':>7}  {'F1 per fold mean+-sd':<22}{'time s':>7}")
    for r in runs:
        f = np.asarray(r["fold_f1"])
        print(
            f"{r['name']:<30}{r['precision']:>7.3f}{r['recall']:>7.3f}{r['f1']:>7.3f}  "
            f"{f.mean():.3f} +- {f.std():.3f}{'':<8}{r['seconds']:>7.1f}"
        )


def bench_domain(n_folds: int) -> None:
    df = load_pack_forms()
    df = df[df["searchable"].astype(bool)]
    counts = df["label"].value_counts()
    df = df[df["label"].isin([k for k, v in counts.items() if v >= MIN_FORMS])]
    df = df.reset_index(drop=True)
    print(f"\n== domain: {len(df)} pack forms, {df['site'].nunique()} sites, labels {dict(counts)}")
    t = time.perf_counter()
    r = cross_validate_domain(df, DomainFormClassifier(), n_splits=n_folds)
    print(
        f"linear SVM, GroupKFold({r['n_splits']}) by site: macro P={r['macro_precision']:.3f} "
        f"R={r['macro_recall']:.3f} F1={r['macro_f1']:.3f} acc={r['accuracy']:.3f} "
        f"({time.perf_counter() - t:.1f} s)"
    )
    for label, m in r["per_label"].items():
        print(
            f"  {label:<10} P={m['precision']:.3f} R={m['recall']:.3f} F1={m['f1']:.3f} "
            f"n={m['support']}"
        )


def bench_speed() -> None:
    print("\n== speed (default models in data/models/)")
    for kind in ("searchable", "domain"):
        t = time.perf_counter()
        load_model(DEFAULT_MODELS / kind, kind)
        print(f"load {kind} model: {time.perf_counter() - t:.3f} s")
    classes = read_manifest(DEFAULT_MODELS / "domain").get("classes", [])
    target = next((c for c in classes if c != "other"), "")
    t = time.perf_counter()
    critic = FormCritic(target)
    print(f"FormCritic({target!r}) construction: {time.perf_counter() - t:.3f} s")
    df = load_formasaurus()
    by_page = [
        (
            list(g["form"]),
            Page(url=u, final_url=u, status=200, site="", title=str(g["title"].iloc[0])),
        )
        for u, g in df.groupby("url", sort=False)
    ]
    n = len(df)
    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        for forms, page in by_page:
            critic.judge(forms, page)
        best = max(best, n / (time.perf_counter() - t))
    print(f"judge: {best:,.0f} forms/s ({n} forms on {len(by_page)} pages, batched per page)")
    heur = HeuristicCritic(target or iter_packs()[0])
    t = time.perf_counter()
    for forms, page in by_page:
        heur.judge(forms, page)
    print(f"heuristic judge: {n / (time.perf_counter() - t):,.0f} forms/s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--skip-formasaurus", action="store_true")
    args = ap.parse_args(argv)
    bench_searchable(args.folds, not args.skip_formasaurus)
    bench_domain(args.folds)
    bench_speed()
    return 0


if __name__ == "__main__":
    sys.exit(main())
