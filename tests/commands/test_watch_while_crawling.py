"""Watching a crawl (issue 26): ``forms``, ``runs`` and ``serve`` read a catalogue while a
crawl in another process writes it (the snapshot the crawl keeps fresh at its commit
points), and a crawl's ``--ui`` page shows the end state and keeps serving until
SIGTERM or Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from formhunter.catalogue import snapshot_path
from formhunter.simweb.server import ProxyHandle, running_proxy
from formhunter.web.store import FileStore


@pytest.fixture(scope="module")
def proxy() -> Iterator[ProxyHandle]:
    with running_proxy(seed=5, n_sites=40, slow_delay=0.5) as px:
        yield px


def _crawl(proxy: ProxyHandle, tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("\n".join(proxy.web.seeds("airfare", 6)) + "\n")
    cfg = tmp_path / "crawl.toml"
    cfg.write_text("[crawl]\ncommit_every_seconds = 0.3\nsnapshot_every_seconds = 0.3\n"
                   "[fetch]\nmin_delay = 0.3\nconcurrency = 2\nretries = 0\n")  # fmt: skip
    cmd = [sys.executable, "-m", "formhunter.cli", "crawl", "--domain", "airfare", "--seeds",
           str(seeds), "--db", str(tmp_path / "c.duckdb"), "--strategy", "bfs", "--proxy",
           proxy.url, "--config", str(cfg), "--quiet", *extra]  # fmt: skip
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})  # fmt: skip


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "formhunter.cli", *args], capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip


def test_forms_runs_and_serve_read_a_catalogue_a_crawl_writes(proxy: ProxyHandle,
                                                              tmp_path: Path) -> None:  # fmt: skip
    db = tmp_path / "c.duckdb"
    crawl = _crawl(proxy, tmp_path, "--max-pages", "5000", "--max-seconds", "240")
    try:
        t0 = time.monotonic()
        while not snapshot_path(db).exists() and time.monotonic() - t0 < 60:
            time.sleep(0.2)
        assert snapshot_path(db).exists(), crawl.stderr.read() if crawl.poll() else ""
        time.sleep(1.0)  # a few more commit points
        assert crawl.poll() is None  # still crawling: the file is locked
        runs = _cli("runs", "--db", str(db), "--format", "json")
        assert runs.returncode == 0, runs.stderr
        assert "a crawl is writing" in runs.stderr and "snapshot" in runs.stderr
        run = json.loads(runs.stdout)
        rows = run if isinstance(run, list) else run.get("runs", run)
        assert rows and rows[0]["status"] == "running" and rows[0]["pages"] > 0
        forms = _cli("forms", "--db", str(db), "--format", "csv")
        assert forms.returncode == 0, forms.stderr
        store = FileStore(db)
        assert store.snapshot
        with store.read() as con:
            assert con.execute("SELECT count(*) FROM pages").fetchall()[0][0] > 0
            assert con.execute("SELECT count(*) FROM frontier").fetchall()[0][0] == 0
        with pytest.raises(Exception, match="snapshot, read-only"), store.write():
            pass
    finally:
        crawl.send_signal(signal.SIGINT)
        crawl.communicate(timeout=60)
    assert crawl.returncode == 130
    # the crawl ended: its snapshot is gone only when it ends normally; the file reads again
    store = FileStore(db)
    assert not store.snapshot
    with store.read() as con:
        assert con.execute("SELECT status FROM runs").fetchall()[0][0] == "interrupted"


def test_the_ui_page_shows_the_end_and_keeps_serving(proxy: ProxyHandle,
                                                    tmp_path: Path) -> None:  # fmt: skip
    crawl = _crawl(proxy, tmp_path, "--max-pages", "15", "--ui", "0")
    try:
        assert crawl.stderr is not None and crawl.stdout is not None
        line = crawl.stderr.readline()
        assert "web page of this crawl: http://127.0.0.1:" in line, line
        base = line.split(": ", 1)[1].strip().split("/?")[0]
        ended = ""
        t0 = time.monotonic()
        while "has ended" not in ended and time.monotonic() - t0 < 120:
            ended = crawl.stderr.readline()
        assert "stays at" in ended and "until Ctrl-C" in ended, ended
        time.sleep(0.5)
        assert crawl.poll() is None  # still serving
        with urllib.request.urlopen(base + "/api/runs/1", timeout=10) as resp:
            data = json.load(resp)
        assert data["run"]["status"] == "finished" and data["run"]["end_reason"] == "budget"
        assert data["live"]["state"] == "ended"
    finally:
        crawl.send_signal(signal.SIGTERM)
        out, _ = crawl.communicate(timeout=60)
    assert crawl.returncode == 0
    assert "run 1 finished (budget)" in out
    assert not snapshot_path(tmp_path / "c.duckdb").exists()  # removed at the end
