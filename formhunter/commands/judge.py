"""``formhunter judge FILE|DIR ... [--url URL] [--domain D]``: the critic's verdict per form.

Judges many saved pages in one process: the models are loaded once, and pages
are parsed the way the crawler parses them and judged in batches. A folder
stands for the ``*.html``/``*.htm`` files and the WARC files (``*.warc``,
``*.warc.gz``, as ``crawl --warc`` writes them) under it (recursively, sorted); a
WARC file stands for its HTML responses, each with its own URL. One JSON line per
form, in file order and then document order: file, url, form_index, action,
method, searchable, searchable_score, domain, domain_score, relevant,
page_score, page_topic. ``page_score`` is the page classifier's topic score of the
whole page for ``page_topic``: the target domain, or without ``--domain`` the
domain the page is most about (null with the heuristic critic); the trained critic's
domain decision reads it beside the form (``classifiers.context``).
Without ``--domain`` no form is relevant (there is no target), the other fields
are filled as usual. ``--url`` is the URL of every page given (it resolves
relative actions, and its host is part of the domain model's site context);
without it a page's URL is its file URI.

A page that cannot be read or parsed gets one line {"file", "error"} and the run
goes on; the exit code is then 1. Only regular files are read (a FIFO or a link to a
device is an error line, never a hang), no page larger than ``--max-bytes``. With
many pages, worker processes (``--jobs``,
default: one per core, up to 4, from 32 pages on) read and parse while this
process loads the models; from the second batch of 64 pages with forms on, as many
processes forked with the models loaded judge them (the lines stay in order; a
worker that dies leaves its pages to this process).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from formhunter.commands._args import count
from formhunter.critics import describe_models
from formhunter.critics.files import PARALLEL_FROM, judge_files, page_files
from formhunter.critics.files import make_critic as critic_of
from formhunter.exceptions import UsageError


def make_critic(args: argparse.Namespace) -> Any:
    critic = critic_of(args.critic, args.domain or "", args.models, args.domains_dir,
                       model=args.model)  # fmt: skip
    print(f"judging with {describe_models(critic.models())}", file=sys.stderr)
    return critic


def run(args: argparse.Namespace) -> int:
    files = list(page_files(args.pages))
    if not files:
        raise UsageError(f"no HTML or WARC files (*.html, *.htm, *.warc, *.warc.gz) in "
                         f"{', '.join(args.pages)}")
    jobs = args.jobs or (min(os.cpu_count() or 1, 4) if len(files) >= PARALLEL_FROM else 1)
    failed = 0
    out = sys.stdout
    for row in judge_files(lambda: make_critic(args), files, args.url, jobs, args.domain,
                           args.max_bytes):
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
    p.add_argument("--models", help="folder with searchable/ and domain/ (default: the user "
                   "model directory, then data/models)")
    p.add_argument("--model", metavar="NAME",
                   help="the domain model, by name (formhunter models list; 'shipped': "
                   "data/models; default: the newest trained)")  # fmt: skip
    p.add_argument("--domains-dir", help="folder of domain packs (heuristic critic)")
    p.add_argument("--jobs", type=count, default=0, metavar="N",
                   help="parsing and judging processes (default: one per core, up to 4, "
                   f"from {PARALLEL_FROM} pages on; 1 = none)")  # fmt: skip
    p.add_argument("--max-bytes", type=count, default=0, metavar="N",
                   help="pages larger than N bytes are not read (default: the crawl's "
                   "[fetch] max_bytes, 5 MB)")  # fmt: skip
    p.set_defaults(func=run)
