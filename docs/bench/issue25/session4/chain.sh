#!/bin/bash
# Issue 25, session 4: the harvest grid on frozen code (c953877), one part per web.
cd /work/bench26
export PYTHONPATH=/work/bench26 PATH=/work/main/.venv/bin:$PATH
for part in simweb:12 bazaar:37451 simweb:13 bazaar:54082 simweb:14 bazaar:59689 simweb:15 bazaar:69062 simweb:11 bazaar:22856; do
  world=${part%%:*}; web=${part##*:}; out=/work/bench26out/$world-$web
  [ -f $out/run.json ] && continue
  [ -f /work/bench26out/STOP ] && break
  echo "$(date -u +%H:%M:%S) start $part load $(cut -d' ' -f1-3 /proc/loadavg)" >> /work/bench26out/chain.log
  formhunter bench harvest --world $world --webs $web --domains airfare,auto,book,hotel,job,movie,music,rental \
     --strategies ache,tres --no-random --repeats 3 --pages 5000 --quiet --out $out > $out.log 2>&1
  echo "$(date -u +%H:%M:%S) end $part rc $? load $(cut -d' ' -f1-3 /proc/loadavg)" >> /work/bench26out/chain.log
done
