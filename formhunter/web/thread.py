"""The web page served from a thread of its own, for a crawl whose loop is not an
event loop: ``formhunter crawl --workers N --ui PORT`` (the cluster driver's loop
waits on Ray). The page reads the writer's snapshot (``FileStore``) and the live
figures the driver's listener keeps (``LiveRun``)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from formhunter.web.app import WebSettings, start_ui


class UiThread:
    """``start()`` serves ``settings`` on ``host:port`` from a daemon thread running an
    event loop and returns the page's URL (with its token); ``close()`` stops it. Use
    as a context manager."""

    def __init__(self, settings: WebSettings, host: str, port: int) -> None:
        self.settings, self.host, self.port = settings, host, port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="formhunter-ui",
                                       daemon=True)  # fmt: skip
        self.runner: Any = None
        self.url = ""

    def start(self) -> str:
        """Listen (a busy port is a ``UsageError`` raised here); the URL."""
        self.thread.start()
        try:
            self.runner, self.url = asyncio.run_coroutine_threadsafe(
                start_ui(self.settings, self.host, self.port), self.loop).result()
        except BaseException:
            self._stop_loop()
            raise
        return self.url

    def close(self) -> None:
        if self.runner is not None:
            asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(timeout=10)
            self.runner = None
        self._stop_loop()

    def _stop_loop(self) -> None:
        if self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
        if not self.thread.is_alive():
            self.loop.close()

    def __enter__(self) -> UiThread:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
