"""``crawl --warc DIR`` (issue 26): WARC/1.1 request/response records, gzip per record,
rotating files; a crawl killed inside a commit and resumed writes every fetched page
exactly once, and warcio reads the files; ``judge`` reads pages back from them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from formhunter.catalogue import Catalogue
from formhunter.simweb.server import ProxyHandle, running_proxy
from formhunter.warc import WarcSink, read_pages

MAX_PAGES = 90


@pytest.fixture(scope="module")
def proxy() -> Iterator[ProxyHandle]:
    with running_proxy(seed=5, n_sites=40, slow_delay=0.5) as px:
        yield px


def _run(args: list[str], kill_at: str = "") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    env.pop("FORMHUNTER_KILL_AT", None)
    if kill_at:
        env["FORMHUNTER_KILL_AT"] = kill_at
    return subprocess.run([sys.executable, "-m", "formhunter.cli", *args], env=env,
                          capture_output=True, timeout=240, check=False)  # fmt: skip


def _records(warc_dir: Path) -> tuple[Counter[str], Counter[str], int]:
    """(responses by target URL, record types, warcinfo records) over every file."""
    responses: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for p in sorted(warc_dir.glob("*.warc.gz")):
        with p.open("rb") as fh:
            for rec in ArchiveIterator(fh):
                kinds[rec.rec_type] += 1
                assert rec.rec_headers.protocol == "WARC/1.1"
                if rec.rec_type == "response":
                    url = (rec.rec_headers.get_header("WARC-Refers-To-Target-URI")
                           or rec.rec_headers.get_header("WARC-Target-URI"))  # fmt: skip
                    responses[url] += 1
                    body = rec.content_stream().read()
                    length = rec.http_headers.get_header("Content-Length")
                    assert length is not None and int(length) == len(body)
    return responses, kinds, kinds["warcinfo"]


def test_killed_in_a_commit_and_resumed_every_page_once(proxy: ProxyHandle,
                                                        tmp_path: Path) -> None:  # fmt: skip
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("\n".join(proxy.web.seeds("airfare", 6)) + "\n")
    cfg = tmp_path / "crawl.toml"
    # tiny files: the crawl rotates through several
    cfg.write_text("[crawl]\ncommit_every_pages = 20\n[fetch]\nmin_delay = 0.02\n"
                   "concurrency = 8\nretries = 0\n[warc]\nmax_file_mb = 1\n")  # fmt: skip
    db, warc = tmp_path / "c.duckdb", tmp_path / "warc"
    first = ["crawl", "--domain", "airfare", "--seeds", str(seeds), "--db", str(db),
             "--max-pages", str(MAX_PAGES), "--strategy", "bfs", "--proxy", proxy.url,
             "--config", str(cfg), "--warc", str(warc), "--quiet"]  # fmt: skip
    # killed inside the third commit's transaction: after the records were written
    killed = _run(first, kill_at="commit:3")
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    resumed = _run(["crawl", "--resume", "--db", str(db), "--quiet"])
    assert resumed.returncode == 0, resumed.stderr.decode()[-2000:]
    with Catalogue(db, read_only=True) as cat:
        fetched = Counter(u for (u,) in cat.con.execute(
            "SELECT url FROM pages WHERE status > 0").fetchall())  # fmt: skip
        files = cat.warc_files(1)
    assert sum(fetched.values()) >= MAX_PAGES * 0.8
    responses, kinds, infos = _records(warc)
    assert responses == fetched  # every page fetched exactly once, nothing else
    assert kinds["request"] == kinds["response"]
    assert infos == len(files) == len(list(warc.glob("*.warc.gz")))
    for f in files:
        assert (warc / f.name).stat().st_size == f.size


def test_open_truncates_what_no_commit_owns(tmp_path: Path) -> None:
    class Con:
        def execute(self, sql: str, params: list[object]) -> None:
            pass

    sink = WarcSink(tmp_path, 3, max_bytes=1 << 20, user_agent="ua")
    sink.open([])
    sink.add("http://a.test/", "http://a.test/", 200, {"Content-Type": "text/html"},
             b"<html><form><input name=q></form></html>")
    sink.flush(Con())
    committed = (tmp_path / "formhunter-r3-00001.warc.gz").stat().st_size
    sink.add("http://a.test/x", "", 200, {"Content-Type": "text/html"}, b"<p>x</p>")
    sink.flush(Con())  # written, but (say) the transaction never committed
    (tmp_path / "formhunter-r3-00002.warc.gz").write_bytes(b"junk")
    (tmp_path / "formhunter-r4-00001.warc.gz").write_bytes(b"other run")
    from formhunter.warc import WarcFile

    again = WarcSink(tmp_path, 3, max_bytes=1 << 20, user_agent="ua")
    again.open([WarcFile("formhunter-r3-00001.warc.gz", committed, 3)])
    assert (tmp_path / "formhunter-r3-00001.warc.gz").stat().st_size == committed
    assert not (tmp_path / "formhunter-r3-00002.warc.gz").exists()
    assert (tmp_path / "formhunter-r4-00001.warc.gz").exists()  # not this run's
    pages = list(read_pages(tmp_path / "formhunter-r3-00001.warc.gz", max_bytes=1000))
    assert [p.url for p in pages] == ["http://a.test/"] and b"<form>" in pages[0].body


def test_judge_reads_pages_from_a_warc(tmp_path: Path) -> None:
    class Con:
        def execute(self, sql: str, params: list[object]) -> None:
            pass

    sink = WarcSink(tmp_path, 1, max_bytes=1 << 20, user_agent="ua")
    sink.open([])
    html = (b"<html><head><title>Cheap flights</title></head><body><form action=/search>"
            b"From <input name=from> To <input name=to> Depart <input type=date name=d>"
            b"<input type=submit value='Search flights'></form></body></html>")  # fmt: skip
    sink.add("http://fly.test/", "http://fly.test/", 200,
             {"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "gzip"}, html)
    sink.add("http://fly.test/logo.png", "", 200, {"Content-Type": "image/png"}, b"")
    sink.flush(Con())
    out = subprocess.run([sys.executable, "-m", "formhunter.cli", "judge", str(tmp_path),
                          "--domain", "airfare"],
                         capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [json.loads(ln) for ln in out.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0]["url"] == "http://fly.test/"
    assert lines[0]["searchable"] is True

    (tmp_path / "bad.warc.gz").write_bytes(b"\x1f\x8b not a warc")
    bad = subprocess.run([sys.executable, "-m", "formhunter.cli", "judge",
                          str(tmp_path / "bad.warc.gz")],
                         capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert bad.returncode == 2 and "not a readable WARC file" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_a_cluster_crawl_refuses_warc_before_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from formhunter.cli import main

    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://www.example.test/\n")
    code = main(["crawl", "--domain", "book", "--seeds", str(seeds), "--db",
                 str(tmp_path / "c.duckdb"), "--workers", "2", "--warc", str(tmp_path / "w")])
    assert code == 2 and "--warc" in capsys.readouterr().err
    assert not (tmp_path / "c.duckdb").exists() and not (tmp_path / "w").exists()
