"""Batch judging speed: ``formhunter judge`` on many saved pages in one call.

``save_pages`` writes simulated-web pages to a folder (breadth first from the
domains' seeds, HTML answers with status 200 only, padded to ``page_kb`` KB of
realistic boilerplate); ``run_judge_bench`` times one ``formhunter judge DIR``
process over them (start-up and model loading included), the same process on one
page (its start-up), and the judging loop alone in this process (one process), and
returns the figures: pages per second
of wall time, and per CPU second (which a busy shared machine does not distort),
how many form lines carry a page score (the page classifiers' topic score of the
whole page, computed in the same call) and the machine's load average around the run.
Run it with ``formhunter bench judge``.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["JudgeFigures", "format_figures", "run_judge_bench", "save_pages"]

_DOMAINS = ("airfare", "auto", "book", "hotel", "job", "movie", "music", "rental")


def save_pages(out: Path, n: int, *, seed: int = 7, sites: int = 200, page_kb: int = 100) -> int:
    """Write ``n`` HTML pages of the simulated web to ``out``/NNNN.html; the count written."""
    from formhunter.simweb import SimWeb

    web = SimWeb(seed=seed, n_sites=sites, page_kb=page_kb)
    queue: deque[str] = deque(u for d in _DOMAINS for u in web.seeds(d, 5))
    seen = set(queue)
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    tries = 0
    while queue and written < n and tries < n * 20:
        tries += 1
        url = queue.popleft()
        resp = web.fetch(url)
        if resp.status != 200 or "html" not in resp.content_type:
            continue
        (out / f"{written:04d}.html").write_bytes(resp.body)
        written += 1
        for dst, _ in web.outlinks(url):
            if dst not in seen and urlsplit(dst).scheme in ("http", "https"):
                seen.add(dst)
                queue.append(dst)
    return written


@dataclass(slots=True)
class JudgeFigures:
    pages: int
    megabytes: float
    forms: int
    searchable: int
    errors: int
    cli_seconds: float
    cli_cpu_seconds: float
    loop_seconds: float
    loop_cpu_seconds: float
    page_scored: int = 0
    load: tuple[float, float] = (0.0, 0.0)
    #: every timed run of the judge process: (wall seconds, CPU seconds)
    runs: list[tuple[float, float]] = field(default_factory=list)
    #: the judge process on the first page alone (start-up, imports, model loading):
    #: the fastest of the runs, (wall seconds, CPU seconds)
    startup: tuple[float, float] = (0.0, 0.0)

    @property
    def cli_pages_per_s(self) -> float:
        return self.pages / self.cli_seconds

    @property
    def loop_pages_per_s(self) -> float:
        return self.pages / self.loop_seconds

    def as_dict(self) -> dict[str, Any]:
        walls = sorted(w for w, _ in self.runs) or [self.cli_seconds]
        return {
            "pages": self.pages, "megabytes": round(self.megabytes, 1), "forms": self.forms,
            "searchable": self.searchable, "errors": self.errors,
            "cli_seconds": round(self.cli_seconds, 2),
            "cli_seconds_median": round(walls[len(walls) // 2], 2),
            "cli_runs": [[round(w, 2), round(c, 2)] for w, c in self.runs],
            "cli_cpu_seconds": round(self.cli_cpu_seconds, 2),
            "loop_seconds": round(self.loop_seconds, 2),
            "loop_cpu_seconds": round(self.loop_cpu_seconds, 2),
            "cli_pages_per_s": round(self.cli_pages_per_s, 1),
            "cli_pages_per_s_median": round(self.pages / walls[len(walls) // 2], 1),
            "cli_pages_per_cpu_s": round(self.pages / self.cli_cpu_seconds, 1),
            "loop_pages_per_s": round(self.loop_pages_per_s, 1),
            "loop_pages_per_cpu_s": round(self.pages / self.loop_cpu_seconds, 1),
            "cli_cpu_ms_per_page": round(1000 * self.cli_cpu_seconds / self.pages, 2),
            "startup_seconds": round(self.startup[0], 2),
            "startup_cpu_seconds": round(self.startup[1], 2),
            "page_scored_lines": self.page_scored,
            "load_1min_before_after": [round(x, 2) for x in self.load],
        }  # fmt: skip


def format_figures(f: JudgeFigures) -> str:
    """The figures in one paragraph."""
    d = f.as_dict()
    return (f"formhunter judge DIR ({d['pages']} pages, {d['megabytes']} MB, one call, "
            f"start-up and model loading included): fastest of {len(f.runs) or 1} runs "
            f"{d['cli_pages_per_s']:.0f} pages/s, median {d['cli_pages_per_s_median']:.0f}; "
            f"{d['cli_cpu_ms_per_page']:.1f} CPU ms per page (the process and its "
            f"workers, {d['cli_pages_per_cpu_s']:.0f} pages per CPU second); judging loop "
            f"alone, one process: {d['loop_pages_per_s']:.0f} pages/s "
            f"({d['loop_pages_per_cpu_s']:.0f} per CPU second); start-up (judge on one "
            f"page): {d['startup_seconds']:.2f} s, {d['startup_cpu_seconds']:.2f} CPU s; "
            f"{d['page_scored_lines']} of "
            f"{d['forms']} form lines with a page score; load average (1 min) before/after "
            f"{d['load_1min_before_after']}")  # fmt: skip


def _judge_process(folder: Path, domain: str) -> tuple[float, float, str]:
    """(wall s, CPU s of the process and its workers, stdout) of one ``formhunter judge``
    of a folder or a file."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "formhunter.cli", "judge", str(folder), "--domain", domain],
        capture_output=True, text=True, env=os.environ.copy(), check=False,
    )  # fmt: skip
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)  # the CLI and its workers
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"judge exited {proc.returncode}: {proc.stderr[-2000:]}")
    return wall, (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime), proc.stdout


def run_judge_bench(folder: Path, domain: str = "book", repeats: int = 1) -> JudgeFigures:
    """Time ``formhunter judge FOLDER --domain D`` (a fresh process, ``repeats`` times; the
    fastest run is reported, all are kept) and the loop alone."""
    from formhunter.critics.files import judge_files, make_critic, page_files

    files = list(page_files([folder]))
    size = sum(f.stat().st_size for f in files) / 1e6
    load0 = os.getloadavg()[0]
    runs = [_judge_process(folder, domain) for _ in range(max(1, repeats))]
    startup = min((_judge_process(files[0], domain)[:2] for _ in range(max(1, repeats))),
                  key=lambda r: r[0])  # fmt: skip
    load1 = os.getloadavg()[0]
    cli, cli_cpu, out = min(runs, key=lambda r: r[0])
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    critic = make_critic("default", domain)
    t1, c1 = time.perf_counter(), time.process_time()
    n_rows = sum(1 for _ in judge_files(lambda: critic, files))
    loop, loop_cpu = time.perf_counter() - t1, time.process_time() - c1
    assert n_rows == len(rows), (n_rows, len(rows))
    return JudgeFigures(
        pages=len(files), megabytes=size,
        forms=sum("form_index" in r for r in rows),
        searchable=sum(bool(r.get("searchable")) for r in rows),
        errors=sum("error" in r for r in rows), cli_seconds=cli, cli_cpu_seconds=cli_cpu,
        loop_seconds=loop, loop_cpu_seconds=loop_cpu,
        page_scored=sum(r.get("page_score") is not None for r in rows), load=(load0, load1),
        runs=[(w, c) for w, c, _ in runs], startup=startup,
    )  # fmt: skip
