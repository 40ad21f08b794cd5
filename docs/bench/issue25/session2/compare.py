"""Before/after table for issue 25 session 2 from bench harvest runs.csv files."""
import csv, sys, statistics as st
from collections import defaultdict

def rows(path, web=None, strategy=None):
    out = []
    for r in csv.DictReader(open(path)):
        if web and r["web"] != str(web):
            continue
        if strategy and r["strategy"] != strategy:
            continue
        out.append(r)
    return out

def f(x, nd=2):
    return f"{float(x):.{nd}f}"

if __name__ == "__main__":
    # usage: compare.py WEB label=path ...
    web = sys.argv[1]
    sets = [a.split("=", 1) for a in sys.argv[2:]]
    print("| domain | code | relevant (truth) | ratio to omniscient | site coverage | sites w/ relevant / form sites | fetch errors | pages/s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    doms = []
    for _, p in sets:
        for r in rows(p, web, "ache"):
            if r["domain"] not in doms:
                doms.append(r["domain"])
    for d in doms:
        for label, p in sets:
            for r in rows(p, web, "ache"):
                if r["domain"] == d:
                    print(f"| {d} | {label} | {r['relevant']} | {f(r['ratio_omniscient'])} | {f(r['site_coverage'])} | {r['sites_relevant']}/{r['form_sites']} | {r['errors']} | {f(r['pages_per_s'],1)} |")
