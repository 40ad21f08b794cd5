"""The judge benchmark end to end with a few pages: the judge process, its figures."""

from __future__ import annotations

from pathlib import Path

from formhunter.bench.judge import format_figures, run_judge_bench, save_pages


def test_judge_bench_end_to_end(tmp_path: Path) -> None:
    n = save_pages(tmp_path, 12, sites=20, page_kb=20)
    assert n == 12 and len(list(tmp_path.glob("*.html"))) == 12
    fig = run_judge_bench(tmp_path, "book", repeats=2)
    d = fig.as_dict()
    assert d["pages"] == 12 and d["errors"] == 0 and len(d["cli_runs"]) == 2
    assert d["cli_seconds"] == min(w for w, _ in d["cli_runs"])
    assert d["cli_cpu_ms_per_page"] > 0 and d["loop_pages_per_cpu_s"] > 0
    assert d["startup_cpu_seconds"] > 0 and d["startup_seconds"] > 0
    # every form line carries the page's topic score (the trained critic's context model)
    assert d["forms"] > 0 and d["page_scored_lines"] == d["forms"]
    text = format_figures(fig)
    assert "pages/s" in text and "CPU ms per page" in text and "start-up" in text
