#!/bin/bash
# Issue 24's harvest before/after: simweb 12, every domain, repeat 0, ache, on the final main (e037a1b);
# "before" is the grid's simweb-12 part (c953877: before the page_concepts domain model b93e5d0 and the
# page/context models retrained on the final real pages e037a1b).
cd /work/bench27
export PYTHONPATH=/work/bench27 PATH=/work/main/.venv/bin:$PATH
formhunter bench harvest --world simweb --webs 12 --domains airfare,auto,book,hotel,job,movie,music,rental \
   --strategies ache --no-random --repeats 1 --pages 5000 --quiet --out /work/bench26out/after-simweb-12 > /work/bench26out/after-simweb-12.log 2>&1
