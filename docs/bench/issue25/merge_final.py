"""Copy each part report, dropping runs a stop cut short (reason interrupted), then merge."""
import shutil, subprocess, sys
from pathlib import Path
import pandas as pd

import json, os
webs = [int(w) for w in os.environ.get("WEBS", "").split(",") if w]
out, parts = Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]]
tmp = out.parent / (out.name + ".parts")
shutil.rmtree(tmp, ignore_errors=True)
keep = []
for p in parts:
    if not (p / "runs.csv").exists():
        print("no report in", p); continue
    q = tmp / p.name
    shutil.copytree(p, q, ignore=shutil.ignore_patterns("catalogues"))
    runs = pd.read_csv(q / "runs.csv")
    drop = (runs["reason"] == "interrupted") | (~runs["web"].isin(webs) if webs else False)
    bad = runs[drop][["web", "strategy", "domain", "repeat"]]
    if webs:
        rec = json.loads((q / "run.json").read_text())
        rec["plan"]["webs"] = [w for w in rec["plan"]["webs"] if w in webs]
        rec["web_totals"] = {k: v for k, v in rec["web_totals"].items() if int(k) in webs}
        (q / "run.json").write_text(json.dumps(rec, indent=1))
    if len(bad):
        print(p.name, "dropping", bad.to_dict("records"))
        key = ["web", "strategy", "domain", "repeat"]
        runs = runs.merge(bad, on=key, how="left", indicator=True)
        runs = runs[runs["_merge"] == "left_only"].drop(columns="_merge")
        runs.to_csv(q / "runs.csv", index=False)
        cur = pd.read_parquet(q / "curves.parquet")
        cur = cur.merge(bad, on=key, how="left", indicator=True)
        cur[cur["_merge"] == "left_only"].drop(columns="_merge").to_parquet(q / "curves.parquet", index=False)
    keep.append(str(q))
r = subprocess.run(["formhunter", "bench", "harvest", "--merge", *keep, "--out", str(out)])
print("merge exit", r.returncode, "(130: a part was interrupted)")
