"""Batch judging benchmark; the same as ``formhunter bench judge`` (kept for old notes).

    python scripts/bench_judge.py [--pages 700] [--page-kb 100] [--seed 7] [--repeats 3]
"""

from __future__ import annotations

import sys

from formhunter.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "judge", *sys.argv[1:]]))
