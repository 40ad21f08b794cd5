"""Run in a folder holding c.duckdb and truth/ (formhunter simweb truth --out truth).

Label the 29 forms the shipped domain model is least sure of (the "label next" list),
each with its ground truth on the simulated web, through the web page's API."""
import json
import sys
import urllib.request

import duckdb

from classifiers.persist import load_model, model_path
from formhunter.trainers.labels import least_sure, unlabelled_forms

port, token, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
con = duckdb.connect("c.duckdb", read_only=True)
model, _ = load_model(model_path("domain", name="shipped"), "domain")
picks = least_sure(model, unlabelled_forms(con), n)
truth = {(s, g): d for s, g, d in con.execute(
    "SELECT DISTINCT site, signature, CASE WHEN NOT searchable THEN 'not-searchable'"
    " WHEN domain = '' THEN 'other' ELSE domain END FROM read_parquet('truth/forms.parquet')"
).fetchall()}
sigs = dict(con.execute("SELECT form_id, signature FROM forms").fetchall())
con.close()
right = 0
for p in picks:
    true = truth[(p["site"], sigs[p["form_id"]])]
    ok = true == p["stored_domain"]
    right += ok
    body = json.dumps({"verdict": "right" if ok else "wrong", "true_domain": true,
                       "note": "ground truth of the simulated web"}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/forms/{p['form_id']}/label",
                                 data=body, method="POST", headers={
                                     "X-Formhunter-Token": token,
                                     "Content-Type": "application/json"})
    urllib.request.urlopen(req).read()
print(f"labelled {len(picks)} forms: verdict right {right}, wrong {len(picks) - right}")
