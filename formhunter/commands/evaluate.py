"""``formhunter evaluate [searchable|domain|page]``: site-grouped CV report against the floors.

Re-runs GroupKFold-by-site cross-validation with a saved model's parameters
(default: data/models/<kind>) on the current labelled data and prints
precision, recall, F1 and the confusion matrix (per domain for the domain
model; the domain model is measured on the real labelled forms, the curated
ones joining the training folds). Exit 1 when the gated metric, or a domain's
F1, is below the floor pinned in data/baselines.json. ``page``: the page classifier
(Pr(topic | page)) on the real pages, per domain one-vs-rest at 0.5, the hand-written
pack pages joining the training folds; ``page --frozen`` trains on every real page
outside the frozen split and scores the frozen split once (a report, no gate). ``--pin`` records the
measured values and data hash there (a floor per domain: 0.75, or the measured
F1 of a domain below that); lowering a floor needs ``--floor X --allow-lower-floor``.
With a shipped context model (data/models/context) the domain figures are those of the
critic's two-stage decision (form, page and lexicon), the domain model alone beside them.
The domain model's CV leaves out the frozen test split (data/splits/forms_frozen.json);
``--frozen`` scores that split once instead (fit on the rest; no gate, no pin): a figure
to report at the end of a piece of work, never to tune on.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from formhunter.commands._args import count, number

#: the page classifier's per-domain figures pinned beside its F1
PAGE_PR = ("precision", "recall")

def _print_confusion(labels: list[str], cm: list[list[int]]) -> None:
    width = max(8, *(len(x) for x in labels)) + 1
    print("confusion (rows = true, columns = predicted):")
    print(" " * width + "".join(f"{x:>{width}}" for x in labels))
    for lab, row in zip(labels, cm, strict=True):
        print(f"{lab:>{width}}" + "".join(f"{v:>{width}}" for v in row))


def _report(kind: str, report: dict[str, Any]) -> None:
    if kind == "page":
        print(f"macro F1={report['macro_f1']:.4f} over {report['n_pages']} real pages of "
              f"{report['n_sites']} sites; off-topic pages called on topic by some domain: "
              f"{report['offtopic_fp_rate']:.4f}")  # fmt: skip
        for label, m in report["per_label"].items():
            out = (" (one site: not in the macro mean)"
                   if label in report.get("macro_left_out", ()) else "")  # fmt: skip
            print(f"  {label:<12} P={m['precision']:.4f} R={m['recall']:.4f} "
                  f"F1={m['f1']:.4f} n={m['n_pos']} sites={m.get('n_sites', '?')}{out}")
        return
    if kind == "searchable":
        print(f"search class: precision={report['precision']:.4f} "
              f"recall={report['recall']:.4f} F1={report['f1']:.4f} "
              f"accuracy={report['accuracy']:.4f} n={report['n']}")  # fmt: skip
        _print_confusion(["other", "search"], report["confusion"])
        if "nav_near_misses" in report:
            nav = report["nav_near_misses"]
            print(f"real navigation menus and near-misses called searchable: "
                  f"{nav['called_searchable']} of {nav['n']}; F1 on formasaurus's own labels "
                  f"{report['f1_formasaurus_labels']:.4f} ({report['relabelled']} relabelled "
                  f"by real records)")  # fmt: skip
        return
    print(f"macro: precision={report['macro_precision']:.4f} "
          f"recall={report['macro_recall']:.4f} F1={report['macro_f1']:.4f} "
          f"accuracy={report['accuracy']:.4f} n={report['n']}")  # fmt: skip
    for label, m in report["per_label"].items():
        print(f"  {label:<12} P={m['precision']:.4f} R={m['recall']:.4f} "
              f"F1={m['f1']:.4f} n={m['support']}")  # fmt: skip
    _print_confusion(report["labels"], report["confusion"])
    _print_boxes(report)
    alone = report.get("form_only")
    if alone:
        print(f"the domain model alone (form text; no page, no lexicon): macro-F1="
              f"{alone['macro_f1']:.4f} accuracy={alone['accuracy']:.4f}; "
              + " ".join(f"{k}={v['f1']:.3f}" for k, v in alone["per_label"].items()))
        _print_boxes(alone)


def _print_boxes(report: dict[str, Any]) -> None:
    box = report.get("keyword_boxes")
    if box and box.get("n"):
        print(f"keyword boxes (one free-text field): n={box['n']} accuracy={box['accuracy']:.4f} "
              f"macro-F1={box['macro_f1']:.4f}; of a domain: {box['domain_n']}, recall "
              f"{box['domain_recall']:.4f}; other: {box['other_n']}, kept other "
              f"{box['other_kept']:.4f}")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from classifiers.persist import (
        DEFAULT_MODELS,
        pin_baseline,
        read_baselines,
        read_manifest,
    )
    from formhunter.exceptions import UsageError
    from formhunter.trainers.evaluate import GATED_METRIC, evaluate_kind

    if args.frozen and args.kind == "page":
        return run_frozen(args)
    kinds = [args.kind] if args.kind else ["searchable", "domain", "page"]
    if args.model and len(kinds) > 1:
        raise UsageError("--model needs a kind: formhunter evaluate searchable|domain --model DIR")
    if args.frozen and (kinds != ["domain"] or args.pin):
        raise UsageError("--frozen scores one kind once, without --pin: "
                         "formhunter evaluate domain|page --frozen")  # fmt: skip
    status = 0
    baselines = read_baselines()
    for kind in kinds:
        model_dir = Path(args.model) if args.model else DEFAULT_MODELS / _default_dir(kind)
        manifest = read_manifest(model_dir)
        params = {k: v for k, v in manifest.get("params", {}).items() if k != "random_state"}
        report, data_hash = evaluate_kind(
            kind, params, domains_dir=args.domains_dir, n_splits=args.folds, frozen=args.frozen
        )
        metric = GATED_METRIC[kind]
        value = float(report[metric])
        how = ("the frozen test split, fit on the rest" if args.frozen
               else f"{report['n_splits']}-fold CV grouped by site")  # fmt: skip
        print(f"== {kind} (model {model_dir}, {how})")
        _report(kind, report)
        if args.frozen:
            continue
        if manifest.get("data_hash") != data_hash:
            print(f"note: the model was trained on other data ({manifest.get('data_hash')} != "
                  f"{data_hash}); retrain with: formhunter train {kind}")  # fmt: skip
        base = baselines.get(kind, {})
        floor = base.get("floor")
        per_label = (
            {k: v["f1"] for k, v in report["per_label"].items()
             if v.get("support", 1) and k not in report.get("macro_left_out", ())}
            if kind in ("domain", "page") else None
        )  # fmt: skip
        # the page classifier: precision and recall per domain too (issue 24)
        pr = ({k: {m: v[m] for m in PAGE_PR} for k, v in report["per_label"].items()
               if k in (per_label or {})} if kind == "page" else {})  # fmt: skip
        if args.pin:
            entry = pin_baseline(
                kind, metric=metric, measured=value, data_hash=data_hash,
                floor=args.floor, allow_lower=args.allow_lower_floor, per_label=per_label,
                per_label_metrics=pr or None,
            )  # fmt: skip
            print(f"pinned {kind}: {entry}")
        elif floor is not None and value < float(floor):
            print(f"FAIL: {kind} {metric} {value:.4f} is below the floor {floor}")
            status = 1
        elif floor is not None:
            print(f"ok: {kind} {metric} {value:.4f} >= floor {floor}")
        for label, pinned in base.get("per_label", {}).items() if not args.pin else ():
            got = (per_label or {}).get(label, 0.0)
            if got < float(pinned["floor"]):
                print(f"FAIL: {kind} F1 of {label} {got:.4f} is below its floor {pinned['floor']}")
                status = 1
            for m in PAGE_PR:
                if m in pinned and pr.get(label, {}).get(m, 0.0) < float(pinned[m]["floor"]):
                    print(f"FAIL: {kind} {m} of {label} {pr.get(label, {}).get(m, 0.0):.4f} "
                          f"is below its floor {pinned[m]['floor']}")  # fmt: skip
                    status = 1
    return status


def _default_dir(kind: str) -> str:
    """The shipped model a kind's parameters are read from (the page classifiers of
    every domain share theirs: airfare's)."""
    return "page/airfare/svm-real" if kind == "page" else kind


def run_frozen(args: argparse.Namespace) -> int:
    """``evaluate page --frozen``: the frozen split of the real pages, scored once."""
    from classifiers.page_classifier import CRAWL_PARAMS, PageTopicClassifier, evaluate_real
    from classifiers.persist import DEFAULT_MODELS, read_manifest
    from formhunter.exceptions import UsageError

    if args.kind != "page":
        raise UsageError("--frozen is for the page classifier: formhunter evaluate page --frozen")
    model_dir = Path(args.model) if args.model else DEFAULT_MODELS / _default_dir("page")
    params = {k: v for k, v in read_manifest(model_dir).get("params", {}).items()
              if k != "random_state"}  # fmt: skip
    report = evaluate_real(PageTopicClassifier(**{**CRAWL_PARAMS, **params}), args.domains_dir,
                           frozen=True)  # fmt: skip
    print(f"== page (params of {model_dir}), frozen split: trained on every other real page")
    _report("page", report)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate",
        help="site-grouped CV report of a critic model against the quality floors",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("kind", nargs="?", choices=["searchable", "domain", "page"],
                   help="model kind")  # fmt: skip
    p.add_argument("--model", help="model directory (default: data/models/KIND)")
    p.add_argument("--domains-dir", help="folder of domain packs (default: domains/)")
    p.add_argument("--folds", type=count, default=5, help="cross-validation folds (default 5)")
    p.add_argument("--pin", action="store_true", help="record the result in data/baselines.json")
    p.add_argument("--floor", type=number, help="with --pin: set the floor")
    p.add_argument("--allow-lower-floor", action="store_true",
                   help="with --pin --floor: allow lowering a pinned floor")  # fmt: skip
    p.add_argument("--frozen", action="store_true",
                   help="domain or page: score its frozen test split once (fit on the rest; "
                   "no gate, no pin)")
    p.set_defaults(func=run)
