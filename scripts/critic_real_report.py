"""The critic on REAL labelled forms: data, site-grouped CV per domain, the errors.

    python scripts/critic_real_report.py [--errors 10] [--no-searchable]

Prints how many real forms each domain has, from how many sites and which
sources; the domain model's site-grouped CV on the real forms (curated forms in
the training folds only; the parameters of data/models/domain); the most
instructive errors (wrong answers given with the most confidence); and the
searchable model's F1 on formasaurus with the real navigation menus it still
calls searchable.
"""

from __future__ import annotations

import argparse
from collections import Counter

from classifiers.persist import DEFAULT_MODELS, read_manifest
from formhunter.trainers.evaluate import evaluate_kind
from formhunter.trainers.packs import load_real_forms


def _params(kind: str) -> dict:
    manifest = read_manifest(DEFAULT_MODELS / kind)
    return {k: v for k, v in manifest.get("params", {}).items() if k != "random_state"}


def _source(text: str) -> str:
    parts = dict(p.split("=", 1) for p in text.split() if "=" in p)
    return parts.get("repo") or parts.get("package") or parts.get("kind") or "?"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--errors", type=int, default=10)
    p.add_argument("--no-searchable", action="store_true")
    p.add_argument("--frozen", action="store_true",
                   help="the frozen test split (fit on the rest) instead of the CV: "
                        "once, at the end")
    args = p.parse_args()

    real = load_real_forms()
    print("== real labelled forms")
    for (label, searchable), g in real.groupby(["label", "searchable"]):
        sources = Counter(_source(s) for s in g["source"]).most_common(4)
        kind = "searchable" if searchable else "NOT searchable (menus, near-misses)"
        print(f"  {label:<8} {kind:<36} forms={len(g):>4} sites={g['site'].nunique():>4}  "
              + ", ".join(f"{s} ({n})" for s, n in sources))

    report, data_hash = evaluate_kind("domain", _params("domain"), frozen=args.frozen)
    print(f"\n== domain ({'frozen split' if args.frozen else 'CV'}; with data/models/context: "
          f"form + page + lexicon): site-grouped {report['n_splits']}-fold CV on {report['n']} "
          f"real forms "
          f"(+{report['extra_n']} curated in training folds only), data {data_hash}")
    print(f"  macro P={report['macro_precision']:.4f} R={report['macro_recall']:.4f} "
          f"F1={report['macro_f1']:.4f} accuracy={report['accuracy']:.4f}")
    for label, m in report["per_label"].items():
        print(f"  {label:<8} P={m['precision']:.3f} R={m['recall']:.3f} F1={m['f1']:.3f} "
              f"n={m['support']}")

    from formhunter.trainers.critic import domain_data

    df = domain_data(split="frozen" if args.frozen else "tune")[0]
    wrong = [i for i in range(len(df)) if report["pred"][i] != df["label"][i]]
    wrong.sort(key=lambda i: -report["score"][i])
    print(f"\n== the {args.errors} most confident domain errors (of {len(wrong)})")
    for i in wrong[: args.errors]:
        r = df.iloc[i]
        f = r["form"]
        labels = " / ".join(x.label or x.placeholder or x.name for x in f.fields
                            if x.type not in ("hidden", "submit", "button", "image"))[:90]
        print(f"  {r['label']} -> {report['pred'][i]} ({report['score'][i]:.2f}) {r['site']} "
              f"| title: {r['title'][:60]!r} | fields: {labels!r} | submit: "
              f"{' '.join(f.submit_texts)[:30]!r}")

    if not args.no_searchable:
        s, _ = evaluate_kind("searchable", _params("searchable"))
        nav = s["nav_near_misses"]
        print(f"\n== searchable: formasaurus site-grouped CV F1={s['f1']:.4f} "
              f"(P={s['precision']:.4f} R={s['recall']:.4f}; {s['relabelled']} forms relabelled "
              f"by real records; on formasaurus's own labels F1={s['f1_formasaurus_labels']:.4f})")
        print(f"  real navigation menus / near-misses still called searchable: "
              f"{nav['called_searchable']} of {nav['n']}")


if __name__ == "__main__":
    main()
