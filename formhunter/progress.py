"""Crawl progress for people: a live bar on a terminal, log lines otherwise.

``CrawlProgress`` is a crawl listener (``Engine.listen``, ``ClusterCrawl.listen``: it
reads the crawl's ``stats``; a cluster's "step" counts as "page"). On a TTY it shows a
rich progress bar with pages fetched, pages/s, forms, relevant forms, errors and
the harvest rate; when the stream is not a TTY (a pipe, a CI log) it writes one
plain line every ``interval`` seconds and at the end.
"""

from __future__ import annotations

import sys
import time
from typing import IO, TYPE_CHECKING, Any, Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

if TYPE_CHECKING:
    from formhunter.stats import CrawlStats


class Crawl(Protocol):
    """What the progress display reads of a crawl (an ``Engine``, a ``ClusterCrawl``)."""

    stats: CrawlStats


def status_line(stats: CrawlStats, max_pages: int) -> str:
    """One line: pages, pages/s, forms, relevant, errors, harvest rate."""
    return (
        f"pages {stats.pages}/{max_pages}  {stats.pages_per_second:.1f} pages/s  "
        f"forms {stats.forms} (searchable {stats.searchable}, relevant {stats.relevant})  "
        f"errors {stats.n_errors}  harvest {stats.harvest_rate:.4f}"
    )


class CrawlProgress:
    """Engine listener showing progress on ``stream`` (default stderr).

    ``live`` None: a live bar if ``stream`` is a TTY. Use as a context manager.
    """

    def __init__(self, max_pages: int, *, stream: IO[str] | None = None,
                 live: bool | None = None, interval: float = 10.0) -> None:  # fmt: skip
        self.stream = stream if stream is not None else sys.stderr
        self.max_pages = max_pages
        self.live = self.stream.isatty() if live is None else live
        self.interval = interval
        self._last = 0.0
        self._progress: Progress | None = None
        self._task: Any = None

    def __enter__(self) -> CrawlProgress:
        if self.live:
            self._progress = Progress(
                TextColumn("[bold]crawl"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]:>6.1f} p/s"),
                TextColumn("forms {task.fields[forms]}"),
                TextColumn("[green]relevant {task.fields[relevant]}"),
                TextColumn("[red]errors {task.fields[errors]}"),
                TextColumn("harvest {task.fields[harvest]:.4f}"),
                TimeElapsedColumn(),
                console=Console(file=self.stream), transient=False, refresh_per_second=4,
            )  # fmt: skip
            self._progress.start()
            self._task = self._progress.add_task(
                "crawl", total=self.max_pages, rate=0.0, forms=0, relevant=0, errors=0,
                harvest=0.0,
            )  # fmt: skip
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def __call__(self, event: str, engine: Crawl) -> None:
        now = time.monotonic()
        event = "page" if event == "step" else event
        if event == "page" and now - self._last < (0.2 if self.live else self.interval):
            return
        if event not in ("page", "end", "start", "learn"):
            return
        self._last = now
        st = engine.stats
        if self._progress is not None:
            self._progress.update(
                self._task, completed=st.pages, rate=st.pages_per_second, forms=st.forms,
                relevant=st.relevant, errors=st.n_errors, harvest=st.harvest_rate,
            )  # fmt: skip
            if event == "learn":
                self._progress.console.print(
                    f"learning iteration {st.learning_iterations}: frontier re-ranked"
                )
        elif event != "start":
            print(f"[{event}] {status_line(st, self.max_pages)}", file=self.stream, flush=True)
