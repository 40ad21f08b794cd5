"""Loaded against quiet: ache's site coverage per (domain, repeat) on simweb web 12, from the
grid's part (one crawl at a time) and the loaded pass (beside another crawl)."""

import csv
import statistics
import sys

quiet, loaded = sys.argv[1], sys.argv[2]


def rows(path: str) -> dict[tuple[str, str], dict[str, str]]:
    return {(r["domain"], r["repeat"]): r for r in csv.DictReader(open(path))
            if r["strategy"] == "ache"}


q, ld = rows(quiet), rows(loaded)
print("| domain | repeat | coverage quiet | coverage loaded | diff | relevant quiet | relevant loaded | crawl s quiet | crawl s loaded |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
diffs = []
for key in sorted(ld):
    if key not in q:
        continue
    a, b = q[key], ld[key]
    d = float(b["site_coverage"]) - float(a["site_coverage"])
    diffs.append(abs(d))
    print(f"| {key[0]} | {key[1]} | {float(a['site_coverage']):.3f} | {float(b['site_coverage']):.3f} "
          f"| {d:+.3f} | {a['relevant']} | {b['relevant']} | {float(a['crawl_s']):.0f} | {float(b['crawl_s']):.0f} |")
print(f"\nmax |diff| {max(diffs):.3f}, mean |diff| {statistics.mean(diffs):.3f} over {len(diffs)} pairs")
