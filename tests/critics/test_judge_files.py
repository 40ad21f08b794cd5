"""``formhunter judge`` on many pages: the fast path (pages without forms not walked, the
later batches judged in workers forked with the models loaded) gives exactly the
verdicts and page scores of judging each fully parsed page on its own, in order; a
killed worker loses nothing, a killed judge leaves no process behind."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from formhunter.bench.judge import save_pages
from formhunter.critics import files
from formhunter.critics.files import judge_files, make_critic, page_files
from formhunter.parse import parse_page


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Saved simulated-web pages (with and without forms) and one that cannot be parsed."""
    out = tmp_path_factory.mktemp("pages")
    assert save_pages(out, 220, seed=7, sites=60, page_kb=20) == 220
    (out / "0100.html").write_bytes(b"\x00\x01\x02 not markup \x03" * 100)
    return out


@pytest.fixture(scope="module")
def critic() -> Any:
    return make_critic("default", "book")


def _one_by_one(critic: Any, paths: list[Path]) -> list[dict]:
    """The reference: each page parsed fully and judged alone."""
    rows: list[dict] = []
    for path in paths:
        try:
            page = parse_page(path.resolve().as_uri(), path.read_bytes())
        except Exception as exc:
            rows.append({"file": str(path), "error": str(exc)})
            continue
        if not page.forms:
            continue
        topics = critic.page_topics([page])
        j = critic.topic_domains.index("book")
        for form, v in zip(page.forms, critic.judge(page.forms, page), strict=True):
            rows.append({"file": str(path), "url": page.url, "form_index": form.index,
                         "action": form.action, "method": form.method,
                         "searchable": v.searchable, "searchable_score": v.searchable_score,
                         "domain": v.domain, "domain_score": v.domain_score,
                         "relevant": v.relevant, "page_score": round(float(topics[0][j]), 4),
                         "page_topic": "book"})  # fmt: skip
    return rows


def test_workers_give_the_verdicts_and_page_scores_of_one_page_at_a_time(
        pages: Path, critic: Any) -> None:  # fmt: skip
    paths = list(page_files([pages]))
    formless = [p for p in paths if p.name != "0100.html"
                and not parse_page("http://x/", p.read_bytes()).forms]  # fmt: skip
    assert formless  # some pages are not walked at all
    want = _one_by_one(critic, paths)
    with_forms = len({r["file"] for r in want if "form_index" in r})
    assert with_forms > 2 * files.BATCH  # the workers judge at least two batches
    assert next(r for r in want if "error" in r)["error"] == "binary content, not markup"
    got = list(judge_files(lambda: critic, paths, jobs=2, target="book"))
    assert got == want
    assert list(judge_files(lambda: critic, paths, jobs=1, target="book")) == want


def test_a_killed_worker_loses_nothing(pages: Path, critic: Any,
                                       monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """The workers die (SIGKILL, as the OOM killer would): the batches they held and every
    later one are judged in the parent, the lines are the same."""
    from formhunter import killpoints

    paths = list(page_files([pages]))
    want = list(judge_files(lambda: critic, paths, jobs=1, target="book"))
    # each worker kills itself at its second batch (the workers fork with this target)
    monkeypatch.setattr(killpoints, "_TARGET", ("judge-worker", 2, signal.SIGKILL))
    assert list(judge_files(lambda: critic, paths, jobs=2, target="book")) == want


def test_a_small_call_starts_no_judging_workers(
        pages: Path, critic: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    import concurrent.futures as cf

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a pool was started for one batch")

    monkeypatch.setattr(cf, "ProcessPoolExecutor", refuse)
    paths = list(page_files([pages]))[:40]
    assert list(judge_files(lambda: critic, paths, jobs=2, target="book"))


def test_a_killed_judge_leaves_no_worker_behind(pages: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "formhunter.cli", "judge", str(pages),
                             "--domain", "book"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    children: set[int] = set()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        found = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
        children = {int(x) for x in found.stdout.split()}
        if len(children) >= 4:  # 2 parse workers, 2 judging workers
            break
        time.sleep(0.05)
    if proc.poll() is not None:
        pytest.skip("the judge ended before its workers could be seen")
    assert len(children) >= 4
    proc.kill()
    proc.wait()

    def running(pid: int) -> bool:  # a zombie waits for init to reap it: it runs nothing
        status = Path(f"/proc/{pid}/status")
        try:
            return "State:\tZ" not in status.read_text()
        except OSError:
            return False

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(map(running, children)):
        time.sleep(0.1)
    assert not [c for c in children if running(c)]


def test_the_cli_starts_without_the_models_libraries() -> None:
    """Every command builds its parser from every command module: none may import
    scikit-learn or NLTK (~2 CPU s), or judge's parse workers would start after them."""
    code = ("import sys; from formhunter.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('sklearn', 'nltk', 'scipy.stats') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)  # fmt: skip
    assert out.stdout.strip() == "[]"
