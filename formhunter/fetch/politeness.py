"""Per-host politeness: a connection limit and a minimum spacing of requests.

Every request to a host (pages, robots.txt, retries, each redirect hop) runs
inside ``Politeness.slot(host, delay)``: at most ``connections`` requests to
the host are in flight, and two requests to it *start* at least ``delay``
seconds apart (the caller passes the delay in force for the host: the
``min_delay`` setting raised by robots.txt ``Crawl-delay``), and a request
starts at least ``delay`` after the previous one to the host *ended* (so the
spacing holds as the server sees it, however slow the answer). ``defer`` pushes
the next start of a host back (back-off, ``Retry-After``). Hosts are keyed by
host name (lower case, without port), so ``http://h`` and ``https://h`` share
one budget; idle hosts are forgotten once many hosts are known.

``SingleFlight`` (used by the robots.txt cache and the address guard) runs one
look-up per key at a time and shares its result with concurrent callers.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


@dataclass(slots=True)
class _HostState:
    sem: asyncio.Semaphore
    not_before: float = 0.0  # set by defer()
    last_start: float = -math.inf
    last_end: float = -math.inf
    delay: float = 0.0  # the latest delay asked for, for ready_in estimates
    active: int = 0
    waiting: int = 0

    def next_start(self, delay: float) -> float:
        return max(self.not_before, self.last_start + delay, self.last_end + delay)


Delay = float | Callable[[], float]


class Politeness:
    """Host slots (module doc). Not thread-safe; one event loop."""

    #: Forget idle hosts when more than this many are known.
    prune_above = 20_000

    def __init__(
        self, connections: int = 1, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if connections < 1:
            raise ValueError("connections must be at least 1")
        self.connections = connections
        self._clock = clock
        self._hosts: dict[str, _HostState] = {}

    def _state(self, host: str) -> _HostState:
        st = self._hosts.get(host)
        if st is None:
            if len(self._hosts) >= self.prune_above:
                self._prune()
            st = self._hosts[host] = _HostState(asyncio.Semaphore(self.connections))
        return st

    def _prune(self) -> None:
        now = self._clock()
        idle = [
            h for h, s in self._hosts.items()
            if s.active == 0 and s.waiting == 0 and s.next_start(s.delay) <= now
        ]
        for h in idle:
            del self._hosts[h]

    @asynccontextmanager
    async def slot(self, host: str, delay: Delay) -> AsyncIterator[None]:
        """Wait for a free connection of ``host`` and its next start time, then run.

        ``delay`` (seconds, or a function giving them) is read when the wait
        is computed, so a Crawl-delay learnt meanwhile applies at once.
        """
        st = self._state(host)
        st.waiting += 1
        try:
            await st.sem.acquire()
        finally:
            st.waiting -= 1
        try:
            while True:  # defer() or a new delay may move the start meanwhile
                current = delay() if callable(delay) else delay
                wait = st.next_start(current) - self._clock()
                if wait <= 0:
                    break
                await asyncio.sleep(wait)
            st.delay = current
            st.last_start = self._clock()
            st.active += 1
            try:
                yield
            finally:
                st.active -= 1
                st.last_end = self._clock()
        finally:
            st.sem.release()

    def defer(self, host: str, seconds: float) -> None:
        """No request to ``host`` starts earlier than ``seconds`` from now."""
        st = self._state(host)
        st.not_before = max(st.not_before, self._clock() + max(0.0, seconds))

    def ready_in(self, host: str, delay: float | None = None) -> float:
        """Seconds until a request to ``host`` could start without waiting (0 = now).

        ``delay`` is the spacing in force (default: the last one used). For a
        host whose connections are all busy, or with requests queued, this is
        an estimate: the remaining spacing plus one delay per queued request
        (at least one delay while all connections are busy).
        """
        st = self._hosts.get(host)
        if st is None:
            return 0.0
        d = st.delay if delay is None else delay
        wait = max(0.0, st.next_start(d) - self._clock()) + st.waiting * d
        if st.active >= self.connections:
            wait = max(wait, d)
        return wait

    def __len__(self) -> int:
        return len(self._hosts)


class SingleFlight(Generic[K, V]):
    """One computation per key at a time; concurrent callers share its outcome.

    A caller cancelled while waiting leaves the computation running for the
    others; if the computing caller is cancelled, a waiter that was not
    cancelled itself starts the computation anew (it never sees a foreign
    ``CancelledError``). Exceptions of the computation reach every caller.
    """

    def __init__(self) -> None:
        self._pending: dict[K, asyncio.Future[V]] = {}

    async def run(self, key: K, compute: Callable[[], Awaitable[V]]) -> V:
        while (pending := self._pending.get(key)) is not None:
            try:
                return await asyncio.shield(pending)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is None or task.cancelling():
                    raise
                # the computing caller was cancelled, not this one: compute here
        fut: asyncio.Future[V] = asyncio.get_running_loop().create_future()
        self._pending[key] = fut
        try:
            result = await compute()
        except asyncio.CancelledError:
            fut.cancel()
            raise
        except Exception as exc:
            fut.set_exception(exc)
            fut.exception()  # retrieved: no "never retrieved" warning without waiters
            raise
        finally:
            del self._pending[key]
        fut.set_result(result)
        return result

    def __len__(self) -> int:
        return len(self._pending)
