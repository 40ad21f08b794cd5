"""Every numeric flag and setting is finite and in range (issue 29): nan, inf, -1 and
2**70 are usage errors (exit 2) naming the flag or key, before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from formhunter.cli import main

BAD = ["nan", "inf", "-1", str(2**70), "1e400"]


@pytest.mark.parametrize("flag", ["--min-delay", "--max-seconds", "--random-state",
                                  "--max-pages", "--concurrency", "--workers"])  # fmt: skip
@pytest.mark.parametrize("value", BAD)
def test_a_bad_number_flag_is_a_usage_error(
    flag: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://www.example.org/\n")
    db = tmp_path / "c.duckdb"
    with pytest.raises(SystemExit) as exit_:
        main(["crawl", "--domain", "airfare", "--seeds", str(seeds), "--db", str(db),
              flag, value])  # fmt: skip
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert flag in err and "Traceback" not in err, err
    assert not db.exists()


@pytest.mark.parametrize("argv", [["forms", "--db", "x.duckdb", "--run", str(2**70)],
                                  ["judge", "x.html", "--jobs", "-1"],
                                  ["serve", "--db", "x.duckdb", "--port", "nan"],
                                  ["simweb", "seeds", "--domain", "book", "--n", "-5"],
                                  ["train", "domain", "--C", "nan"],
                                  ["rejudge", "--db", "x.duckdb", "--limit", "-1"],
                                  ["probe", "--db", "x.duckdb", "--min-delay", "inf"],
                                  ["train", "context", "--folds", str(2**70)]])  # fmt: skip
def test_other_commands_refuse_bad_numbers(argv: list[str],
                                           capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "out of range" in err or "not a" in err, err


@pytest.mark.parametrize(("key", "value"), [
    ("fetch.min_delay", "nan"), ("fetch.min_delay", "inf"), ("fetch.min_delay", "-0.5"),
    ("fetch.read_timeout", "inf"), ("crawl.max_seconds", "nan"), ("crawl.random_state", "-1"),
    ("crawl.random_state", str(2**70)), ("fetch.concurrency", str(2**40)),
    ("frontier.levels", "1000000000"), ("tres.hidden", f"[{2**40}]"),
    ("fetch.robots_ttl", "1e300"),
])  # fmt: skip
def test_a_bad_number_in_a_settings_file_is_a_usage_error_naming_the_key(
    key: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    section, name = key.split(".")
    cfg = tmp_path / "c.toml"
    cfg.write_text(f"[{section}]\n{name} = {value}\n")
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://www.example.org/\n")
    db = tmp_path / "c.duckdb"
    code = main(["crawl", "--domain", "airfare", "--seeds", str(seeds), "--db", str(db),
                 "--config", str(cfg)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2, err
    assert key in err and "Traceback" not in err, err
    assert not db.exists()
