"""Damaged catalogues are refused at open, with a clear message, and never written
(issue 18, item 9): truncated, zeroed, garbage-appended, a block overwritten, and
files of other formats, for crawl, crawl --resume, forms, runs and learning."""

from __future__ import annotations

import asyncio
import hashlib
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from formhunter.catalogue import Catalogue
from formhunter.cli import main
from formhunter.config import load_settings
from formhunter.engine import Engine
from formhunter.exceptions import CatalogueError
from formhunter.simweb.server import ProxyHandle, running_proxy

HEADER = 3 * 4096


@pytest.fixture(scope="module")
def proxy() -> Iterator[ProxyHandle]:
    with running_proxy(seed=11, n_sites=20) as px:
        yield px


@pytest.fixture(scope="module")
def good(proxy: ProxyHandle, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real catalogue of a small ache crawl (several blocks: pages, forms, frontier)."""
    db = tmp_path_factory.mktemp("good") / "good.duckdb"
    settings = load_settings(None, {
        "crawl": {"domain": "airfare", "strategy": "ache", "max_pages": 250, "db": str(db)},
        "fetch": {"proxy": proxy.url, "min_delay": 0.0, "retries": 0},
        "learning": {"threshold": 5},
    })  # fmt: skip
    cat = Catalogue(db)
    asyncio.run(Engine(settings, cat, seeds=proxy.web.seeds("airfare", 4)).run())
    cat.close()
    return db


def block_size(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute("PRAGMA database_size").fetchone()
    assert row is not None
    return int(row[2])


def damage(good: Path, kind: str, out: Path) -> Path:
    data = good.read_bytes()
    bs = block_size(good)
    n_blocks = (len(data) - HEADER) // bs
    assert n_blocks >= 3, n_blocks
    rng = random.Random(kind)
    if kind == "truncated-half":
        data = data[: len(data) // 2]
    elif kind == "truncated-last-block":
        data = data[: len(data) - 4096]
    elif kind == "truncated-header":
        data = data[:5000]
    elif kind == "zeroed":
        data = bytes(len(data))
    elif kind == "zeroed-header":
        data = bytes(HEADER) + data[HEADER:]
    elif kind == "zeroed-last-block":
        data = data[: len(data) - bs] + bytes(bs)
    elif kind == "garbage-appended":
        data += rng.randbytes(300_000)
    elif kind == "garbage-block":
        at = HEADER + bs * (n_blocks - 1)
        data = data[:at] + rng.randbytes(bs) + data[at + bs :]
    elif kind == "header-random-128":  # issue 29: it blamed "another process"
        data = data[:4096] + rng.randbytes(128) + data[4096 + 128:]
    elif kind == "text":
        data = b"run_id,url\n1,http://example.org/\n" * 500
    elif kind == "gzip":
        data = b"\x1f\x8b\x08\x00" + rng.randbytes(5000)
    elif kind == "sqlite":
        import sqlite3

        con = sqlite3.connect(out)
        con.execute("CREATE TABLE runs(run_id INTEGER)")
        con.commit()
        con.close()
        return out
    else:
        raise ValueError(kind)
    out.write_bytes(data)
    return out


KINDS = ["truncated-half", "truncated-last-block", "truncated-header", "zeroed",
         "zeroed-header", "zeroed-last-block", "garbage-appended", "garbage-block", "text",
         "gzip", "sqlite", "header-random-128"]  # fmt: skip
COMMANDS = {
    "forms": lambda db, seeds: ["forms", "--db", db],
    "runs": lambda db, seeds: ["runs", "--db", db],
    "learning": lambda db, seeds: ["learning", "--db", db],
    "rejudge": lambda db, seeds: ["rejudge", "--db", db],
    "crawl": lambda db, seeds: ["crawl", "--domain", "airfare", "--seeds", seeds, "--db", db,
                                "--max-pages", "5", "--quiet"],
    "resume": lambda db, seeds: ["crawl", "--resume", "--db", db, "--quiet"],
    "probe": lambda db, seeds: ["probe", "--db", db],
}  # fmt: skip


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_catalogue_is_refused_and_left_alone(
    kind: str, good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = damage(good, kind, tmp_path / f"{kind}.duckdb")
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://www.example.org/\n")
    before = digest(db)
    for name, argv in COMMANDS.items():
        code = main(argv(str(db), str(seeds)))
        captured = capsys.readouterr()
        err = captured.err
        assert code == 1, (kind, name, code, err)
        assert "Traceback" not in err + captured.out, (kind, name)
        assert str(db) in err and ("is damaged" in err or "not a formhunter catalogue" in err), (
            kind, name, err,
        )  # fmt: skip
        assert "use another --db" in err
        assert digest(db) == before, f"{kind}: {name} wrote into the file"
        assert not Path(str(db) + ".wal").exists()


def test_messages_say_what_is_wrong(good: Path, tmp_path: Path) -> None:
    expect = {
        "truncated-half": "truncated", "garbage-appended": "bytes follow the end",
        "garbage-block": "checksum", "zeroed-last-block": "checksum",
        "zeroed": "all zero bytes", "sqlite": "a SQLite database", "gzip": "gzip data",
        "text": "not a DuckDB database", "header-random-128": "is damaged",
    }  # fmt: skip
    for kind, words in expect.items():
        db = damage(good, kind, tmp_path / f"{kind}.duckdb")
        with pytest.raises(CatalogueError, match=words):
            Catalogue(db, read_only=True)


def test_intact_catalogue_and_whole_blocks_after_its_end_are_accepted(
    good: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy.duckdb"
    shutil.copy(good, copy)
    with Catalogue(copy, read_only=True) as cat:
        assert cat.run() is not None
    # a kill during a checkpoint can leave whole blocks DuckDB wrote after the header's end
    with copy.open("ab") as fh:
        fh.write(bytes(block_size(good)))
    with Catalogue(copy, read_only=True) as cat:
        n = cat.con.execute("SELECT count(*) FROM pages").fetchone()
        assert n is not None and n[0] > 0
