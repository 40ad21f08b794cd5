"""Batch judging benchmark: save N simulated-web pages, judge them in one call, print pages/s.

    python scripts/bench_judge.py [--pages 700] [--page-kb 100] [--seed 7]

The issue's target (issue 24): at least 150 pages/s for ``formhunter judge DIR`` on this
2-core machine, start-up, model loading and every page's topic score included
(``formhunter.bench.judge``); the CPU seconds per page and the machine's load are printed
beside it, since the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from formhunter.bench.judge import run_judge_bench, save_pages


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--pages", type=int, default=700)
    p.add_argument("--page-kb", type=int, default=100)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--sites", type=int, default=200)
    p.add_argument("--domain", default="book")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as tmp:
        folder = Path(tmp)
        n = save_pages(folder, args.pages, seed=args.seed, sites=args.sites, page_kb=args.page_kb)
        figures = run_judge_bench(folder, args.domain)
    print(f"saved {n} pages (page_kb={args.page_kb}, seed={args.seed})")
    print(json.dumps(figures.as_dict(), indent=2))
    d = figures.as_dict()
    print(f"formhunter judge DIR: {d['cli_pages_per_s']:.0f} pages/s in one call, start-up "
          f"and model loading included ({d['cli_pages_per_cpu_s']:.0f} pages per CPU second); "
          f"judging loop alone, one process: {d['loop_pages_per_s']:.0f} pages/s "
          f"({d['loop_pages_per_cpu_s']:.0f} per CPU second); {d['cli_cpu_ms_per_page']:.1f} CPU ms "
          f"per page in the CLI (workers included); {d['page_scored_lines']} of {d['forms']} "
          f"form lines with a page score; load average {d['load_1min_before_after']}")


if __name__ == "__main__":
    main()
