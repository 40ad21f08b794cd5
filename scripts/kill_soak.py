"""Kills at random moments, then --resume, until each run finishes; prints the checks.

    python scripts/kill_soak.py --kills 20 --pages 150              # one process
    python scripts/kill_soak.py --kills 20 --pages 300 --workers 2  # a 2-shard cluster

``formhunter crawl`` (the command line, a simulated web through its proxy on
loopback) is killed after a random delay, then resumed, again and again, until
``--kills`` kills were made; the last resume runs to the end. Then the catalogue is
checked (``tests/kill_helpers.check_catalogue``: pages numbered 1..n with no gap, no
URL, form, path or frontier row twice, the run finished at its budget).

One process: SIGKILL three kills in four, else SIGTERM, SIGINT or SIGHUP (exit 130
expected, -9 for SIGKILL). With ``--workers N`` each kill picks a target among the
driver (SIGKILL of its process group, local Ray cluster included, or a stop signal:
exit 130), a shard actor (SIGKILL: Ray restarts it and the crawl goes on), the
learner or the writer actor (SIGKILL: the crawl ends with a one-line error naming
--resume, exit 1). Every end is followed by ``crawl --resume``. Prints one line per
kill and a summary; exit 1 when an exit code, a message or a catalogue check is not
as expected.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from kill_helpers import check_catalogue

from formhunter.catalogue import Catalogue
from formhunter.exceptions import CatalogueError
from formhunter.simweb.server import running_proxy

#: process titles of the cluster's actors (``ray::<class>``)
ACTORS = {"shard": "ray::ShardActor", "learner": "ray::LearnerActor",
          "writer": "ray::CatalogueWriter"}  # fmt: skip


def _cmd(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "formhunter.cli", *args]


def _descendants(root: int) -> dict[int, str]:
    """pid -> command line of every process below ``root``."""
    parent: dict[int, int] = {}
    cmd: dict[int, str] = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as fh:
                parent[int(p)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{p}/cmdline", "rb") as fh:
                cmd[int(p)] = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
    out: dict[int, str] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        for child, par in parent.items():
            if par == pid and child not in out:
                out[child] = cmd.get(child, "")
                todo.append(child)
    return out


def _actor_pids(driver: int, actor: str) -> list[int]:
    title = ACTORS[actor]
    return [pid for pid, c in _descendants(driver).items() if c.startswith(title)]


def _kill_tree(pid: int, tree: dict[int, str]) -> None:
    """SIGKILL ``pid`` and ``tree``; returns once they are gone (at most 60 s)."""
    pids = [pid, *tree]
    for p in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(p, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.2)


def _end(proc: subprocess.Popen[bytes], late: str, problems: list[str]) -> tuple[int, str]:
    """The driver's exit code and stderr once it ends; after 600 s, ``late`` is a problem
    and its process tree is killed."""
    try:
        code = proc.wait(timeout=600)
    except subprocess.TimeoutExpired:
        problems.append(late)
        _kill_tree(proc.pid, _descendants(proc.pid))
        code = proc.wait()
    return code, proc.stderr.read().decode() if proc.stderr else ""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _state(db: Path) -> tuple[str, int]:
    if not db.exists():  # a kill during start-up may come before the file
        return "no run yet", 0
    for _ in range(300):  # a dying writer may hold the file a moment longer
        try:
            with Catalogue(db, read_only=True) as cat:
                run = cat.run()
                pages = int(cat.con.execute("SELECT count(*) FROM pages").fetchall()[0][0])
            return (run.status if run is not None else "no run yet"), pages
        except CatalogueError:
            time.sleep(0.2)
    raise SystemExit(f"{db} stays locked after the kill")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kills", type=int, default=20)
    p.add_argument("--pages", type=int, default=150)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--strategy", default="ache")
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--max-delay", type=float, default=12.0, help="seconds before a kill")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    problems: list[str] = []
    kinds: dict[str, int] = {}
    with running_proxy(seed=5, n_sites=40, slow_delay=0.2) as proxy, \
            tempfile.TemporaryDirectory() as tmp:  # fmt: skip
        seeds = Path(tmp) / "seeds.txt"
        seeds.write_text("\n".join(proxy.web.seeds("airfare", 6)) + "\n")
        cfg = Path(tmp) / "crawl.toml"
        cfg.write_text("[crawl]\ncommit_every_pages = 20\ncommit_every_seconds = 5.0\n"
                       "[fetch]\nmin_delay = 0.02\nconcurrency = 8\nretries = 0\n"
                       "read_timeout = 1.0\ntotal_timeout = 4.0\n")  # fmt: skip
        db = Path(tmp) / "soak.duckdb"
        cluster = ["--workers", str(args.workers)] if args.workers else []
        first = ["crawl", "--domain", "airfare", "--seeds", str(seeds), "--db", str(db),
                 "--max-pages", str(args.pages), "--strategy", args.strategy, "--proxy",
                 proxy.url, "--config", str(cfg), "--quiet", *cluster]  # fmt: skip
        resume = ["crawl", "--resume", "--db", str(db), "--quiet", *cluster]
        kills, resumes, started = 0, 0, time.monotonic()
        argv_now = first
        proc: subprocess.Popen[bytes] | None = None
        while kills < args.kills:
            if proc is None:
                resumes += argv_now is not first
                proc = subprocess.Popen(_cmd(argv_now), env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
            delay = rng.uniform(0.2, args.max_delay)
            target = "driver"
            if args.workers:
                target = rng.choice(["driver", "shard", "learner", "writer"])
            sig = signal.SIGKILL
            if target == "driver" and rng.random() < 0.25:
                sig = rng.choice([signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
            try:
                code = proc.wait(timeout=delay)
                err = proc.stderr.read().decode() if proc.stderr else ""
                what = f"ended by itself (exit {code}) before the kill"
                if code != 0:
                    problems.append(f"a run ended by itself with exit {code}: {err[-300:]}")
            except subprocess.TimeoutExpired:
                code, err, what = None, "", ""
            if code is None and target != "driver":
                pids = _actor_pids(proc.pid, target)
                deadline = time.monotonic() + 120
                while not pids and proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.5)  # the cluster is starting (or restarting the actor)
                    pids = _actor_pids(proc.pid, target)
                if proc.poll() is not None:  # it ended meanwhile
                    code = proc.returncode
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    what = f"ended by itself (exit {code}) before the kill"
                    if code != 0:
                        problems.append(f"a run ended by itself with exit {code}: {err[-300:]}")
                elif not pids:  # no such actor after 2 minutes: the driver instead
                    target = "driver"
                else:
                    os.kill(rng.choice(pids), signal.SIGKILL)
                    kills += 1
                    kinds[target] = kinds.get(target, 0) + 1
                    what = f"{target} SIGKILL after {delay:.1f}s"
                    if target == "shard":  # Ray restarts it; the crawl goes on
                        print(f"kill {kills:>2}: {what}; the crawl goes on", flush=True)
                        continue
                    code, err = _end(proc, f"{target} killed: the driver did not end in 600 s",
                                     problems)  # fmt: skip
                    what += f" -> exit {code}"
                    lines = [ln for ln in err.splitlines() if ln.strip()]
                    if code == 0:
                        what += " (it had finished)"
                    elif code != 1 or len(lines) != 1 or "--resume" not in lines[0]:
                        problems.append(f"{target} killed: exit {code}, stderr {err[-600:]!r}")
                    else:
                        what += f": {lines[0][:110]}"
            if code is None:  # kill the driver
                tree = _descendants(proc.pid)
                if sig == signal.SIGKILL:
                    _kill_tree(proc.pid, tree)  # its local Ray cluster dies with it
                else:
                    proc.send_signal(sig)
                code, err = _end(proc, f"driver {sig.name}: no end in 600 s", problems)
                _kill_tree(proc.pid, _descendants(proc.pid) | tree)  # Ray daemons left behind
                kills += 1
                name = f"driver {sig.name}" if args.workers else sig.name
                kinds[name] = kinds.get(name, 0) + 1
                what = f"{name} after {delay:.1f}s -> exit {code}"
                expected = -9 if sig == signal.SIGKILL else 130
                if code not in (expected, 0):
                    problems.append(f"{name}: exit {code}, stderr {err[-600:]!r}")
            proc = None
            status, pages = _state(db)
            print(f"kill {kills:>2}: {what}; run {status}, {pages} pages committed",
                  flush=True)  # fmt: skip
            if status == "no run yet":
                argv_now = first
            elif status == "finished":  # it reached the budget between kills: go on
                argv_now = [*resume, "--max-pages", str(pages + args.pages)]
            else:
                argv_now = resume
        if proc is not None:  # the last kill was a shard's: let the run end
            code = proc.wait(timeout=1800)
            if code != 0:
                err = proc.stderr.read().decode() if proc.stderr else ""
                problems.append(f"the run after the last kill: exit {code}: {err[-600:]}")
            status, _ = _state(db)
            argv_now = resume if status != "finished" else []
        if argv_now:
            resumes += argv_now is not first
            final = subprocess.run(_cmd(argv_now), env=env, capture_output=True, check=False)
            print(f"final run: exit {final.returncode}")
            if final.returncode != 0:
                problems.append(f"final run: exit {final.returncode}: "
                                f"{final.stderr.decode()[-2000:]}")  # fmt: skip
        with Catalogue(db, read_only=True) as cat:
            run = cat.run()
            assert run is not None
            budget = run.counters.get("pages", 0)
            max_pages = int(cat.con.execute("SELECT max_pages FROM runs WHERE run_id = ?",
                                            [run.run_id]).fetchall()[0][0])  # fmt: skip
        try:
            figures = check_catalogue(db, max_pages)
        except AssertionError as exc:
            problems.append(f"catalogue check: {exc}")
            figures = {"pages": -1, "forms": -1, "paths": -1}
        where = f"cluster of {args.workers}" if args.workers else "one process"
        print(f"{kills} kills ({where}; {', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))};"
              f" {resumes} resumes; {time.monotonic() - started:.0f}s): {figures['pages']} "
              f"pages, {figures['forms']} forms, {figures['paths']} path hops; numbering "
              f"without gap, no row twice, run finished; budget {max_pages}, counters {budget}")
        for problem in problems:
            print(f"PROBLEM: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
