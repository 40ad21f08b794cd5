#!/bin/bash
# Issue 25, session 4: ache on simweb 12 airfare, 3 repeats, with autogroup ON and three CPU-bound
# processes, each in a session (so a scheduling group) of its own: the crawl gets about half a core.
cd /work/bench26
export PYTHONPATH=/work/bench26 PATH=/work/main/.venv/bin:$PATH
formhunter bench harvest --world simweb --webs 12 --domains airfare --strategies ache --no-references \
   --no-random --repeats 3 --pages 5000 --quiet --out /work/bench26out/starved-simweb-12 > /work/bench26out/starved-simweb-12.log 2>&1
