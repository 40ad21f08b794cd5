"""The in-memory part of the frontier: N priority queues ("levels") with politeness.

A level is the estimated distance to a relevant form (level 0 = the most
promising band); within a level the highest score goes first and ties go to the
earliest discovered link (``lid``). ``pop`` returns the best link of the first
non-empty level whose host may be contacted now. A link whose host is busy (as
many fetches in flight as allowed) or not yet ready (politeness delay) is
*parked* with its host; when the host becomes ready, its best parked link goes
back into its level. Every link is parked and unparked at most once per host
wake, so the cost stays O(log n) per link and no level starves behind a slow host.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator

from formhunter.model import Entry

__all__ = ["Entry", "Levels", "ReadyIn"]


ReadyIn = Callable[[str], float]


def _never_wait(url: str) -> float:
    return 0.0


class Levels:
    """In-memory levels with host-aware selection.

    ``ready_in(url)`` says in how many seconds the URL's host may be contacted
    (the fetcher's politeness clock); ``per_host`` is the number of fetches one
    host may have in flight.
    """

    def __init__(self, n_levels: int, *, ready_in: ReadyIn = _never_wait, per_host: int = 1):
        if n_levels < 1:
            raise ValueError("n_levels must be at least 1")
        self.n_levels = n_levels
        self.ready_in = ready_in
        self.per_host = per_host
        self.heaps: list[list[tuple[float, int, Entry]]] = [[] for _ in range(n_levels)]
        self.parked: dict[str, list[tuple[int, float, int, Entry]]] = {}
        self.busy: dict[str, int] = {}
        self._wakeups: list[tuple[float, str]] = []
        self._n_parked = 0

    # -- size -------------------------------------------------------------------

    def __len__(self) -> int:
        """Links in memory: queued in levels plus parked."""
        return sum(len(h) for h in self.heaps) + self._n_parked

    @property
    def n_queued(self) -> int:
        """Links in the level queues (not parked)."""
        return sum(len(h) for h in self.heaps)

    @property
    def n_parked(self) -> int:
        return self._n_parked

    def sizes(self) -> list[int]:
        return [len(h) for h in self.heaps]

    def __iter__(self) -> Iterator[Entry]:
        for h in self.heaps:
            for item in h:
                yield item[2]
        for p in self.parked.values():
            for pitem in p:
                yield pitem[3]

    def clear(self) -> None:
        """Forget every queued and parked link (busy hosts stay busy)."""
        self.heaps = [[] for _ in range(self.n_levels)]
        self.parked.clear()
        self._wakeups.clear()
        self._n_parked = 0

    # -- queueing ----------------------------------------------------------------

    def clip(self, level: int) -> int:
        return min(max(int(level), 0), self.n_levels - 1)

    def push(self, entry: Entry) -> None:
        entry.level = self.clip(entry.level)
        score = entry.score if not math.isnan(entry.score) else -math.inf
        heapq.heappush(self.heaps[entry.level], (-score, entry.lid, entry))

    def _park(self, entry: Entry, now: float, wait: float) -> None:
        score = entry.score if not math.isnan(entry.score) else -math.inf
        heap = self.parked.setdefault(entry.host, [])
        heapq.heappush(heap, (entry.level, -score, entry.lid, entry))
        self._n_parked += 1
        if wait > 0:
            heapq.heappush(self._wakeups, (now + wait, entry.host))

    def _wake(self, now: float) -> None:
        while self._wakeups and self._wakeups[0][0] <= now:
            _, host = heapq.heappop(self._wakeups)
            heap = self.parked.get(host)
            free = self.per_host - self.busy.get(host, 0)
            while heap and free > 0:
                _, _, _, entry = heapq.heappop(heap)
                self._n_parked -= 1
                self.push(entry)
                free -= 1
            if heap is not None and not heap:
                del self.parked[host]

    def pop(self, now: float) -> Entry | None:
        """The best ready link (its host becomes busy), or None if none is ready now."""
        self._wake(now)
        for heap in self.heaps:
            while heap:
                entry = heapq.heappop(heap)[2]
                host = entry.host
                if self.busy.get(host, 0) >= self.per_host:
                    self._park(entry, now, 0.0)  # woken by release()
                    continue
                wait = self.ready_in(entry.url)
                if wait > 0:
                    self._park(entry, now, wait)
                    continue
                self.busy[host] = self.busy.get(host, 0) + 1
                return entry
        return None

    def release(self, entry: Entry, now: float) -> None:
        """The fetch of ``entry`` ended (or was abandoned): its host may be woken."""
        host = entry.host
        n = self.busy.get(host, 0) - 1
        if n > 0:
            self.busy[host] = n
        else:
            self.busy.pop(host, None)
        if host in self.parked:
            heapq.heappush(self._wakeups, (now + max(self.ready_in(entry.url), 0.0), host))

    def next_wakeup(self, now: float) -> float | None:
        """Seconds until a parked host is due (0 if one is due), None if none is scheduled."""
        if not self._wakeups:
            return None
        return max(self._wakeups[0][0] - now, 0.0)
