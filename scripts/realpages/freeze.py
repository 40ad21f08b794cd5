"""Freeze the site-disjoint test split of the real pages (data/splits/pages_frozen.json).

Per label (each domain and ``offtopic``), the sites of ``domains/*/pages_real.jsonl``
are ordered by sha256("<seed>:<site>") and the first ``ceil(SHARE * n)`` are frozen;
so are the sites the critic froze for the real forms (data/splits/forms_frozen.json,
when present), so that no page score is trained on a frozen form's site. Written once,
before any model was trained or tuned on the real pages; re-running it on the same
records gives the same file.

    freeze.py [FORMS_FROZEN]               # the split from scratch (session 1)
    freeze.py --extend REF [FORMS_FROZEN]  # pages added since git commit REF

``--extend`` never moves a site between the parts (a tuned-on site never becomes test,
a test site never becomes training): a label's sites at REF (``domains/*/pages_real.jsonl``
as committed there, or the file's own ``known`` list when it has one) keep their part;
the label's new sites are ranked the same way and frozen, in that order, while the
label's frozen share is under ``SHARE`` (a new site of the forms' frozen split is frozen
too). The file then lists every site decided on per label (``known``).
"""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

SEED = 24
SHARE = 0.3
ROOT = Path(__file__).resolve().parent.parent.parent


def _sites_at(ref: str, label: str) -> set[str]:
    """Sites of the label's real pages as committed at ``ref``."""
    name = "_offtopic" if label == "offtopic" else label
    out = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:domains/{name}/pages_real.jsonl"],
                         capture_output=True, text=True, check=False)  # fmt: skip
    return {json.loads(line)["site"] for line in out.stdout.splitlines() if line.strip()}


def main(argv: list[str]) -> int:
    path = ROOT / "data" / "splits" / "pages_frozen.json"
    ref = ""
    if argv[:1] == ["--extend"]:
        ref, argv = argv[1], argv[2:]
    before = json.loads(path.read_text()) if ref else None
    known: dict[str, list[str]] = {}
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
        if before is not None:
            old = set(before.get("known", {}).get(label, ())) or _sites_at(ref, label)
            frozen = {s for s in before["per_label"].get(label, {}).get("frozen", ())
                      if s in sites} | (form_sites & (set(sites) - old))  # fmt: skip
            for s in ranked:
                if s not in old and len(frozen) < math.ceil(SHARE * len(sites)):
                    frozen.add(s)
            known[label] = sorted(set(sites) | old)
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
    if before is not None:
        doc["how"] = str(doc["how"]) + (
            f"; pages added after {ref}: every earlier decision kept, new sites frozen in "
            "hash order while a label's frozen share is under 0.3 (freeze.py --extend)")
        doc["known"] = known
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
