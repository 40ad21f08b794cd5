"""Completed fetches recorded in the order their links were handed out, a block at a
time (``crawl.ordered_block``; the engine's module doc): each link is then chosen from
the state the same recorded pages left, however fast each fetch came back."""

from __future__ import annotations

import asyncio
from typing import Any

from formhunter.model import Entry

__all__ = ["Done", "OrderedBlocks"]

#: a completed fetch waiting to be recorded: its entry and its fetch task
Done = tuple[Entry, "asyncio.Task[Any]"]


class OrderedBlocks:
    """Completed fetches held until they can be recorded in hand-out order, ``size``
    at a time (``crawl.ordered_block``; module doc)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.number: dict[asyncio.Task[Any], int] = {}  # hand-out number of each task
        self.done: dict[int, Done] = {}
        self.next_out = 0  # numbers handed out
        self.next_in = 0  # the next number to record

    @property
    def waiting(self) -> int:
        """Completed but not yet recorded."""
        return len(self.done)

    def handed_out(self, task: asyncio.Task[Any]) -> None:
        self.number[task] = self.next_out
        self.next_out += 1

    def arrived(self, task: asyncio.Task[Any], entry: Entry) -> None:
        self.done[self.number.pop(task)] = (entry, task)

    def block(self, starved: bool) -> list[Done]:
        """The next block when all of it completed: ``size`` pages, or fewer when no
        more links are handed out now (``starved``: none ready, the budget is out or
        ``max_in_flight`` are out)."""
        end = min(self.next_in + self.size, self.next_out)
        if end == self.next_in or (end - self.next_in < self.size and not starved):
            return []
        if any(i not in self.done for i in range(self.next_in, end)):
            return []
        return self._take(end)

    def prefix(self) -> list[Done]:
        """The completed pages up to the first still in flight."""
        end = self.next_in
        while end in self.done:
            end += 1
        return self._take(end)

    def _take(self, end: int) -> list[Done]:
        out = [self.done.pop(i) for i in range(self.next_in, end)]
        self.next_in = end
        return out

    def clear(self) -> list[Entry]:
        """Forget everything; the entries completed and not recorded."""
        entries = [entry for entry, _ in self.done.values()]
        self.done.clear()
        self.number.clear()
        return entries
