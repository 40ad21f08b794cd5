"""``formhunter judge FILE|DIR ... [--url URL] [--domain D]``: the critic's verdict per form.

Judges many saved pages in one process: the models are loaded once, and pages
are parsed the way the crawler parses them and judged in batches. A folder
stands for the ``*.html``/``*.htm`` files and the WARC files (``*.warc``,
``*.warc.gz``, as ``crawl --warc`` writes them) under it (recursively, sorted); a
WARC file stands for its HTML responses, each with its own URL. One JSON line per
form, in file order and then document order: file, url, form_index, action,
method, searchable, searchable_score, domain, domain_score, relevant.
Without ``--domain`` no form is relevant (there is no target), the other fields
are filled as usual. ``--url`` is the URL of every page given (it resolves
relative actions, and its host is part of the domain model's site context);
without it a page's URL is its file URI.

A page that cannot be read or parsed gets one line {"file", "error"} and the run
goes on; the exit code is then 1. With many pages, worker processes (``--jobs``,
default: one per core, up to 4, from 32 pages on) read and parse while this
process loads the models and judges.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
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
#: read the file)
Job = tuple[Path, str | None, bytes | None]


def page_files(paths: Sequence[str | Path]) -> Iterator[Path]:
    """Each path as given, a folder as its HTML and WARC files (recursively, sorted)."""
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*") if f.name.lower().endswith(_SUFFIXES)
                              and f.is_file())  # fmt: skip
        else:
            yield p


def page_jobs(files: Iterable[Path], url: str | None) -> Iterator[Job]:
    """One job per HTML file, one per HTML response of each WARC file (streamed)."""
    from formhunter.warc import is_warc, read_pages

    for f in files:
        if is_warc(f):
            for p in read_pages(f, max_bytes=WARC_BODY_BYTES):
                yield f, p.url, p.body
        else:
            yield f, url, None


def _parse(path: Path, url: str | None, body: bytes | None = None) -> Page:
    from formhunter.parse import parse_page

    if body is None:
        try:
            body = path.read_bytes()
        except OSError as exc:
            raise ParseError(f"cannot read: {exc.strerror or exc}") from None
    try:
        return parse_page(url or path.resolve().as_uri(), body)
    except ParseError:
        raise
    except Exception as exc:  # a hostile page must cost its own line only, never the run
        raise ParseError(f"cannot parse: {type(exc).__name__}: {exc}") from None


def parse_one(job: Job) -> tuple[Path, Page | str]:
    """(path, the page slimmed to what the critic reads) or (path, error message)."""
    path, url, body = job
    try:
        page = _parse(path, url, body)
    except ParseError as exc:
        return path, str(exc)
    page.links, page.leaves, page.text = [], [], ""  # not judged; costly to pickle
    return path, page


@contextlib.contextmanager
def parsed_pages(
    files: Iterable[Path], url: str | None = None, jobs: int = 1
) -> Iterator[Iterator[tuple[Path, Page | str]]]:
    """``parse_one`` of each file, in order; with ``jobs`` > 1 in worker processes,
    which start parsing on entry."""
    todo = page_jobs(files, url)
    if jobs <= 1:
        yield map(parse_one, todo)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield pool.imap(parse_one, todo, chunksize=8)


def judge_files(
    make_critic: Callable[[], Any],
    files: Iterable[Path],
    url: str | None = None,
    jobs: int = 1,
) -> Iterator[dict]:
    """One dict per form of each file (or one {"file", "error"} per failed file), in order.

    ``make_critic`` is called once the page workers are started (the models load
    while the first pages are parsed).
    """
    with parsed_pages(files, url, jobs) as pages:
        critic = make_critic()
        batch: list[tuple[Path, Page]] = []

        def flush() -> Iterator[dict]:
            if not batch:
                return
            verdicts = critic.judge_many([(page.forms, page) for _, page in batch])
            for (path, page), page_verdicts in zip(batch, verdicts, strict=True):
                for form, v in zip(page.forms, page_verdicts, strict=True):
                    yield {
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
                    }
            batch.clear()

        for path, page in pages:
            if isinstance(page, str):
                yield from flush()
                yield {"file": str(path), "error": page}
                continue
            if page.forms:
                batch.append((path, page))
                if len(batch) >= BATCH:
                    yield from flush()
        yield from flush()


def make_critic(args: argparse.Namespace) -> Any:
    from formhunter.critics.trained import FormCritic, HeuristicCritic

    if args.critic == "heuristic":
        return HeuristicCritic(args.domain or "", domains_dir=args.domains_dir, strict=False)
    return FormCritic(args.domain or "", args.models)


def run(args: argparse.Namespace) -> int:
    files = list(page_files(args.pages))
    if not files:
        raise UsageError(f"no HTML or WARC files (*.html, *.htm, *.warc, *.warc.gz) in "
                         f"{', '.join(args.pages)}")
    jobs = args.jobs or (min(os.cpu_count() or 1, 4) if len(files) >= PARALLEL_FROM else 1)
    failed = 0
    out = sys.stdout
    for row in judge_files(lambda: make_critic(args), files, args.url, jobs):
        failed += "error" in row
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    out.flush()
    if failed:
        print(f"{failed} of {len(files)} pages could not be judged", file=sys.stderr)
    return 1 if failed else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "judge",
        help="print the critic's verdict for every form of saved pages (JSON lines)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("pages", nargs="+", metavar="FILE|DIR",
                   help="saved HTML pages, WARC files or folders")
    p.add_argument("--url", help="the pages' URL (resolves relative actions; site context)")
    p.add_argument("--domain", help="target domain: relevant = searchable and of this domain")
    p.add_argument("--critic", default="default", choices=["default", "heuristic"],
                   help="trained models (default) or keyword rules (heuristic)")  # fmt: skip
    p.add_argument("--models", help="folder with searchable/ and domain/ (default: data/models)")
    p.add_argument("--domains-dir", help="folder of domain packs (heuristic critic)")
    p.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="parsing processes (default: one per core, up to 4, from "
                   f"{PARALLEL_FROM} pages on; 1 = none)")  # fmt: skip
    p.set_defaults(func=run)
