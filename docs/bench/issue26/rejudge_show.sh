#!/bin/bash
# Issue 26 show, re-run after the rejudge fix: two runs, 30 labels, retrain, rejudge, truth.
REPO=${REPO:-$(git -C "$(dirname "$0")" rev-parse --show-toplevel)}
set -x
mkdir -p /tmp/show26 && cd /tmp/show26
export PATH=$REPO/.venv/bin:$PATH PYTHONPATH=$REPO FORMHUNTER_MODELS=/tmp/show26/models
P=18923; WP=18924
formhunter simweb serve --seed 23 --sites 300 --port $P > simweb.log 2>&1 &
SIM=$!
sleep 8
formhunter simweb truth --seed 23 --sites 300 --out truth
formhunter simweb seeds --seed 23 --sites 300 --domain book --n 20 > seeds.txt
formhunter simweb seeds --seed 23 --sites 300 --domain hotel --n 20 > seeds-hotel.txt
for i in 1 2; do
  /usr/bin/time -f "%e s wall %U s user" formhunter crawl --domain book --seeds seeds.txt --db c.duckdb --max-pages 1500 --strategy ache --proxy http://127.0.0.1:$P --allow-private --quiet
done
/usr/bin/time -f "%e s wall" formhunter crawl --domain hotel --seeds seeds-hotel.txt --db c.duckdb --max-pages 1500 --strategy ache --proxy http://127.0.0.1:$P --allow-private --quiet
formhunter runs --db c.duckdb
echo "== rejudge with the crawl's own (shipped) models: expect 0 changes"
formhunter rejudge --db c.duckdb --model shipped --limit 0
formhunter serve --db c.duckdb --port $WP > serve.log 2>&1 &
SRV=$!
sleep 10
TOKEN=$(grep -o 'token=[A-Za-z0-9_-]*' serve.log | head -1 | cut -d= -f2)
python $REPO/scripts/directory_show/label30.py $WP "$TOKEN" 30
kill $SRV; wait $SRV
/usr/bin/time -f "%e s wall" formhunter train domain --from-catalogue c.duckdb --suggest 5
formhunter models list
formhunter rejudge --db c.duckdb --limit 0
python $REPO/scripts/directory_show/rejudge_truth.py c.duckdb 2
formhunter forms --db c.duckdb --format json --out export.json
kill $SIM
