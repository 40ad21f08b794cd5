"""Input files from anywhere (issue 29): only regular files are read, with a size cap
(a link to /dev/zero, a FIFO, a 200 MB page: a message, never a hang or GBs of memory);
a BOM is fine; a binary forms.jsonl is a message; dropped labelled records are named."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from classifiers.datasets import read_jsonl
from classifiers.exceptions import DataError
from formhunter.cli import main
from formhunter.commands.crawl import read_seeds
from formhunter.config import load_settings
from formhunter.exceptions import ConfigError
from formhunter.trainers.packs import load_pack_forms

FORM = '<form action="/s"><input name="q"><input type="submit" value="Search"></form>'


def _specials(tmp_path: Path, name: str) -> list[Path]:
    zero = tmp_path / f"zero-{name}"
    zero.symlink_to("/dev/zero")
    fifo = tmp_path / f"fifo-{name}"
    os.mkfifo(fifo)
    return [zero, fifo]


def test_judge_refuses_devices_and_fifos_without_hanging(tmp_path: Path) -> None:
    zero, fifo = _specials(tmp_path, "page.html")
    ok = tmp_path / "ok.html"
    ok.write_text(f"<html><body>{FORM}</body></html>")
    proc = subprocess.run([sys.executable, "-m", "formhunter.cli", "judge", str(zero), str(fifo),
                           str(ok), "--critic", "heuristic", "--jobs", "1"],
                          capture_output=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 1, proc.stderr.decode()[-2000:]
    rows = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    errors = {Path(r["file"]).name: r["error"] for r in rows if "error" in r}
    assert "character device" in errors[zero.name] and "FIFO" in errors[fifo.name], errors
    assert any(r["file"] == str(ok) and "searchable" in r for r in rows), rows
    assert b"Traceback" not in proc.stderr


def test_judge_caps_a_huge_page_without_reading_it(tmp_path: Path) -> None:
    big = tmp_path / "big.html"
    with big.open("wb") as fh:  # 200 MB, sparse: costs no disk
        fh.write(f"<html><body>{FORM}".encode())
        fh.truncate(200 << 20)
    # VmHWM: this process's peak RSS since exec; ru_maxrss would also count the pages the
    # child shared with the parent (a large pytest process) between fork and exec
    code = (
        "import re, sys\n"
        "from formhunter.cli import main\n"
        "rc = main(sys.argv[1:])\n"
        "status = open('/proc/self/status').read()\n"
        "print(re.search(r'VmHWM:\\s+(\\d+) kB', status).group(1), file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, "judge", str(big), "--critic",
                           "heuristic"], capture_output=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 1
    row = json.loads(proc.stdout.decode().splitlines()[0])
    assert "more than the" in row["error"], row
    max_rss_kb = int(proc.stderr.decode().strip().splitlines()[-1])
    assert max_rss_kb < 600_000, max_rss_kb  # not the 4.7 GB of reading it whole


def test_seeds_with_a_bom_and_special_seed_files(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds.txt"
    seeds.write_bytes("\ufeffhttp://www.example.org/\r\nhttps://b.example/\r\n".encode())
    assert read_seeds(str(seeds)) == ["http://www.example.org/", "https://b.example/"]
    for special in _specials(tmp_path, "seeds.txt"):
        with pytest.raises(DataError, match="not a regular file"):
            read_seeds(str(special))


def test_settings_files_with_a_bom_and_special_settings_files(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_bytes("\ufeff[crawl]\nmax_pages = 7\n".encode())
    assert load_settings(cfg).crawl.max_pages == 7
    for special in _specials(tmp_path, "c.toml"):
        with pytest.raises(ConfigError, match="not a regular file"):
            load_settings(special)


def test_a_binary_forms_jsonl_is_a_message(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    pack = tmp_path / "domains" / "boats"
    pack.mkdir(parents=True)
    (pack / "pack.toml").write_text('name = "boats"\ndescription = "boats"\n'
                                    'keywords = ["boat"]\n')  # fmt: skip
    (pack / "forms.jsonl").write_bytes(bytes(range(256)) * 40)
    with pytest.raises(DataError, match="not UTF-8 text"):
        read_jsonl(pack / "forms.jsonl")
    code = main(["train", "domain", "--domain", "boats", "--domains-dir",
                 str(tmp_path / "domains"), "--models", str(tmp_path / "m")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "not UTF-8 text" in err and "Traceback" not in err, err


def test_dropped_records_are_counted_and_named(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "domains"
    pack = root / "boats"
    pack.mkdir(parents=True)
    (pack / "pack.toml").write_text('name = "boats"\ndescription = "boats"\n'
                                    'keywords = ["boat"]\n')  # fmt: skip
    recs = [{"url": "http://a.example/", "html": FORM}, {"url": "http://b.example/"},
            {"url": "http://c.example/", "html": 5}, {"url": "http://d.example/", "html": "<p>x"},
            {"url": "http://e.example/", "html": ["<form>"]}]  # fmt: skip
    (pack / "forms.jsonl").write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    with caplog.at_level(logging.WARNING):
        forms = load_pack_forms(["boats"], root)
    assert len(forms) == 1
    msg = " ".join(r.getMessage() for r in caplog.records)
    assert "4 labelled record(s) dropped" in msg, msg
    for part in ("#2 (no html)", "#3 (html is int, not text)", "#4 (no <form>",
                 "#5 (html is list, not text)"):  # fmt: skip
        assert part in msg, msg
