#!/bin/bash
# Issue 25, session 4: loaded against quiet. The same web, domains and repeats as the grid's
# simweb-12 part (c953877), ache only, run while another crawl (the grid's bazaar-37451 part,
# same priority) shares the machine's two cores.
cd /work/bench26
export PYTHONPATH=/work/bench26 PATH=/work/main/.venv/bin:$PATH
echo "$(date -u +%H:%M:%S) start loaded simweb:12 load $(cut -d' ' -f1-3 /proc/loadavg)" >> /work/bench26out/chain.log
formhunter bench harvest --world simweb --webs 12 --domains airfare,hotel,movie,rental \
   --strategies ache --no-references --no-random --repeats 3 --pages 5000 --quiet \
   --out /work/bench26out/loaded-simweb-12 > /work/bench26out/loaded-simweb-12.log 2>&1
echo "$(date -u +%H:%M:%S) end loaded simweb:12 rc $? load $(cut -d' ' -f1-3 /proc/loadavg)" >> /work/bench26out/chain.log
