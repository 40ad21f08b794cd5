#!/bin/bash
# old (5df8f8b, inline sitemap read), new (c953877), new without sitemaps; ache simweb 12 airfare 2000 pages
export PATH=/work/main/.venv/bin:$PATH
for i in 1 2; do
 for side in old new nosm; do
  d=/work/bench25c; cfg=""; [ $side != old ] && d=/work/bench26; [ $side = nosm ] && cfg="--config /tmp/nosm.toml"
  out=/tmp/abc/$side-$i; rm -rf $out
  l0=$(cut -d' ' -f1 /proc/loadavg)
  (cd $d && PYTHONPATH=$d /usr/bin/time -o $out.time -f "%e %U %S" formhunter bench harvest --webs 12 --domains airfare --strategies ache --no-references --pages 2000 --quiet $cfg --out $out >/dev/null 2>&1)
  python3 -c "
import csv
for r in csv.DictReader(open('$out/runs.csv')):
    if r['strategy']=='ache': print('$side', $i, 'crawl_s', round(float(r['crawl_s']),1), 'relevant', r['relevant'], 'cov', round(float(r['site_coverage']),3), 'load', '$l0', '$(cut -d' ' -f1 /proc/loadavg)', 'time', open('$out.time').read().split()[-3:])
"
 done
done
