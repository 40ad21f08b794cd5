"""The harvest benchmark end to end on a tiny simulated web: tables, curves, plots."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from formhunter.bench.harvest import HarvestPlan, HarvestResult, crawl_run, run_harvest, seed_set
from formhunter.bench.report import write_harvest
from formhunter.cli import main
from formhunter.simweb import ProxyHandle, SimWeb

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def harvest(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    out = tmp_path_factory.mktemp("harvest")
    plan = HarvestPlan(
        domains=("airfare",),
        strategies=("baseline",),
        pages=150,
        sites=40,
        seeds_per_domain=5,
        out=out,
        cache_dir=out / "cache",
        concurrency=32,
    )
    result = run_harvest(plan, progress=False, say=lambda s: None)
    assert not result.interrupted
    return out, write_harvest(result, out)


def test_report_files(harvest: tuple[Path, dict[str, Path]]) -> None:
    out, paths = harvest
    runs = pd.read_csv(paths["runs"])
    # keyword best first (no learning) is a reference beside random since issue 17
    assert list(runs["strategy"]) == ["omniscient", "baseline", "keyword", "random"]
    assert (runs["pages"] == 150).all() and (runs["faults"] == 0).all()
    assert (runs["requeued"] >= 0).all()  # transient failures queued again, per run
    omni = runs.set_index("strategy").loc["omniscient"]
    assert omni["ratio_omniscient"] == 1.0 and omni["relevant"] >= 1
    crawls = runs[runs["strategy"] != "omniscient"]
    # every form the crawler catalogued is a form of the truth (site + signature join)
    assert (crawls["forms_unmatched"] == 0).all()
    assert (crawls["relevant"] <= omni["relevant"] + 2).all()
    assert (runs["loss_rate"].between(0, 1)).all()
    # site coverage: sites with a relevant form found / the web's sites holding one
    assert (runs["form_sites"] == runs["form_sites"].iloc[0]).all() and omni["form_sites"] >= 1
    assert (runs["site_coverage"] == runs["sites_relevant"] / runs["form_sites"]).all()
    assert (runs["form_sites_entered_without"]
            == runs["form_sites_entered"] - runs["sites_relevant"]).all()  # fmt: skip
    assert (runs["pages_per_site"] == runs["pages"] / runs["sites_visited"]).all()
    assert (crawls["site_coverage"] <= omni["site_coverage"] + 0.5).all()
    curves = pd.read_parquet(paths["curves"])
    assert set(curves.columns) >= {
        "strategy",
        "domain",
        "repeat",
        "seq",
        "relevant_so_far",
        "searchable_so_far",
        "on_topic",
        "relevant_critic_so_far",
    }
    for s, g in curves.groupby("strategy"):
        assert g["seq"].tolist() == list(range(1, 151)), s
        assert g["relevant_so_far"].is_monotonic_increasing
        assert g["relevant_so_far"].iloc[-1] == runs.set_index("strategy").loc[s, "relevant"]
        assert 1 - g["on_topic"].mean() == pytest.approx(
            runs.set_index("strategy").loc[s, "loss_rate"]
        )
    for name in ("harvest-airfare", "harvest-grid", "harvest-sites"):
        assert paths[name].read_bytes()[:8] == PNG
    md = paths["report"].read_text()
    assert "| strategy | pages | relevant (truth) |" in md and "| omniscient | 150 |" in md
    assert "## Paper claims vs formhunter" in md and "harvest-grid.png" in md
    assert "## Site coverage" in md and "| airfare | baseline |" in md
    assert not (out / "catalogues").exists()  # catalogues are removed unless kept


def test_site_figures_count_sites_found_entered_and_left() -> None:
    from formhunter.bench.harvest import site_figures

    f = site_figures({"a", "b", "c", "d"}, ["a", "a", "a", "b", "x", "x"], {"a"})
    got = {k: v[0].item() for k, v in f.items()}
    assert got == {"sites_relevant": 1, "form_sites": 4, "form_sites_entered": 2,
                   "form_sites_entered_without": 1, "sites_visited": 3, "pages_per_site": 2.0,
                   "pages_per_form_site": 2.0, "site_coverage": 0.25}  # fmt: skip


def test_seed_sets_differ_by_repeat() -> None:
    web = SimWeb(seed=7, n_sites=40)
    a, b = seed_set(web, "book", 4, 0), seed_set(web, "book", 4, 1)
    assert a == web.seeds("book", 4) and len(b) == 4 and a != b
    assert seed_set(web, "book", 4, 1) == b


def test_bad_flags_are_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["bench", "harvest", "--strategies", "nope", "--out", str(tmp_path)]) == 2
    assert "unknown strategy 'nope'" in capsys.readouterr().err
    assert main(["bench", "harvest", "--domains", "cars", "--out", str(tmp_path)]) == 2
    assert "unknown domain 'cars'" in capsys.readouterr().err
    assert main(["bench"]) == 2


def test_pages_to_reach_uses_each_repeats_own_target() -> None:
    # Two repeats ending at 3 and 4 forms: the mean target 3.5 is reached by neither,
    # each repeat's own target is (at seq 3 and 4).
    from formhunter.bench.report import _pages_to_reach

    rows = []
    for rep, counts in ((0, [0, 1, 3, 3]), (1, [1, 2, 2, 4])):
        rows += [{"strategy": "baseline", "domain": "d", "repeat": rep, "seq": i + 1,
                  "relevant_so_far": c} for i, c in enumerate(counts)]  # fmt: skip
    rows += [{"strategy": "cfc", "domain": "d", "repeat": 0, "seq": i + 1,
              "relevant_so_far": c} for i, c in enumerate([3, 3, 3, 3])]  # fmt: skip
    curves = pd.DataFrame(rows)
    assert _pages_to_reach(curves, "d", "baseline", {0: 3, 1: 4}) == (3.5, 0)
    assert _pages_to_reach(curves, "d", "cfc", {0: 3, 1: 4}) == (1.0, 0)  # repeat 1 not run
    assert _pages_to_reach(curves, "d", "cfc", {0: 4}) == (pytest.approx(float("nan"),
                                                                        nan_ok=True), 1)


@pytest.fixture(scope="module")
def two_webs(tmp_path_factory: pytest.TempPathFactory) -> HarvestResult:
    out = tmp_path_factory.mktemp("webs")
    plan = HarvestPlan(domains=("hotel",), strategies=("baseline",), pages=80, sites=30,
                       seeds_per_domain=4, out=out, cache_dir=out / "cache",
                       concurrency=16, webs=(21, 22))  # fmt: skip
    return run_harvest(plan, progress=False, say=lambda s: None)


def test_several_webs_give_mean_and_sd_over_webs(two_webs: HarvestResult, tmp_path: Path) -> None:
    result = two_webs
    paths = write_harvest(result, tmp_path)
    runs = pd.read_csv(paths["runs"])
    assert sorted(set(runs["web"])) == [21, 22] and set(result.web_totals) == {21, 22}
    for w, g in runs.groupby("web"):
        assert list(g["strategy"]) == ["omniscient", "baseline", "keyword", "random"], w
        kw = g.set_index("strategy")["relevant"]["keyword"]
        for _, r in g.iterrows():
            if kw:
                assert r["ratio_keyword"] == pytest.approx(r["relevant"] / kw)
            total = result.web_totals[int(w)]["hotel"]["relevant_forms"]
            assert r["share_of_web"] == pytest.approx(r["relevant"] / total)
    assert paths["harvest-webs"].read_bytes()[:8] == PNG
    md = paths["report"].read_text()
    assert "## Over webs" in md and "| strategy | relevant (truth) | share of web's" in md
    base = runs[runs["strategy"] == "baseline"]["relevant"]
    assert f"| baseline | {base.mean():.1f} ± {base.std(ddof=1):.1f} |" in md
    # the plots beside the report are linked by name, wherever the report was written
    assert "- [harvest-webs.png](harvest-webs.png)" in md and str(tmp_path) not in md


def test_webs_flag_is_checked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:  # argparse: usage error
        main(["bench", "harvest", "--webs", "11,x", "--out", str(tmp_path)])
    assert exc.value.code == 2 and "not a list of integers" in capsys.readouterr().err


def test_parts_run_apart_merge_into_the_report_of_one_run(two_webs: HarvestResult,
                                                          tmp_path: Path) -> None:  # fmt: skip
    whole = write_harvest(two_webs, tmp_path / "whole")
    parts = []
    for w in (21, 22):  # as if each web had run on its own machine
        plan = replace(two_webs.plan, webs=(w,), out=tmp_path / f"w{w}")
        part = replace(two_webs, plan=plan, runs=[r for r in two_webs.runs if r.web == w],
                       web_totals={w: two_webs.web_totals[w]})  # fmt: skip
        write_harvest(part, plan.out)
        parts.append(str(plan.out))
    assert main(["bench", "harvest", "--merge", *parts, "--out", str(tmp_path / "m")]) == 0
    merged, expected = pd.read_csv(tmp_path / "m" / "runs.csv"), pd.read_csv(whole["runs"])
    pd.testing.assert_frame_equal(merged, expected)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "m" / "curves.parquet"),
                                  pd.read_parquet(whole["curves"]))  # fmt: skip
    tables = (tmp_path / "m" / "report.md").read_text().split("## Over webs")[1]
    assert tables.split("## Plots")[0] == whole["report"].read_text().split("## Over webs")[1] \
        .split("## Plots")[0]  # fmt: skip
    # a run in two parts is the later part's (a strategy re-run after a change)
    rerun = replace(two_webs, plan=replace(two_webs.plan, webs=(21,), strategies=()),
                    runs=[replace(r, metrics={**r.metrics, "relevant": 99})
                          for r in two_webs.runs if r.web == 21 and r.strategy == "keyword"])
    write_harvest(rerun, tmp_path / "rerun")
    assert main(["bench", "harvest", "--merge", *parts, str(tmp_path / "rerun"),
                 "--out", str(tmp_path / "r")]) == 0  # fmt: skip
    again = pd.read_csv(tmp_path / "r" / "runs.csv").set_index(["web", "strategy"])
    assert again.loc[(21, "keyword"), "relevant"] == 99 and len(again) == len(merged)
    base = again.loc[(21, "baseline")]
    assert base["ratio_keyword"] == pytest.approx(base["relevant"] / 99)
    assert "1 runs of earlier parts were replaced" in (tmp_path / "r" / "report.md").read_text()
    # other budgets, a folder that is no report, a damaged run.json: usage errors
    (tmp_path / "broken").mkdir()
    for f in ("runs.csv", "curves.parquet", "seeds.json"):
        shutil.copy(Path(parts[0]) / f, tmp_path / "broken" / f)
    (tmp_path / "broken" / "run.json").write_text('{"plan": {}}')
    for bad in ([parts[0], str(tmp_path)], [str(tmp_path / "broken")]):
        assert main(["bench", "harvest", "--merge", *bad, "--out", str(tmp_path / "x")]) == 2
    other = replace(two_webs, plan=replace(two_webs.plan, pages=90, webs=(22,)),
                    runs=[r for r in two_webs.runs if r.web == 22])  # fmt: skip
    write_harvest(other, tmp_path / "p90")
    assert main(["bench", "harvest", "--merge", parts[0], str(tmp_path / "p90"),
                 "--out", str(tmp_path / "x")]) == 2  # fmt: skip


def test_cfc_fetch_savings_reach_the_report(simweb_small: SimWeb, simweb_proxy: ProxyHandle,
                                            tmp_path: Path) -> None:  # fmt: skip
    seeds = list(simweb_small.seeds("airfare", 5))
    *_, extras = crawl_run("cfc", "airfare", seeds, 120, 0, simweb_proxy.url,
                           tmp_path / "cfc.duckdb", 16)  # fmt: skip
    saved = extras["cfc_savings"]
    assert set(saved) >= {"fetches_saved", "links_scored"} and saved["links_scored"] > 0


def test_an_interrupt_between_crawls_keeps_the_finished_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    import formhunter.bench.harvest as harvest

    real, calls = harvest.judge, []

    def judge_then_stop(*args: object, **kw: object) -> object:
        calls.append(1)
        if len(calls) == 2:  # Ctrl-C while the second crawl is judged
            raise KeyboardInterrupt
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(harvest, "judge", judge_then_stop)
    plan = HarvestPlan(domains=("hotel",), strategies=("baseline",), pages=40, sites=30,
                       seeds_per_domain=3, out=tmp_path, cache_dir=tmp_path / "cache",
                       concurrency=16, webs=(21,))  # fmt: skip
    result = run_harvest(plan, progress=False, say=lambda s: None)
    assert result.interrupted and [r.strategy for r in result.runs] == ["omniscient", "baseline"]
    assert "Interrupted: partial results" in write_harvest(result, tmp_path)["report"].read_text()


def test_a_settings_file_reaches_every_crawl(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:  # fmt: skip
    """``bench harvest --config``: the file's settings under the bench's own fetch
    settings and budget; a wrong key is a usage error before any crawl."""
    from formhunter.bench.harvest import bench_settings

    cfg = tmp_path / "extend.toml"
    cfg.write_text("[stopping]\nextend_pages = 100\n[frontier]\nreserve_by_level = false\n"
                   "[fetch]\nmin_delay = 3.0\n")  # fmt: skip
    s = bench_settings("music", "ache", 500, tmp_path / "c.duckdb", None, 8, 0, config=str(cfg))
    assert s.stopping.extend_pages == 100 and s.frontier.reserve_by_level is False
    assert s.fetch.min_delay == 0.0 and s.crawl.max_pages == 500
    bad = tmp_path / "bad.toml"
    bad.write_text("[stopping]\nextend = 1\n")
    assert main(["bench", "harvest", "--config", str(bad), "--out", str(tmp_path / "r")]) == 2
    assert "extend" in capsys.readouterr().err and not (tmp_path / "r").exists()
