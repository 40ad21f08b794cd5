"""The issue's goals per domain from a harvest part's runs.csv (mean over repeats): ache's
site coverage (>= 0.90), ache - keyword (>= +0.10; the headroom omniscient - keyword
bounds what any crawler can gain over keyword), relevant forms / omniscient (>= 0.85)."""

import csv
import statistics
import sys
from collections import defaultdict

for path in sys.argv[1:]:
    cells: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for r in csv.DictReader(open(path)):
        cells[(r["domain"], r["strategy"])].append(r)
    domains = sorted({d for d, _ in cells})
    print(f"\n{path}\n")
    print("| domain | repeats | ache coverage | keyword | omniscient | ache - keyword | headroom | "
          "ache / omniscient | tres coverage | tres / omniscient |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

    def mean(d: str, s: str, k: str) -> float:
        rows = cells.get((d, s), [])
        return statistics.mean(float(r[k]) for r in rows) if rows else float("nan")

    for d in domains:
        n = len(cells.get((d, "ache"), []))
        a, k, o = mean(d, "ache", "site_coverage"), mean(d, "keyword", "site_coverage"), \
            mean(d, "omniscient", "site_coverage")
        ratio = mean(d, "ache", "ratio_omniscient")
        t, tr = mean(d, "tres", "site_coverage"), mean(d, "tres", "ratio_omniscient")
        flag = lambda ok: "" if ok else " **miss**"  # noqa: E731
        print(f"| {d} | {n} | {a:.2f}{flag(a >= 0.895)} | {k:.2f} | {o:.2f} | "
              f"{a - k:+.2f}{flag(a - k >= 0.095)} | {o - k:+.2f} | {ratio:.2f}{flag(ratio >= 0.845)} "
              f"| {t:.2f} | {tr:.2f} |")
