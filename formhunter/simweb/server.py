"""The simulated web over real HTTP: a forward proxy on loopback.

It serves any world (``formhunter.worlds``: simweb, bazaar); only ``fetch`` is used.

Clients send absolute-URI requests (``GET http://www.foo.example/x HTTP/1.1``), as
any HTTP client configured with ``proxy=http://127.0.0.1:PORT`` does. Origin-form
requests (``GET /x`` with ``Host: www.foo.example``) are answered too. Hosts outside
the simulated web get 502; methods other than GET/HEAD get 405; CONNECT (https)
gets 501. Every request is logged: ``{time, method, host, path, status, bytes}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from aiohttp import web as aioweb

from formhunter.exceptions import FormhunterError
from formhunter.simweb.generator import SimResponse, SimWeb


class Served(Protocol):
    """What the proxy needs of a web: a SimWeb or any ``formhunter.worlds.World``."""

    def fetch(self, url: str) -> SimResponse: ...


class ServedWorld(Served, Protocol):
    """A web the ``serve`` command names (any ``formhunter.worlds.World``)."""

    name: str

    def describe(self) -> str: ...


class ProxyServer:
    """An aiohttp low-level server answering for a SimWeb or another world."""

    def __init__(self, web: Served, log_file: str | None = None, keep_log: bool = True) -> None:
        self.web = web
        self.log: list[dict[str, Any]] = []
        self.keep_log = keep_log
        self._fh: IO[str] | None = open(log_file, "a", encoding="utf-8") if log_file else None  # noqa: SIM115
        self._runner: aioweb.ServerRunner | None = None
        self.port = 0

    def _record(self, method: str, host: str, path: str, status: int, size: int) -> None:
        rec = {"time": time.time(), "method": method, "host": host, "path": path,
               "status": status, "bytes": size}  # fmt: skip
        if self.keep_log:
            self.log.append(rec)
        if self._fh is not None:
            self._fh.write(json.dumps(rec) + "\n")
            self._fh.flush()

    async def handle(self, request: aioweb.BaseRequest) -> aioweb.StreamResponse:
        if request.method == "CONNECT":
            self._record("CONNECT", request.raw_path, "", 501, 0)
            return aioweb.Response(status=501, text="CONNECT is not supported\n")
        # for an absolute-form target aiohttp takes host from the request line, else from Host
        host = (request.host or "").lower()
        if host.endswith(":80"):
            host = host[:-3]
        path = request.rel_url.raw_path_qs or "/"
        if request.method not in ("GET", "HEAD"):
            self._record(request.method, host, path, 405, 0)
            return aioweb.Response(status=405, headers={"Allow": "GET, HEAD"})
        url = f"http://{host}{path}"
        resp = self.web.fetch(url)
        if resp.delay:
            await asyncio.sleep(resp.delay)
        headers = dict(resp.headers)
        self._record(request.method, host, path, resp.status, len(resp.body))
        # aiohttp sends no body for HEAD but keeps its Content-Length
        return aioweb.Response(status=resp.status, body=resp.body, headers=headers)

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        server = aioweb.Server(self.handle, access_log=None)
        self._runner = aioweb.ServerRunner(server, handle_signals=False)
        await self._runner.setup()
        site = aioweb.TCPSite(self._runner, host, port, backlog=1024)
        await site.start()
        addr = self._runner.addresses[0]
        self.port = int(addr[1])
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._fh is not None:
            self._fh.close()
            self._fh = None


@dataclass
class ProxyHandle:
    """A proxy running in a background thread with its own event loop."""

    web: Any  # the SimWeb (default) or the World it serves
    server: ProxyServer
    port: int
    _loop: asyncio.AbstractEventLoop
    _thread: threading.Thread
    _stopped: bool = field(default=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> list[dict[str, Any]]:
        return self.server.log

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        fut = asyncio.run_coroutine_threadsafe(self.server.stop(), self._loop)
        with contextlib.suppress(Exception):
            fut.result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def __enter__(self) -> ProxyHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_proxy(
    seed: int = 7,
    n_sites: int = 500,
    port: int = 0,
    slow_delay: float = 2.0,
    log_file: str | None = None,
    web: Served | None = None,
    host: str = "127.0.0.1",
) -> ProxyHandle:
    """Start the proxy in a daemon thread; returns once it listens. Call ``.stop()``.

    Serves ``web`` if given (any world: ``formhunter.worlds.open_world``), else a
    ``SimWeb`` of ``seed`` and ``n_sites``."""
    sim: Served = web or SimWeb(seed=seed, n_sites=n_sites, slow_delay=slow_delay)
    server = ProxyServer(sim, log_file)
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(server.start(host, port))
        except BaseException as exc:  # reported to the caller below
            errors.append(exc)
            ready.set()
            loop.close()
            return
        ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    thread = threading.Thread(target=run, name="simweb-proxy", daemon=True)
    thread.start()
    ready.wait(timeout=30)
    if errors:
        raise errors[0]
    return ProxyHandle(sim, server, server.port, loop, thread)


@contextlib.contextmanager
def running_proxy(
    seed: int = 7,
    n_sites: int = 500,
    port: int = 0,
    slow_delay: float = 2.0,
    log_file: str | None = None,
    web: Served | None = None,
) -> Iterator[ProxyHandle]:
    """Context manager around ``start_proxy``: the proxy stops on leaving the block."""
    handle = start_proxy(seed, n_sites, port, slow_delay, log_file, web)
    try:
        yield handle
    finally:
        handle.stop()


async def serve_forever(
    web: ServedWorld, port: int, host: str = "127.0.0.1", log_file: str | None = None
) -> None:
    """Run the proxy in the current event loop until cancelled (the ``serve`` command)."""
    server = ProxyServer(web, log_file, keep_log=False)
    await server.start(host, port)
    print(f"{web.name} proxy on http://{host}:{server.port} ({web.describe()})", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop()


@contextlib.contextmanager
def proxy_process(seed: int, sites: int, slow_delay: float, page_kb: int = 0,
                  world: str = "simweb") -> Iterator[str]:  # fmt: skip
    """The one launcher of the simulated web's proxy in a child process (demo,
    benchmarks): a ``formhunter simweb serve`` subprocess on a free loopback port;
    yields its URL. ``page_kb``: its ``--page-kb`` (0: pages as generated); ``world``:
    its ``--world``. In this process, for tests: ``running_proxy``.

    Its stderr goes to a temporary file (a pipe nobody reads could fill and block it)."""
    import tempfile

    cmd = [sys.executable, "-m", "formhunter.cli", "simweb", "serve", "--port", "0",
           "--seed", str(seed), "--sites", str(sites), "--slow-delay", str(slow_delay),
           "--page-kb", str(page_kb), "--world", world]  # fmt: skip
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if "http://" not in line:
                proc.wait(timeout=10)
                err.seek(0)
                raise FormhunterError(f"the {world} proxy did not start: {line}{err.read()[-500:]}")
            yield "http://" + line.split("http://", 1)[1].split()[0]
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
