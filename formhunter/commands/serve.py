"""``formhunter serve --db FILE``: the catalogue's web page (``formhunter.web``).

Browsing opens the file read-only for each request; a label is one short write
transaction. While a crawl writes the file, DuckDB refuses any other process:
watch a running crawl with ``formhunter crawl ... --ui PORT`` instead, which
serves the same page from inside the crawl. Listens on 127.0.0.1 by default;
labelling needs the token printed at start-up (open the printed URL).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from formhunter.commands._args import count
from formhunter.exceptions import UsageError

#: the port ``serve`` listens on unless ``--port`` says otherwise
DEFAULT_PORT = 8765


def check_port(port: int) -> int:
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be between 0 and 65535, not {port}")
    return port


def warn_public(host: str) -> None:
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: listening on {host}: anyone who can reach it can browse the "
              "catalogue (labels still need the token)", file=sys.stderr)  # fmt: skip


async def _serve(settings: object, host: str, port: int) -> None:
    from formhunter.web import WebSettings, start_ui

    assert isinstance(settings, WebSettings)
    runner, url = await start_ui(settings, host, port)
    print(f"serving {settings.store.path} at {url}", flush=True)
    print("open that URL (its token allows labelling); Ctrl-C stops", file=sys.stderr,
          flush=True)  # fmt: skip
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def cmd_serve(args: argparse.Namespace) -> int:
    from formhunter.web import FileStore, WebSettings

    if not Path(args.db).exists():
        raise UsageError(f"no catalogue at {args.db} (make one with `formhunter crawl --db "
                         f"{args.db}`)")  # fmt: skip
    settings = WebSettings(store=FileStore(args.db), models_dir=args.models, model=args.model)
    from classifiers.persist import model_path

    print(f"label suggestions from the domain model in "
          f"{model_path('domain', args.models, args.model)}", file=sys.stderr)  # fmt: skip
    warn_public(args.host)
    asyncio.run(_serve(settings, args.host, check_port(args.port)))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="browse a catalogue in a web page: runs, forms, labels (JSON under /api/)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the DuckDB catalogue")
    p.add_argument("--port", type=count, default=DEFAULT_PORT, metavar="P",
                   help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--models", metavar="DIR",
                   help="model directory for the label suggestions (default: the user one, "
                   "then data/models)")
    p.add_argument("--model", metavar="NAME",
                   help="the domain model of the suggestions, by name (formhunter models list; "
                   "'shipped': data/models; default: the newest trained)")  # fmt: skip
    p.set_defaults(func=cmd_serve)
