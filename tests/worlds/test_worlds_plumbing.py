"""Worlds behind the benchmark and the CLI: --world, stats, truth export, --merge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from formhunter.bench.harvest import HarvestPlan, HarvestResult, merge_harvests
from formhunter.cli import main
from formhunter.exceptions import UsageError


def test_stats_truth_and_seeds_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simweb", "stats", "--world", "bazaar", "--seed", "2", "--sites", "12",
                 "--format", "json"]) == 0  # fmt: skip
    st = json.loads(capsys.readouterr().out)
    assert st["world"] == "bazaar" and st["sites"] >= 12 and st["pages"] > 1000
    assert set(st["domains"]) == {"airfare", "auto", "book", "hotel", "job", "movie", "music",
                                  "rental"}  # fmt: skip
    assert main(["simweb", "truth", "--world", "bazaar", "--seed", "2", "--sites", "12",
                 "--out", str(tmp_path), "--format", "jsonl"]) == 0  # fmt: skip
    counts = json.loads(capsys.readouterr().out)
    assert counts["pages"] == st["pages"]
    first = json.loads((tmp_path / "forms.jsonl").read_text().splitlines()[0])
    assert {"signature", "relevant_domains", "js_only", "answers_queries"} <= set(first)
    assert main(["simweb", "seeds", "--world", "bazaar", "--seed", "2", "--sites", "12",
                 "--domain", "book", "--n", "3"]) == 0  # fmt: skip
    assert capsys.readouterr().out.strip()
    with pytest.raises(SystemExit):
        main(["simweb", "seeds", "--world", "nowhere", "--domain", "book"])


def test_merge_refuses_parts_of_different_worlds(tmp_path: Path) -> None:
    a = HarvestResult(HarvestPlan(out=tmp_path / "a"), [], {}, {})
    b = HarvestResult(HarvestPlan(out=tmp_path / "b", world="bazaar"), [], {}, {})
    with pytest.raises(UsageError, match="world"):
        merge_harvests([a, b], tmp_path / "m")
    assert merge_harvests([b, b], tmp_path / "m").plan.world == "bazaar"
