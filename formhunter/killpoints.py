"""A test hook for the reliability suite: ``FORMHUNTER_KILL_AT=POINT[:N[:SIG]]`` makes
this process send itself signal SIG (KILL by default; TERM, INT or HUP test the clean
stop) the N-th time (default 1) the crawl reaches ``POINT``.

Points: ``start-up`` (the run row is committed, its seeds not yet), ``mid-batch``
(a page of a batch recorded, the rest not), ``learn`` (a learner observed a page),
``commit`` (every row of a commit point written, the transaction not committed),
``finish`` (the crawl's loop ended; the learners not saved, the run not yet marked);
``judge-worker`` (a ``formhunter judge`` worker is about to judge a batch; each worker
counts its own).
Unset (the normal case) it costs one comparison per call.
"""

from __future__ import annotations

import os
import signal

POINTS = frozenset({"start-up", "mid-batch", "learn", "commit", "finish", "judge-worker"})


SIGNALS = {"KILL": signal.SIGKILL, "TERM": signal.SIGTERM, "INT": signal.SIGINT,
           "HUP": signal.SIGHUP}  # fmt: skip


def _target() -> tuple[str, int, signal.Signals] | None:
    spec = os.environ.get("FORMHUNTER_KILL_AT", "")
    if not spec:
        return None
    point, _, rest = spec.partition(":")
    n, _, sig = rest.partition(":")
    if point not in POINTS or (n and not n.isdigit()) or (sig and sig not in SIGNALS):
        raise ValueError(f"FORMHUNTER_KILL_AT={spec!r}: POINT[:N[:SIG]], POINT one of "
                         f"{sorted(POINTS)}, SIG one of {sorted(SIGNALS)}")  # fmt: skip
    return point, int(n or 1), SIGNALS[sig or "KILL"]


_TARGET = _target()
_hits = 0


def reached(point: str) -> None:
    """Called by the crawl at ``point``; kills the process when it is the target."""
    global _hits
    if _TARGET is None or point != _TARGET[0]:
        return
    _hits += 1
    if _hits == _TARGET[1]:
        os.kill(os.getpid(), _TARGET[2])
