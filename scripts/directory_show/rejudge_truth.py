"""Check a re-judging's changes against the simulated web's ground truth, per distinct
form (its newest copy): which verdicts became right, which became wrong; forms whose
identity was labelled (the training examples) apart from the others (held out)."""
import sys

import duckdb

con = duckdb.connect(sys.argv[1], read_only=True)
rid = int(sys.argv[2])
rows = con.execute(f"""
WITH truth AS (SELECT DISTINCT site, signature, CASE WHEN NOT searchable THEN 'not-searchable'
               WHEN domain = '' THEN 'other' ELSE domain END AS t
               FROM read_parquet('truth/forms.parquet'))
SELECT d.form_id, d.site, d.labelled, d.run_domain, t.t,
       CASE WHEN v.prev_searchable THEN coalesce(nullif(v.prev_domain, ''), 'other')
            ELSE 'not-searchable' END,
       CASE WHEN v.searchable THEN coalesce(nullif(v.domain, ''), 'other')
            ELSE 'not-searchable' END,
       v.prev_relevant, v.relevant
FROM form_directory d JOIN form_verdicts v ON v.form_id = d.form_id AND v.rejudge_id = {rid}
JOIN truth t USING (site, signature) ORDER BY d.form_id""").fetchall()
for name, keep in (("held out (not labelled)", False), ("labelled (training examples)", True)):
    sel = [r for r in rows if bool(r[2]) == keep]
    before = sum(r[5] == r[4] for r in sel)
    after = sum(r[6] == r[4] for r in sel)
    rel_before = sum(bool(r[7]) == (r[4] == r[3]) for r in sel)
    rel_after = sum(bool(r[8]) == (r[4] == r[3]) for r in sel)
    changed = [r for r in sel if r[5] != r[6] or r[7] != r[8]]
    print(f"{name}: {len(sel)} forms; domain right {before} -> {after}; relevance right "
          f"{rel_before} -> {rel_after}; changed {len(changed)}: became right "
          f"{sum(r[6] == r[4] and r[5] != r[4] for r in changed)}, became wrong "
          f"{sum(r[5] == r[4] and r[6] != r[4] for r in changed)}")
    for r in changed:
        mark = "right" if r[6] == r[4] else ("WRONG" if r[5] == r[4] else "still wrong")
        print(f"   form {r[0]:>4} {r[1]:<28} truth {r[4]:<14} {r[5]:>14} -> {r[6]:<14} {mark}")
