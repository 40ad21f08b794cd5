"""Freeze the site-disjoint test split of the real pages (data/splits/pages_frozen.json).

Per label (each domain and ``offtopic``), the sites of ``domains/*/pages_real.jsonl``
are ordered by sha256("<seed>:<site>") and the first ``ceil(SHARE * n)`` are frozen;
so are the sites the critic froze for the real forms (data/splits/forms_frozen.json,
when present), so that no page score is trained on a frozen form's site. Written once,
before any model was trained or tuned on the real pages; re-running it on the same
records gives the same file.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

SEED = 24
SHARE = 0.3
ROOT = Path(__file__).resolve().parent.parent.parent


def main(argv: list[str]) -> int:
    forms = Path(argv[0]) if argv else ROOT / "data" / "splits" / "forms_frozen.json"
    form_sites: set[str] = set()
    if forms.is_file():
        form_sites = set(json.loads(forms.read_text())["sites"])
    out: dict[str, dict[str, object]] = {}
    union: set[str] = set()
    for f in sorted(ROOT.glob("domains/*/pages_real.jsonl")):
        label = "offtopic" if f.parent.name == "_offtopic" else f.parent.name
        sites = sorted({json.loads(line)["site"] for line in f.open(encoding="utf-8")})
        ranked = sorted(sites, key=lambda s: hashlib.sha256(f"{SEED}:{s}".encode()).hexdigest())
        frozen = set(ranked[: math.ceil(SHARE * len(sites))]) | (form_sites & set(sites))
        out[label] = {"sites": len(sites), "frozen": sorted(frozen)}
        union |= frozen
        print(f"{label}: {len(frozen)} of {len(sites)} sites frozen")
    doc = {
        "what": "sites of the real pages (domains/*/pages_real.jsonl) set aside as the frozen "
        "test split of issue 24: never trained, tuned or cross-validated on; scored once at "
        "the end (formhunter evaluate page --frozen)",
        "how": "per label (domains and offtopic), its sites ranked by sha256('24:' + site); "
        "the first ceil(0.3 x n) of each label frozen, plus the sites of the real forms' "
        "frozen split (forms_frozen.json); the union is frozen for every label "
        "(scripts/realpages/freeze.py), chosen before any training on the real pages",
        "seed": SEED, "share": SHARE, "per_label": out, "sites": sorted(union)}
    path = ROOT / "data" / "splits" / "pages_frozen.json"
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
