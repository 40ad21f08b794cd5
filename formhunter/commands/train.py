"""``formhunter train searchable|domain``: fit a critic model with a site-grouped CV report.

One multi-class domain model serves every domain: it is trained on all packs in
domains/ (plus ``_other`` as negatives), and the critic calls a form relevant
when its best domain is the crawl's ``--domain``. ``--domain NAME`` checks that
pack NAME exists and has enough labelled forms before training.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from formhunter.exceptions import UsageError


def _print_metrics(metrics: dict[str, Any], out: Path | None) -> None:
    keep = {k: v for k, v in metrics.items() if k not in ("per_label", "confusion")}
    print(json.dumps(keep, indent=2, default=str))
    if "per_label" in metrics:
        for label, m in metrics["per_label"].items():
            print(f"  {label:<12} P={m['precision']:.3f} R={m['recall']:.3f} "
                  f"F1={m['f1']:.3f} n={m['support']}")  # fmt: skip
    if out is not None:
        print(f"model written to {out}")


def run_searchable(args: argparse.Namespace) -> int:
    from classifiers.persist import DEFAULT_MODELS
    from classifiers.searchable import LEARNERS, train_searchable_model

    if args.learner not in LEARNERS:
        raise UsageError(f"--learner must be one of {', '.join(LEARNERS)}")
    out = Path(args.out) if args.out else DEFAULT_MODELS / "searchable"
    params: dict[str, Any] = {"learner": args.learner}
    if args.max_depth is not None:
        params["max_depth"] = args.max_depth or None
    if args.min_samples_leaf is not None:
        params["min_samples_leaf"] = args.min_samples_leaf
    _, metrics = train_searchable_model(out, data=args.data, n_splits=args.folds, **params)
    _print_metrics(metrics, out)
    return 0


def run_domain(args: argparse.Namespace) -> int:
    from classifiers.domain import train_domain_model
    from classifiers.persist import DEFAULT_MODELS

    out = Path(args.out) if args.out else DEFAULT_MODELS / "domain"
    params: dict[str, Any] = {}
    if args.C is not None:
        params["C"] = args.C
    _, metrics = train_domain_model(
        out, root=args.domains_dir, require=args.domain, n_splits=args.folds, **params
    )
    _print_metrics(metrics, out)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train a critic model (searchable, domain) with a CV report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    targets = p.add_subparsers(dest="target", metavar="TARGET", required=True)

    s = targets.add_parser(
        "searchable",
        help="the searchable-form classifier (decision tree, formasaurus forms)",
        description="Train the searchable-form classifier on data/formasaurus/forms.jsonl.gz "
        "with GroupKFold-by-site cross-validation; writes model.joblib + manifest.json.",
    )
    s.add_argument("--out", help="model directory (default: data/models/searchable)")
    s.add_argument("--data", help="forms.jsonl.gz to train on (default: data/formasaurus/)")
    s.add_argument("--learner", default="tree", help="tree (default), gbm or logreg")
    s.add_argument("--max-depth", type=int, default=None, help="tree depth (0 = unlimited)")
    s.add_argument("--min-samples-leaf", type=int, default=None, help="tree leaf size")
    s.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    s.set_defaults(func=run_searchable)

    d = targets.add_parser(
        "domain",
        help="the domain classifier (linear SVM over all domain packs)",
        description="Train the multi-class domain classifier on domains/*/forms.jsonl plus "
        "domains/_other (negatives). One model serves every domain; --domain NAME checks "
        "that pack NAME exists and has enough labelled forms.",
    )
    d.add_argument("--domain", help="domain pack that must be present and trainable")
    d.add_argument("--out", help="model directory (default: data/models/domain)")
    d.add_argument("--domains-dir", help="folder of domain packs (default: domains/)")
    d.add_argument("--C", type=float, default=None, help="SVM regularisation (default 0.5)")
    d.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    d.set_defaults(func=run_domain)
