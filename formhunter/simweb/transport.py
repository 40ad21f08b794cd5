"""In-process transport: the simulated web without sockets, for fast unit tests.

``SimTransport(web).get(url)`` is an async stand-in for an HTTP client; it returns
the same ``SimResponse`` the proxy would serve (``SimWeb.fetch``), never sleeps, and
records every request in ``log``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urljoin

from formhunter.simweb.spec import SimResponse

if TYPE_CHECKING:
    from formhunter.simweb.webparts import WebParts

__all__ = ["SimResponse", "SimTransport"]


class SimTransport:
    """An in-process async stand-in for an HTTP client (no sockets, no sleeping).

    ``await t.get(url)`` returns the SimResponse of that URL; with
    ``follow_redirects=True`` it follows up to ``max_redirects`` Location headers
    and returns the last response (its ``url`` is the final URL). Unknown hosts
    answer 502 like the proxy. ``t.log`` records (url, status) of every request.
    """

    def __init__(self, web: WebParts) -> None:
        self.web = web
        self.log: list[tuple[str, int]] = []

    async def get(
        self, url: str, follow_redirects: bool = False, max_redirects: int = 10
    ) -> SimResponse:
        resp = self.web.fetch(url)
        self.log.append((url, resp.status))
        hops = 0
        while (
            follow_redirects and resp.status in (301, 302, 303, 307, 308) and hops < max_redirects
        ):
            url = urljoin(resp.url, resp.headers.get("Location", ""))
            resp = self.web.fetch(url)
            self.log.append((url, resp.status))
            hops += 1
        return resp
