"""Write data/splits/forms_frozen.json: the frozen test split of the real labelled forms.

    python scripts/freeze_split.py [--seed 24] [--share 0.3] [--out data/splits/forms_frozen.json]

Run once, before any tuning (issue 24). Per label of the real searchable forms (every
domain and ``other``), the sites are ranked by sha256("seed:site") and the first
ceil(share x n) are frozen (``classifiers.splits.choose_frozen_sites``); no result of
any model is looked at. Re-running with the same seed on the same data gives the same
file; new real forms of a frozen site join the frozen split.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from classifiers.datasets import read_jsonl, real_files
from classifiers.splits import FROZEN_FILE, choose_frozen_sites


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--seed", type=int, default=24)
    p.add_argument("--share", type=float, default=0.3)
    p.add_argument("--out", type=Path, default=FROZEN_FILE)
    args = p.parse_args()
    by_label: dict[str, set[str]] = defaultdict(set)
    for path in real_files():
        for rec in read_jsonl(path):
            if rec.get("searchable", True):
                label = str(rec.get("label") or ("other" if path.parent.name == "_other"
                                                  else path.parent.name))
                by_label[label].add(str(rec["site"]))
    sites = choose_frozen_sites(by_label, args.seed, args.share)
    frozen = set(sites)
    per_label = {
        lab: {"sites": len(s), "frozen": len(s & frozen)} for lab, s in sorted(by_label.items())
    }
    doc = {
        "what": "sites of the real labelled forms (domains/*/real*.jsonl) set aside as the "
                "frozen test split of issue 24: never trained, tuned or cross-validated on; "
                "scored once at the end (formhunter evaluate domain --frozen)",
        "how": f"per label of the real searchable forms, its sites ranked by "
               f"sha256('{args.seed}:' + site); the first ceil({args.share} x n) of each label "
               f"frozen, the union frozen for every label (scripts/freeze_split.py, "
               f"classifiers.splits.choose_frozen_sites); chosen before any tuning, without "
               f"looking at any result",
        "seed": args.seed,
        "share": args.share,
        "per_label": per_label,
        "sites": sites,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(sites)} frozen sites -> {args.out}")
    for lab, c in per_label.items():
        print(f"  {lab:<8} {c['frozen']:>3} of {c['sites']:>3} sites")


if __name__ == "__main__":
    main()
