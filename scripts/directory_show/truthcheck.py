"""Compare the directory's verdicts with the simulated web's ground truth (site, signature)."""
import sys

import duckdb

con = duckdb.connect(sys.argv[1], read_only=True)
con.execute("CREATE TEMP TABLE truth AS SELECT DISTINCT site, signature,"
            " searchable AS t_searchable,"
            " CASE WHEN NOT searchable THEN 'not-searchable' WHEN domain = '' THEN 'other'"
            " ELSE domain END AS t_domain FROM read_parquet('truth/forms.parquet')")
rows = con.execute("""
SELECT d.form_id, d.site, d.action_url, d.labelled, d.verdict_searchable, d.verdict_domain,
       d.verdict_relevant, t.t_searchable, t.t_domain, d.run_domain
FROM form_directory d JOIN truth t USING (site, signature) ORDER BY d.form_id""").fetchall()
n = len(rows)
def right(r):  # the verdict's domain (or not searchable) equals the truth's
    v = r[5] if r[4] else 'not-searchable'
    return v == r[8]
def rel_right(r):
    return bool(r[6]) == (r[8] == r[9])
for name, sel in (("all", rows), ("unlabelled", [r for r in rows if not r[3]])):
    print(f"{name}: {len(sel)} distinct forms; verdict domain right {sum(map(right, sel))}; "
          f"relevance right {sum(map(rel_right, sel))}; truly relevant "
          f"{sum(r[8] == r[9] for r in sel)}, judged relevant {sum(bool(r[6]) for r in sel)}")
