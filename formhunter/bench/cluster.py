"""``formhunter bench cluster``: the same crawl in one process and on a local Ray cluster.

On the simulated web (served by a proxy process, pages padded to ``page_kb`` KB),
with the same seeds, settings and page budget: the single-process engine, then
``--workers N`` for each N. For each run it prints pages/s (crawl seconds, and wall
seconds with set-up), CPU seconds per page split into driver, shards, writer and
learner, pages per CPU-second, relevant forms by the ground truth, learning
iterations, the end reason, and then a run with a shard killed mid-crawl (duplicates
must be 0). ``tree_cpu_s``: the CPU of the whole process tree from the crawl's start to
its end (``tree_cpu``: parse workers, and Ray's GCS, raylet and every worker, which the
per-part figures leave out), with ``pages_per_tree_cpu_s`` and the 1-minute load at the
end beside it. Then every counter of ``CrawlStats`` (``stats.COUNTERS``, skipped links by
reason, errors) and the end reason of each cluster run beside the single process's, on
the same seeds (``format_counters``). ``uptime`` is printed before and after: other
processes load the machine. Figures, not a timed test.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from formhunter.catalogue import Catalogue
from formhunter.stats import COUNTERS, CrawlStats


@dataclass
class ClusterPlan:
    pages: int = 1000
    sites: int = 300
    seed: int = 7
    domain: str = "airfare"
    strategy: str = "ache"
    concurrency: int = 32
    slow_delay: float = 0.5
    page_kb: int = 100
    workers: list[int] = field(default_factory=lambda: [1, 2, 4])
    n_seeds: int = 10
    kill: bool = True
    learning_threshold: int = 5  # new relevant forms per learning iteration (both modes)


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False,
                              timeout=5).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "-"


def tree_cpu() -> float:
    """CPU seconds (user + system, reaped children included) of this process and every
    live descendant -- parse workers; Ray's GCS, raylet and workers of a local cluster
    -- except the simulated web's proxy (``simweb serve``), from ``/proc``; 0.0 where
    there is no ``/proc``."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if b"simweb\0serve" in cmd:
            continue  # the web, not the crawl (its subtree is left out with it)
        pid = int(entry.name)
        children.setdefault(int(fields[1]), []).append(pid)
        times[pid] = sum(int(x) for x in fields[11:15]) / tick
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        todo += children.get(pid, [])
    return total


class TreeClock:
    """``tree_cpu`` between a crawl's "start" and "end" events (a listener's ``event``)."""

    def __init__(self) -> None:
        self.started = self.seconds = 0.0

    def event(self, event: str, *_: Any) -> None:
        if event == "start":
            self.started = tree_cpu()
        elif event == "end":
            self.seconds = tree_cpu() - self.started


def _frames(db: Path, run_id: int) -> tuple[Any, Any, dict[str, int]]:
    from formhunter.bench.harvest import run_frames

    with Catalogue(db, read_only=True) as cat:
        pages, forms = run_frames(cat.con, run_id)
        dup = cat.con.execute(
            "SELECT (SELECT count(*) - count(DISTINCT url) FROM pages WHERE run_id = $1),"
            " (SELECT count(*) - count(DISTINCT (site, signature)) FROM forms WHERE run_id = $1),"
            " (SELECT count(*) FROM learning_iterations WHERE run_id = $1)", [run_id]
        ).fetchall()[0]  # fmt: skip
    return pages, forms, {"duplicate_pages": int(dup[0]), "duplicate_forms": int(dup[1]),
                          "learning_rows": int(dup[2])}  # fmt: skip


def _killer(killed: list[int], at: int) -> Callable[[str, Any], None]:
    """A listener killing shard 0 (Ray restarts it) once ``at`` pages are committed."""
    import ray

    def listener(event: str, c: Any) -> None:
        if event == "step" and not killed and c.stats.pages >= at:
            ray.kill(c.shards[0], no_restart=False)
            killed.append(c.stats.pages)

    return listener


def run_cluster_bench(plan: ClusterPlan, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Every run of the plan (module doc); returns the figures as plain data."""

    from formhunter.bench.harvest import bench_settings, crawl_run, judge
    from formhunter.bench.oracle import TruthGraph
    from formhunter.cluster.driver import ClusterCrawl, start_ray, stop_ray
    from formhunter.simweb import SimWeb
    from formhunter.simweb.server import proxy_process
    from formhunter.worlds import as_world

    web = SimWeb(seed=plan.seed, n_sites=plan.sites, slow_delay=plan.slow_delay,
                 page_kb=plan.page_kb)  # fmt: skip
    seeds = web.seeds(plan.domain, plan.n_seeds)
    graph = TruthGraph.from_web(as_world(web))
    fig: dict[str, Any] = {"plan": asdict(plan), "cpus": os.cpu_count(),
                           "uptime_before": uptime(), "runs": []}  # fmt: skip
    say(f"load: {fig['uptime_before']}")

    def relevant(db: Path, run_id: int) -> tuple[int, dict[str, int]]:
        pages, forms, extra = _frames(db, run_id)
        curves = judge(graph, plan.domain, pages, forms)
        return int(curves["relevant"][-1]) if len(curves["relevant"]) else 0, extra

    serve = proxy_process(plan.seed, plan.sites, plan.slow_delay, plan.page_kb)
    with tempfile.TemporaryDirectory() as tmp, serve as proxy:
        db = Path(tmp) / "single.duckdb"
        say(f"single process: {plan.pages} pages ({plan.strategy}) ...")
        clock = TreeClock()
        result, _, _, extras = crawl_run(plan.strategy, plan.domain, seeds, plan.pages, 0,
                                         proxy, db, plan.concurrency,
                                         learning_threshold=plan.learning_threshold,
                                         on_event=clock.event)  # fmt: skip
        st = result.stats
        rel, extra = relevant(db, result.run_id)
        fig["runs"].append({
            "run": "single process", "pages": st.pages, "seconds": st.seconds,
            "wall_with_setup_s": extras["wall_s"], "pages_per_s": st.pages / st.seconds,
            "cpu_per_page_ms": 1000 * st.cpu_seconds / max(st.pages, 1),
            "driver_cpu_per_page_ms": 1000 * st.cpu_seconds / max(st.pages, 1),
            "shard_cpu_per_page_ms": 0.0, "writer_cpu_per_page_ms": 0.0,
            "learner_cpu_per_page_ms": 0.0, "relevant_truth": rel, "forms": st.forms,
            "learning_iterations": st.learning_iterations, "end_reason": result.reason,
            "pages_per_cpu_s": st.pages / max(st.cpu_seconds + st.worker_cpu, 1e-9),
            "tree_cpu_s": clock.seconds,
            "pages_per_tree_cpu_s": st.pages / max(clock.seconds, 1e-9), "load": _load(),
            "stage_cpu_per_page_ms": _stage_cpu(st), "counters": _counters(st), **extra,
        })  # fmt: skip
        say(_row(fig["runs"][-1]))
        start_ray(max(plan.workers), None)
        try:
            runs = [(n, False) for n in plan.workers] + ([(2, True)] if plan.kill else [])
            for n, kill in runs:
                db = Path(tmp) / f"cluster-{n}-{int(kill)}.duckdb"
                settings = bench_settings(plan.domain, plan.strategy, plan.pages, db, proxy,
                                          plan.concurrency, 0,
                                          plan.learning_threshold)  # fmt: skip
                crawl = ClusterCrawl(settings, seeds=seeds, workers=n)
                clock = TreeClock()
                crawl.listen(clock.event)
                killed: list[int] = []
                if kill:
                    crawl.listen(_killer(killed, plan.pages // 3))
                say(f"--workers {n}{' (shard 0 killed mid-crawl)' if kill else ''} ...")
                t0 = time.perf_counter()
                result = crawl.run()
                wall = time.perf_counter() - t0
                st = result.stats
                rel, extra = relevant(db, result.run_id)
                pages = max(st.pages, 1)
                w = crawl.writer_cost
                cpu = (st.cpu_seconds + st.worker_cpu + float(w.get("cpu_seconds", 0.0))
                       + crawl.learner_cpu)  # fmt: skip
                fig["runs"].append({
                    "run": f"--workers {n}" + (" killed" if kill else ""), "pages": st.pages,
                    "seconds": st.seconds, "wall_with_setup_s": wall,
                    "pages_per_s": st.pages / st.seconds,
                    "cpu_per_page_ms": 1000 * cpu / pages,
                    "pages_per_cpu_s": st.pages / max(cpu, 1e-9),
                    "driver_cpu_per_page_ms": 1000 * st.cpu_seconds / pages,
                    "shard_cpu_per_page_ms": 1000 * st.worker_cpu / pages,
                    "writer_cpu_per_page_ms": 1000 * float(w.get("cpu_seconds", 0.0)) / pages,
                    "learner_cpu_per_page_ms": 1000 * crawl.learner_cpu / pages,
                    "writer_writes": w.get("writes", 0), "relevant_truth": rel,
                    "forms": st.forms, "learning_iterations": crawl.learning_iterations,
                    "restarts": crawl.restarts, "killed_at_page": killed[0] if killed else None,
                    "end_reason": result.reason, "tree_cpu_s": clock.seconds,
                    "pages_per_tree_cpu_s": st.pages / max(clock.seconds, 1e-9),
                    "load": _load(), "stage_cpu_per_page_ms": _stage_cpu(st),
                    "counters": _counters(st), **extra,
                })  # fmt: skip
                say(_row(fig["runs"][-1]))
        finally:
            stop_ray()
    fig["uptime_after"] = uptime()
    say(f"load: {fig['uptime_after']}")
    return fig


_COLS = ("run", "pages", "pages_per_s", "seconds", "wall_with_setup_s", "cpu_per_page_ms",
         "pages_per_cpu_s", "tree_cpu_s", "pages_per_tree_cpu_s", "load",
         "driver_cpu_per_page_ms", "shard_cpu_per_page_ms", "writer_cpu_per_page_ms",
         "learner_cpu_per_page_ms", "relevant_truth", "learning_iterations", "end_reason",
         "duplicate_pages", "duplicate_forms")  # fmt: skip


def _load() -> str:
    """The 1-minute load average, now."""
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "-"


def _stage_cpu(st: CrawlStats) -> dict[str, float]:
    """CPU ms per page of each stage of the crawl loop (``CrawlStats.stage_cpu``; a
    cluster's: every shard's, merged)."""
    return {k: round(1000 * v / max(st.pages, 1), 3) for k, v in st.stage_cpu.items()}


def _counters(st: CrawlStats) -> dict[str, int]:
    """Every counter of a run, skipped links and errors by kind (flat)."""
    out = {k: int(getattr(st, k)) for k in COUNTERS}
    out |= {f"skipped:{k}": int(v) for k, v in st.skipped.items()}
    out |= {f"errors:{k}": int(v) for k, v in st.errors.items()}
    return out


def format_counters(fig: dict[str, Any]) -> str:
    """Each run's counters and end reason beside the first run's (the single process):
    a markdown table, one row per counter."""
    runs = fig["runs"]
    keys = sorted({k for r in runs for k in r["counters"]},
                  key=lambda k: (":" in k, COUNTERS.index(k) if k in COUNTERS else 0, k))
    lines = ["| counter | " + " | ".join(r["run"] for r in runs) + " |",
             "|" + "---|" * (len(runs) + 1),
             "| end reason | " + " | ".join(str(r["end_reason"]) for r in runs) + " |"]
    lines += ["| " + k + " | " + " | ".join(str(r["counters"].get(k, 0)) for r in runs) + " |"
              for k in keys]
    return "\n".join(lines)


def _row(r: dict[str, Any]) -> str:
    return "| " + " | ".join(f"{r.get(c):.2f}" if isinstance(r.get(c), float) else
                             str(r.get(c, "")) for c in _COLS) + " |"  # fmt: skip


def format_figures(fig: dict[str, Any]) -> str:
    """A markdown table of the runs, with the machine load."""
    p = fig["plan"]
    lines = [f"# cluster benchmark: {p['pages']} pages, {p['strategy']}, {p['domain']}, "
             f"{p['sites']} sites (seed {p['seed']}), pages ~{p['page_kb']} KB, "
             f"concurrency {p['concurrency']}, {fig['cpus']} CPUs",
             f"load before: {fig['uptime_before']}", f"load after: {fig['uptime_after']}", "",
             "| " + " | ".join(_COLS) + " |", "|" + "---|" * len(_COLS)]  # fmt: skip
    lines += [_row(r) for r in fig["runs"]]
    lines += ["", "CPU ms per page of each stage of the crawl loop (``stage_cpu``):", "",
              "| stage | " + " | ".join(r["run"] for r in fig["runs"]) + " |",
              "|" + "---|" * (len(fig["runs"]) + 1)]
    stages = sorted({k for r in fig["runs"] for k in r.get("stage_cpu_per_page_ms", {})})
    lines += [f"| {k} | " + " | ".join(str(r.get("stage_cpu_per_page_ms", {}).get(k, "-"))
                                       for r in fig["runs"]) + " |" for k in stages]
    lines += ["", "counters and end reason of each run (same seeds):", "", format_counters(fig)]
    return "\n".join(lines)


def write(fig: dict[str, Any], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / "cluster.json").write_text(json.dumps(fig, indent=2, default=str))
    path = out / "cluster.md"
    path.write_text(format_figures(fig) + "\n")
    return path


def parse_workers(text: str) -> list[int]:
    out = [int(x) for x in text.split(",") if x.strip()]
    if not out or min(out) < 1:
        raise ValueError("give shard counts >= 1, comma-separated")
    return out


__all__ = ["ClusterPlan", "format_counters", "format_figures", "parse_workers",
           "run_cluster_bench", "write"]  # fmt: skip
