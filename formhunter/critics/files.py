"""Judge saved pages with a form critic: HTML files and the HTML responses of WARC files
(``crawl --warc``), parsed the way the crawler parses them (in worker processes when
asked) and judged in batches; one dict per form (``formhunter judge`` prints them as JSON
lines; ``bench judge`` times them). Each dict carries ``page_score`` and ``page_topic``:
the page classifiers' topic score of the whole page for the target domain (or, without
one, for the domain the page is most about), which the trained critic's domain decision
reads beside the form (``classifiers.context``); None with a critic without page models."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from formhunter.exceptions import ParseError, UsageError
from formhunter.model import Page

#: pages judged per call of the critic (its per-call overhead dwarfs its per-form cost)
BATCH = 64
#: fewest pages worth starting worker processes for
PARALLEL_FROM = 32
_SUFFIXES = (".html", ".htm", ".warc", ".warc.gz")
#: bytes of a WARC record's body that are parsed (the crawler's own default cap)
WARC_BODY_BYTES = 10_000_000

#: one page to judge: (file, its URL or None for the file's URI, its body or None to
#: read the file, the most bytes read from the file)
Job = tuple[Path, str | None, bytes | None, int]
#: characters of a page's text the topic score reads (``classifiers.page_classifier.page_text``)
PAGE_TEXT_CHARS = 50_000


def page_files(paths: Sequence[str | Path]) -> Iterator[Path]:
    """Each path as given, a folder as its HTML and WARC files (recursively, sorted)."""
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*") if f.name.lower().endswith(_SUFFIXES)
                              and f.is_file())  # fmt: skip
        else:
            yield p


def page_jobs(files: Iterable[Path], url: str | None, max_bytes: int = 0) -> Iterator[Job]:
    """One job per HTML file, one per HTML response of each WARC file (streamed). Only
    regular files are opened here (a FIFO or a link to a device: its job's read says
    why, never a hang); no page over ``max_bytes`` (default: the crawl's ``[fetch]
    max_bytes``) is read."""
    from classifiers.inputs import check_regular
    from formhunter.warc import is_warc, read_pages

    cap = max_bytes or _default_max_bytes()
    for f in files:
        try:
            check_regular(f, 1 << 62, "page")
        except UsageError:
            yield f, url, None, cap
            continue
        if is_warc(f):
            for p in read_pages(f, max_bytes=WARC_BODY_BYTES):
                yield f, p.url, p.body, cap
        else:
            yield f, url, None, cap


def _default_max_bytes() -> int:
    from formhunter.config import Settings

    return Settings().fetch.max_bytes


def _parse(path: Path, url: str | None, body: bytes | None = None, max_bytes: int = 0) -> Page:
    from classifiers.inputs import read_regular
    from formhunter.parse import parse_page

    if body is None:
        try:
            body = read_regular(path, max_bytes or _default_max_bytes(), "page")
        except UsageError as exc:  # not a regular file, too large, unreadable
            raise ParseError(str(exc)) from None
    try:
        return parse_page(url or path.resolve().as_uri(), body, walk_formless=False)
    except ParseError:
        raise
    except Exception as exc:  # a hostile page must cost its own line only, never the run
        raise ParseError(f"cannot parse: {type(exc).__name__}: {exc}") from None


def parse_one(job: Job) -> tuple[Path, Page | str]:
    """(path, the page slimmed to what the critic reads) or (path, error message)."""
    path, url, body, max_bytes = job
    try:
        page = _parse(path, url, body, max_bytes)
    except ParseError as exc:
        return path, str(exc)
    page.links, page.leaves = [], []  # not judged; costly to pickle
    page.text = page.text[:PAGE_TEXT_CHARS] if page.forms else ""
    return path, page


@contextlib.contextmanager
def parsed_pages(
    files: Iterable[Path], url: str | None = None, jobs: int = 1, max_bytes: int = 0
) -> Iterator[Iterator[tuple[Path, Page | str]]]:
    """``parse_one`` of each file, in order; with ``jobs`` > 1 in worker processes,
    which start parsing on entry."""
    todo = page_jobs(files, url, max_bytes)
    if jobs <= 1:
        yield map(parse_one, todo)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield pool.imap(parse_one, todo, chunksize=8)
        # every page was read: the workers end on their end-of-work marks. (Pool's exit,
        # terminate, drains the pipe of what is left, marks included, and a worker left
        # waiting for the pipe was once seen to hang the judge; it stays for an early exit)
        pool.close()
        pool.join()


def _page_topics(critic: Any, pages: list[Page]) -> tuple[tuple[Any, ...], list[str]]:
    """((topics,) to pass on to ``judge_many``, their domains), or ((), []) without them."""
    from formhunter.critics.trained import FormCritic

    if isinstance(critic, FormCritic) and critic.topic_domains:
        return (critic.page_topics(pages),), critic.topic_domains
    return (), []


def _page_score(topics: tuple[Any, ...], names: list[str], k: int,
                target: str | None) -> tuple[float | None, str | None]:  # fmt: skip
    if not topics:
        return None, None
    row = topics[0][k]
    j = names.index(target) if target in names else int(row.argmax())
    return round(float(row[j]), 4), names[j]


def _rows(critic: Any, batch: Sequence[tuple[Path, Page]], target: str | None) -> list[dict]:
    """One dict per form of a batch of pages with forms, judged in one call."""
    pages = [page for _, page in batch]
    topics, names = _page_topics(critic, pages)
    verdicts = critic.judge_many([(page.forms, page) for page in pages], *topics)
    rows = []
    for k, ((path, page), page_verdicts) in enumerate(zip(batch, verdicts, strict=True)):
        score, topic = _page_score(topics, names, k, target)
        for form, v in zip(page.forms, page_verdicts, strict=True):
            rows.append({
                "file": str(path),
                "url": page.url,
                "form_index": form.index,
                "action": form.action,
                "method": form.method,
                "searchable": v.searchable,
                "searchable_score": v.searchable_score,
                "domain": v.domain,
                "domain_score": v.domain_score,
                "relevant": v.relevant,
                "page_score": score,
                "page_topic": topic,
            })
    return rows


#: a batch of pages with forms to judge, or the line of a page that failed
_Item = list[tuple[Path, Page]] | dict


def _batches(pages: Iterable[tuple[Path, Page | str]]) -> Iterator[_Item]:
    """The pages with forms in batches of ``BATCH``, in order; a failed page's line between."""
    batch: list[tuple[Path, Page]] = []
    for path, page in pages:
        if isinstance(page, str):
            if batch:
                yield batch
                batch = []
            yield {"file": str(path), "error": page}
        elif page.forms:
            batch.append((path, page))
            if len(batch) >= BATCH:
                yield batch
                batch = []
    if batch:
        yield batch


#: the critic of the judging workers, set before they fork (they inherit it loaded)
_WORKER_CRITIC: Any = None


def _judge_in_worker(batch: list[tuple[Path, Page]], target: str | None) -> list[dict]:
    from formhunter import killpoints

    killpoints.reached("judge-worker")
    return _rows(_WORKER_CRITIC, batch, target)


def _worker_start(parent: int) -> None:
    """A judging worker ignores Ctrl-C (the parent's to handle) and ends when its parent
    is gone (killed: the worker would wait for work forever, holding the parse
    workers' pipes open)."""
    import os
    import signal
    import threading
    import time

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="judge-parent-watch", daemon=True).start()


def _judged(critic: Any, items: Iterator[_Item], target: str | None,
            jobs: int) -> Iterator[dict]:  # fmt: skip
    """The rows of ``items`` in order. The first batch is judged here (the models' first
    call checks their compiled path); with ``jobs`` > 1 and a second batch, the later
    batches are judged by ``jobs`` processes forked now, the models already loaded (no
    import, no load), at most ``2 * jobs`` batches ahead of what is written. A batch
    whose worker died is judged here, as is every later one: nothing is lost."""
    global _WORKER_CRITIC
    import concurrent.futures as cf
    from collections import deque

    first = True
    broken = False
    pool: cf.ProcessPoolExecutor | None = None
    ahead: deque[tuple[_Item, cf.Future[list[dict]] | None]] = deque()

    def written(keep: int) -> Iterator[dict]:
        nonlocal pool, broken
        while len(ahead) > keep:
            item, fut = ahead.popleft()
            if isinstance(item, dict):
                yield item
                continue
            rows = None
            if fut is not None and pool is not None:
                try:
                    rows = fut.result()
                except cf.process.BrokenProcessPool:
                    pool.shutdown(wait=False, cancel_futures=True)
                    pool, broken = None, True
            yield from rows if rows is not None else _rows(critic, item, target)

    try:
        for item in items:
            fut = None
            if not isinstance(item, dict) and not first and jobs > 1 and not broken:
                if pool is None:  # the second batch: start the workers
                    import multiprocessing
                    import os

                    _WORKER_CRITIC = critic
                    pool = cf.ProcessPoolExecutor(
                        jobs, mp_context=multiprocessing.get_context("fork"),
                        initializer=_worker_start, initargs=(os.getpid(),))  # fmt: skip
                try:
                    fut = pool.submit(_judge_in_worker, item, target)
                except cf.process.BrokenProcessPool:
                    pool.shutdown(wait=False, cancel_futures=True)
                    pool, broken = None, True
            first = first and isinstance(item, dict)
            ahead.append((item, fut))  # without a future: judged here when written
            yield from written(2 * jobs if pool is not None else 0)
        yield from written(0)
    finally:
        _WORKER_CRITIC = None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def judge_files(
    make_critic: Callable[[], Any],
    files: Iterable[Path],
    url: str | None = None,
    jobs: int = 1,
    target: str | None = None,
    max_bytes: int = 0,
) -> Iterator[dict]:
    """One dict per form of each file (or one {"file", "error"} per failed file), in order.

    ``make_critic`` is called once the page workers are started (the models load
    while the first pages are parsed); with ``jobs`` > 1 the pages are then judged in
    ``jobs`` processes forked with the models loaded (``_judged``).
    """
    with parsed_pages(files, url, jobs, max_bytes) as pages:
        critic = make_critic()
        yield from _judged(critic, _batches(pages), target, jobs)


def make_critic(kind: str, domain: str, models: Path | str | None = None,
                domains_dir: Path | str | None = None,
                model: str | None = None) -> Any:  # fmt: skip
    """The critic ``formhunter judge --critic KIND`` uses: "heuristic" (keyword rules, no
    model) or the trained critic (``models``: its models' folder, None: the default;
    ``model``: the domain model's name, None: the newest)."""
    from formhunter.critics.trained import FormCritic, HeuristicCritic

    if kind == "heuristic":
        return HeuristicCritic(domain, domains_dir=domains_dir, strict=False)
    return FormCritic(domain, models, model=model)
