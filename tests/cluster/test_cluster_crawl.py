"""The crawl on a real local Ray cluster (2 CPUs, loopback), one cluster for the module:
the simulated web through the proxy, the catalogue checked for budget, numbering and
duplicates; a shard killed mid-crawl; --resume; the CLI flags."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from formhunter.catalogue import Catalogue
from formhunter.cli import main
from formhunter.config import Settings, load_settings, settings_from_dict
from formhunter.simweb import ProxyHandle
from formhunter.stats import CrawlResult

ray = pytest.importorskip("ray")

from formhunter.cluster.driver import ClusterCrawl, start_ray, stop_ray  # noqa: E402

DOMAIN = "hotel"


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """One local Ray cluster of 2 CPUs for the module (ray.init takes seconds)."""
    started = start_ray(2, None)
    yield
    if started:
        stop_ray()


def _settings(proxy: ProxyHandle, db: Path, **crawl: Any) -> Settings:
    return load_settings(None, {
        "crawl": {"domain": DOMAIN, "max_pages": 100, "db": str(db), **crawl},
        "fetch": {"proxy": proxy.url, "min_delay": 0.0, "concurrency": 16, "retries": 0,
                  "read_timeout": 0.5, "total_timeout": 3.0},
        "learning": {"threshold": 2},
    })  # fmt: skip


def _check_catalogue(db: Path, pages: int) -> dict[str, Any]:
    """The invariants of a run's catalogue; returns a few figures."""
    with Catalogue(db, read_only=True) as cat:
        q = lambda sql: cat.con.execute(sql).fetchall()  # noqa: E731
        n, urls, seqs, lo, hi = q("SELECT count(*), count(DISTINCT url), count(DISTINCT seq),"
                                  " min(seq), max(seq) FROM pages")[0]  # fmt: skip
        assert (n, urls, seqs, lo, hi) == (pages, pages, pages, 1, pages)
        f, keys, ids = q("SELECT count(*), count(DISTINCT (site, signature)),"
                         " count(DISTINCT form_id) FROM forms")[0]  # fmt: skip
        assert f == keys == ids
        assert q("SELECT count(*) FROM forms WHERE found_after_pages <> seq OR seq > "
                 f"{pages} OR page_url NOT IN (SELECT url FROM pages)")[0][0] == 0
        assert q("SELECT count(*) FROM form_fields WHERE form_id NOT IN "
                 "(SELECT form_id FROM forms)")[0][0] == 0
        rows, lids, furls = q("SELECT count(*), count(DISTINCT lid), count(DISTINCT url)"
                              " FROM frontier")[0]  # fmt: skip
        assert rows == lids == furls
        assert q(f"SELECT count(*) FROM frontier WHERE added_at_page NOT BETWEEN 0 AND {pages}"
                 )[0][0] == 0  # fmt: skip
        # every page's link is marked done in the same commit as the page
        assert q("SELECT count(*) FROM frontier WHERE state IN ('fetched', 'failed') AND url IN "
                 "(SELECT url FROM pages)")[0][0] == pages
        run = q("SELECT status, pages_fetched, forms FROM runs ORDER BY run_id DESC LIMIT 1")[0]
        assert run[0] == "finished" and run[1] == pages and run[2] == f
        return {"forms": f, "frontier": rows}


def test_cluster_crawl_fills_the_catalogue_like_one_process(
        cluster: None, simweb_proxy: ProxyHandle, tmp_path: Path) -> None:  # fmt: skip
    db = tmp_path / "c.duckdb"
    crawl = ClusterCrawl(_settings(simweb_proxy, db, strategy="ache"), workers=2,
                         seeds=simweb_proxy.web.seeds(DOMAIN, 5))  # fmt: skip
    steps: list[int] = []
    crawl.listen(lambda ev, c: steps.append(c.last.shard) if ev == "step" and c.last else None)
    result = crawl.run()
    assert result.reason == "budget" and result.stats.pages == 100
    assert not result.stats.faults, result.stats.faults
    assert set(steps) == {0, 1}  # both shards crawled
    # the reserve works on a cluster too: every link not followed is kept (no URL twice
    # in the frontier, ``_check_catalogue``)
    st = result.stats
    assert st.links_reserved == st.links_not_followed > 0
    figures = _check_catalogue(db, 100)
    assert figures["forms"] == result.stats.forms > 0
    with Catalogue(db, read_only=True) as cat:
        # the learner actor's iterations are in the catalogue, numbered 1, 2, ...
        its = [r[0] for r in cat.con.execute(
            "SELECT iteration FROM learning_iterations ORDER BY iteration").fetchall()]
    assert its == list(range(1, len(its) + 1))
    # issue 26: the run records its models as a one-process crawl of the same settings
    # does (``rejudge`` reproduces verdicts from them)
    import asyncio

    from formhunter.engine import Engine

    one = tmp_path / "one.duckdb"
    with Catalogue(one) as cat:
        asyncio.run(Engine(_settings(simweb_proxy, one, strategy="ache", max_pages=5), cat,
                           seeds=simweb_proxy.web.seeds(DOMAIN, 5)).run())  # fmt: skip
    models = []
    for path in (db, one):
        with Catalogue(path, read_only=True) as cat:
            models.append(json.loads(cat.con.execute("SELECT models FROM runs").fetchall()[0][0]))
    assert models[0] == models[1] and models[0].get("critic"), models


def test_a_shard_killed_mid_crawl_is_restarted_and_nothing_is_duplicated(
        cluster: None, simweb_proxy: ProxyHandle, tmp_path: Path) -> None:  # fmt: skip
    db = tmp_path / "k.duckdb"
    crawl = ClusterCrawl(_settings(simweb_proxy, db, strategy="bfs"), workers=2,
                         seeds=simweb_proxy.web.seeds(DOMAIN, 5))  # fmt: skip
    killed: list[int] = []

    def kill(event: str, c: ClusterCrawl) -> None:
        if event == "step" and not killed and c.stats.pages >= 20:
            ray.kill(c.shards[0], no_restart=False)  # Ray restarts it
            killed.append(c.stats.pages)

    crawl.listen(kill)
    result: CrawlResult = crawl.run()
    assert killed and crawl.restarts == 1  # one death, however long the restart takes
    assert result.reason == "budget" and result.stats.pages == 100
    _check_catalogue(db, 100)


def test_cli_crawl_with_workers_and_resume(cluster: None, simweb_proxy: ProxyHandle,
                                           tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("\n".join(simweb_proxy.web.seeds(DOMAIN, 5)) + "\n")
    db = tmp_path / "cli.duckdb"
    code = main(["crawl", "--domain", DOMAIN, "--seeds", str(seeds), "--db", str(db),
                 "--max-pages", "30", "--proxy", simweb_proxy.url, "--workers", "2",
                 "--strategy", "ache", "--quiet"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "run 1 finished (budget)" in out
    _check_catalogue(db, 30)
    # --resume continues the same run on the cluster, to the new budget
    code = main(["crawl", "--resume", "--db", str(db), "--max-pages", "70", "--workers", "2",
                 "--quiet"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "run 1 finished (budget)" in out and "pages 70/70" in out
    _check_catalogue(db, 70)
    with Catalogue(db, read_only=True) as cat:
        assert cat.con.execute("SELECT count(*) FROM runs").fetchall()[0][0] == 1
        # the learner actor saved its learners' states with the run's pages (a resume
        # restores them), as one process does
        states = cat.con.execute("SELECT learner, at_page FROM learner_state").fetchall()
    assert states == [("ache-online", 70)]
    assert main(["crawl", "--domain", DOMAIN, "--seeds", str(seeds), "--db", str(db),
                 "--workers", "0"]) == 2  # fmt: skip


@pytest.mark.slow
def test_four_shards_two_kills_then_resume_on_two(
        cluster: None, simweb_proxy: ProxyHandle, tmp_path: Path) -> None:  # fmt: skip
    """Longer: 4 shards on the 2-CPU cluster (half a CPU each), ACHE, two kills, then the
    run resumed on 2 shards (site ownership and lids recomputed from the catalogue)."""
    db = tmp_path / "long.duckdb"
    seeds = simweb_proxy.web.seeds(DOMAIN, 5)
    crawl = ClusterCrawl(_settings(simweb_proxy, db, strategy="ache", max_pages=300),
                         workers=4, seeds=seeds)  # fmt: skip
    kills: list[int] = []

    def kill(event: str, c: ClusterCrawl) -> None:
        if event == "step" and len(kills) < 2 and c.stats.pages >= 80 * (len(kills) + 1):
            ray.kill(c.shards[len(kills)], no_restart=False)
            kills.append(c.stats.pages)

    crawl.listen(kill)
    first = crawl.run()
    assert len(kills) == 2 and crawl.restarts == 2 and first.stats.pages == 300
    _check_catalogue(db, 300)
    again = ClusterCrawl(_settings(simweb_proxy, db, strategy="ache", max_pages=400),
                         workers=2, resume=True).run()  # fmt: skip
    assert again.run_id == first.run_id
    # ACHE follows on-topic pages only: on a loaded machine (timeouts) this small web can
    # run dry first; "exhausted" must then mean that no queued link is left anywhere
    pages = again.stats.pages
    assert pages == 400 or (again.reason == "exhausted" and pages > 300), again.reason
    _check_catalogue(db, pages)
    with Catalogue(db, read_only=True) as cat:
        queued = cat.con.execute("SELECT count(*) FROM frontier WHERE state = 'queued'"
                                 ).fetchall()[0][0]  # fmt: skip
    assert again.reason == "budget" or queued == 0


def test_nothing_imports_ray_without_the_flags() -> None:
    code = ("import sys, formhunter.cli, formhunter.commands.crawl, formhunter.cluster, "
            "formhunter.engine; sys.exit('ray' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def _listeners_of_cluster(tmpdir: str) -> list[tuple[str, str]]:
    """(address:port, process) of every TCP listener and UDP socket of this process, its
    children and
    the cluster's daemons (their command lines name its temporary directory)."""
    import os

    def ppid(pid: int) -> int:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                return int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return 0

    every = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    tree = {os.getpid()}
    for pid in every:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if tmpdir.encode() in fh.read():
                    tree.add(pid)
        except OSError:
            pass
    grown = True
    while grown:
        new = {pid for pid in every if pid not in tree and ppid(pid) in tree}
        tree |= new
        grown = bool(new)
    rows = []
    for kind in ("-ltnpH", "-lunpH"):  # TCP listeners, then UDP sockets
        out = subprocess.run(["ss", kind], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if any(f"pid={pid}," in line for pid in tree):
                cols = line.split()
                rows.append((cols[3], cols[-1]))
    return rows


def test_a_local_cluster_listens_on_loopback_only_and_needs_its_token(cluster: None) -> None:
    """Issue 29: every listener of a local cluster's processes (GCS, raylet, object
    manager, the workers, the driver's core worker, the runtime-env agent) is on
    127.0.0.1, there is no dashboard, and a caller without this crawl's token is
    refused even on loopback (Ray token authentication)."""
    import os
    import shutil

    from formhunter.cluster import local

    if not shutil.which("ss"):
        pytest.skip("needs ss (iproute2)")

    @ray.remote
    class Probe:
        def ping(self) -> int:
            return os.getpid()

    probe = Probe.remote()  # type: ignore[attr-defined]
    ray.get(probe.ping.remote())
    rows = _listeners_of_cluster(local._TEMP_DIRS[-1])
    procs = " ".join(proc for _, proc in rows)
    assert all(name in procs for name in ("gcs_server", "raylet", "ray::RuntimeEnv")), rows
    assert not any(":8265" in addr or "dashboard" in proc.lower() for addr, proc in rows), rows
    for addr, proc in rows:
        assert addr.rsplit(":", 1)[0] in ("127.0.0.1", "[::ffff:127.0.0.1]"), (addr, proc)
    assert ray.util.get_node_ip_address() == "127.0.0.1"
    assert os.environ.get("RAY_AUTH_MODE") == "token"
    gcs = int(next(addr for addr, proc in rows if "gcs_server" in proc).rsplit(":", 1)[1])
    outsider = ("import ray\n"
                "try:\n"
                f"    ray.init(address='127.0.0.1:{gcs}', log_to_driver=False)\n"
                "    print('JOINED')\n"
                "except Exception as exc:\n"
                "    print('refused', type(exc).__name__)\n")  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
    env["HOME"] = str(Path(local._TEMP_DIRS[-1]) / "home")  # no ~/.ray/auth_token there
    proc = subprocess.run([sys.executable, "-c", outsider], capture_output=True, text=True,
                          env=env, timeout=120, check=False)  # fmt: skip
    assert "refused" in proc.stdout and "JOINED" not in proc.stdout, proc.stdout + proc.stderr
    ray.kill(probe)


def test_a_cluster_resume_queues_the_stored_seeds_again(
        cluster: None, simweb_proxy: ProxyHandle, tmp_path: Path) -> None:  # fmt: skip
    """Issue 29: a cluster crawl stopped before its first step commit left no frontier
    row; its --resume queues the stored seeds again, as one process does (it used to
    end at once, exhausted, with 0 pages)."""
    db = tmp_path / "s.duckdb"
    first = ClusterCrawl(_settings(simweb_proxy, db, strategy="bfs", max_pages=40), workers=2,
                         seeds=simweb_proxy.web.seeds(DOMAIN, 5))  # fmt: skip
    first.listen(lambda ev, c: c.stop("interrupted") if ev == "start" else None)
    assert first.run().reason == "interrupted"
    with Catalogue(db, read_only=True) as cat:
        assert cat.con.execute("SELECT count(*) FROM pages").fetchall()[0][0] == 0
        assert cat.con.execute("SELECT count(*) FROM frontier").fetchall()[0][0] == 0
        run = cat.run()
        assert run is not None and len(run.seeds) == 5
    again = ClusterCrawl(_settings(simweb_proxy, db, strategy="bfs", max_pages=40), workers=2,
                         resume=True)  # fmt: skip
    result = again.run()
    assert result.reason == "budget" and result.stats.pages == 40, result.reason
    _check_catalogue(db, 40)


def test_a_signal_outside_the_cluster_loop_marks_the_run_interrupted(
        cluster: None, simweb_proxy: ProxyHandle, tmp_path: Path) -> None:  # fmt: skip
    """Issue 29 (found by scripts/kill_soak.py --workers 2: SIGINT to a resuming driver,
    exit 130, run left 'running'): a stop signal while the run is open but the loop has
    not begun (the CLI turns it into KeyboardInterrupt) marks the run interrupted, and
    --resume finishes it."""
    db = tmp_path / "k.duckdb"
    first = ClusterCrawl(_settings(simweb_proxy, db, strategy="bfs", max_pages=40), workers=2,
                         seeds=simweb_proxy.web.seeds(DOMAIN, 5))  # fmt: skip

    def interrupt(event: str, crawl: ClusterCrawl) -> None:
        if event == "start":
            raise KeyboardInterrupt

    first.listen(interrupt)
    with pytest.raises(KeyboardInterrupt):
        first.run()
    with Catalogue(db, read_only=True) as cat:
        run = cat.run()
        assert run is not None and run.status == "interrupted", run
    again = ClusterCrawl(_settings(simweb_proxy, db, strategy="bfs", max_pages=40), workers=2,
                         resume=True)  # fmt: skip
    assert again.run().stats.pages == 40
    _check_catalogue(db, 40)


@pytest.mark.parametrize("actor", ["writer", pytest.param("learner", marks=pytest.mark.slow)])
def test_a_dead_writer_or_learner_is_a_one_line_error_and_resume_works(
        cluster: None, simweb_proxy: ProxyHandle, tmp_path: Path, actor: str) -> None:  # fmt: skip
    """Issue 29: a killed writer or learner actor ends the crawl with one line (a
    ClusterError, exit 1 on the command line), the run interrupted, and --resume
    finishes it with nothing lost or duplicated."""
    from formhunter.exceptions import ClusterError

    db = tmp_path / f"{actor}.duckdb"
    crawl = ClusterCrawl(_settings(simweb_proxy, db, strategy="ache"), workers=2,
                         seeds=simweb_proxy.web.seeds(DOMAIN, 5))  # fmt: skip
    killed: list[int] = []

    def kill(event: str, c: ClusterCrawl) -> None:
        if event == "step" and not killed and c.stats.pages >= 20:
            names = [a["name"] for a in ray.util.list_named_actors(all_namespaces=False)
                     if isinstance(a, dict)] or ray.util.list_named_actors()  # fmt: skip
            name = next(n for n in names if str(n).endswith(f"-{actor}"))
            ray.kill(ray.get_actor(name), no_restart=True)
            killed.append(c.stats.pages)

    crawl.listen(kill)
    with pytest.raises(ClusterError) as err:
        crawl.run()
    assert killed
    message = str(err.value)
    assert "\n" not in message and "--resume" in message, message
    with Catalogue(db, read_only=True) as cat:
        run = cat.run()
        assert run is not None and run.status in ("interrupted", "running")
    again = ClusterCrawl(_settings(simweb_proxy, db, strategy="ache"), workers=2, resume=True)
    result = again.run()
    assert result.reason == "budget" and result.stats.pages == 100
    _check_catalogue(db, 100)


def _get(url: str) -> tuple[int, str]:
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, no proxy
    with opener.open(url, timeout=10) as resp:
        return resp.status, resp.read().decode("utf-8")


def test_cli_workers_ui_serves_the_crawl_live_and_its_end(
        simweb_proxy: ProxyHandle, tmp_path: Path) -> None:  # fmt: skip
    """Issue 27: `crawl --workers 2 --ui PORT` (its own local Ray cluster, a separate
    process as a user runs it): the driver serves the web page; real HTTP requests
    during the crawl see it progress (live counters from the step reports, the run
    and its forms from the writer's snapshot), and after its end the final state
    (the file itself, labels allowed) until SIGINT ends the command."""
    import os
    import re
    import signal
    import threading
    import time

    seeds = tmp_path / "seeds.txt"
    seeds.write_text("\n".join(simweb_proxy.web.seeds(DOMAIN, 5)) + "\n")
    config = tmp_path / "c.toml"
    config.write_text("[crawl]\nsnapshot_every_seconds = 0.5\n[learning]\nthreshold = 2\n")
    db = tmp_path / "ui.duckdb"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "formhunter.cli", "crawl", "--domain", DOMAIN, "--seeds",
         str(seeds), "--db", str(db), "--max-pages", "150", "--proxy", simweb_proxy.url,
         "--workers", "2", "--ui", "0", "--strategy", "ache", "--min-delay", "0.2",
         "--config", str(config)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(iter(proc.stderr.readline, "")),
                              daemon=True)  # type: ignore[union-attr]  # fmt: skip
    reader.start()
    try:
        deadline = time.monotonic() + 900  # Ray and the actors start slowly on a loaded machine
        url = ""
        while not url and time.monotonic() < deadline and proc.poll() is None:
            found = [m.group(0) for line in list(err)
                     for m in [re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)] if m]
            url = found[0] if found else ""
            time.sleep(0.1)
        assert url, "".join(err)
        base = url.split("/?", 1)[0]
        seen: list[dict[str, Any]] = []  # /api/live while the crawl runs
        runs_while_running: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            live = json.loads(_get(f"{base}/api/live")[1])
            if live.get("state") == "ended":
                break
            if live.get("state") == "running" and live["pages"] > 0:
                seen.append(live)
                if not runs_while_running and live["pages"] >= 20:
                    status, html = _get(f"{base}/runs/{live['run_id']}")
                    assert status == 200 and "svg" in html.lower()
                    runs_while_running.append(json.loads(_get(f"{base}/api/runs")[1]))
            time.sleep(0.2)
        assert len(seen) >= 2, seen
        pages = [s["pages"] for s in seen]
        assert pages == sorted(pages) and pages[-1] > pages[0] > 0  # it progressed
        assert len(seen[-1]["curve"]) >= 2
        # the snapshot shows the run while it runs
        assert runs_while_running and runs_while_running[0]["runs"][0]["status"] == "running"
        # the end: the live figures and (the file again, or the final snapshot) the run row
        live = json.loads(_get(f"{base}/api/live")[1])
        assert live["state"] == "ended" and live["pages"] == 150, live
        for _ in range(100):  # the writer releases the file just after the end event
            run = json.loads(_get(f"{base}/api/runs")[1])["runs"][0]
            if run["status"] == "finished" and any("stays at" in ln for ln in err):
                break
            time.sleep(0.2)
        assert run["status"] == "finished" and run["pages"] == 150, run
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, out + "".join(err)
        assert "run 1 finished (budget)" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_cluster_extends_sites_when_every_shard_is_dry_and_ends_on_a_time_limit(
        cluster: None, simweb_proxy: ProxyHandle, tmp_path: Path) -> None:  # fmt: skip
    """Issue 27: the dry rules act on a cluster as in one process. Following on-topic
    pages only, with 4 pages per site, the 40-site web runs dry well before the budget:
    every shard dry, the driver's refill round extends the sites the page limit closed
    (4 more pages each) and opens the reserve, and the crawl goes on past 4 pages per
    site. Without extension or reserve it ends "site-limits"; a time limit ends a
    cluster run with "time-limit"."""
    db = tmp_path / "x.duckdb"
    base = _settings(simweb_proxy, db, strategy="baseline", max_pages=400).to_dict()
    base["stopping"] |= {"max_pages_per_site": 4, "extend_pages": 4, "exhausted_pages": 0}
    settings = settings_from_dict(base)
    crawl = ClusterCrawl(settings, workers=2, seeds=simweb_proxy.web.seeds(DOMAIN, 5))
    result = crawl.run()
    st = result.stats
    assert st.sites_extended >= 1 and st.reserve_opened >= 1, (result.reason, st.to_dict())
    with Catalogue(db, read_only=True) as cat:
        most = cat.con.execute("SELECT max(n) FROM (SELECT count(*) AS n FROM pages"
                               " GROUP BY site)").fetchall()[0][0]  # fmt: skip
    assert most > 4
    _check_catalogue(db, st.pages)
    # without extension or reserve, the same crawl ends when every shard is dry and the
    # refill round queues nothing: "site-limits" (links were left the site rules closed)
    base["crawl"]["db"] = str(tmp_path / "s.duckdb")
    base["stopping"]["extend_pages"] = 0
    base["frontier"]["reserve"] = False
    closed = ClusterCrawl(settings_from_dict(base), workers=2,
                          seeds=simweb_proxy.web.seeds(DOMAIN, 5)).run()  # fmt: skip
    assert closed.reason == "site-limits" and closed.stats.pages < 400, closed.reason
    assert closed.stats.sites_extended == closed.stats.reserve_opened == 0
    db2 = tmp_path / "t.duckdb"
    timed = ClusterCrawl(_settings(simweb_proxy, db2, strategy="bfs", max_pages=100_000,
                                   max_seconds=1.0), workers=2,
                         seeds=simweb_proxy.web.seeds(DOMAIN, 5)).run()  # fmt: skip
    assert timed.reason == "time-limit" and 0 < timed.stats.pages < 100_000
    _check_catalogue(db2, timed.stats.pages)
