"""A logging HTTP server on loopback serving virtual hosts (aiohttp.web on 127.0.0.1:0):
asked directly it is one host (127.0.0.1:port); asked as an HTTP forward proxy
(absolute-form requests) it serves any host name. Every request is logged with its
arrival and end time."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

HTML = "<html><head><title>t</title></head><body><form action='/s'></form></body></html>"


@dataclass
class Hit:
    host: str
    path: str
    start: float
    user_agent: str
    end: float = 0.0


class LoopWeb:
    """A logging aiohttp app on 127.0.0.1:0 serving virtual hosts (module doc)."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str | None, str], Handler] = {}
        self.hits: list[Hit] = []
        self.port = 0
        self._runner: web.AppRunner | None = None

    def route(self, path: str, handler: Handler, host: str | None = None) -> None:
        self.routes[(host, path)] = handler

    def html(self, path: str, text: str = HTML, host: str | None = None) -> None:
        async def handler(_: web.Request) -> web.StreamResponse:
            return web.Response(text=text, content_type="text/html")

        self.route(path, handler, host)

    def robots(self, text: str, host: str | None = None) -> None:
        async def handler(_: web.Request) -> web.StreamResponse:
            return web.Response(text=text, content_type="text/plain")

        self.route("/robots.txt", handler, host)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def paths(self, host: str | None = None) -> list[str]:
        return [h.path for h in self.hits if host is None or h.host == host]

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        host = (request.host or "").split(":")[0]
        hit = Hit(host, request.path_qs, time.monotonic(), request.headers.get("User-Agent", ""))
        self.hits.append(hit)
        handler = self.routes.get((host, request.path)) or self.routes.get((None, request.path))
        try:
            if handler is None:
                return web.Response(status=404, text="not here")
            return await handler(request)
        finally:
            hit.end = time.monotonic()

    async def __aenter__(self) -> LoopWeb:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = self._runner.addresses[0][1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._runner is not None
        await self._runner.cleanup()
