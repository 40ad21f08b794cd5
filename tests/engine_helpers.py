"""Test helpers for crawls through the loopback simulated-web proxy."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from formhunter.catalogue import Catalogue
from formhunter.config import Settings, load_settings
from formhunter.engine import CrawlResult, Engine
from formhunter.simweb import ProxyHandle

#: Fetch settings of a test crawl: no politeness delay, short timeouts, no retries.
LOOPBACK_FETCH: dict[str, Any] = {
    "min_delay": 0.0, "concurrency": 16, "retries": 0, "read_timeout": 0.5,
    "total_timeout": 3.0, "max_bytes": 1_000_000,
}  # fmt: skip


def loopback_settings(proxy: ProxyHandle, db: Path, test: dict[str, dict[str, Any]],
                      **sections: dict[str, Any]) -> Settings:  # fmt: skip
    """Settings of a test crawl through ``proxy`` into catalogue ``db``: ``test`` the
    test module's sections, ``sections`` one test's (each merged over the ones before)."""
    base: dict[str, dict[str, Any]] = {"crawl": {"db": str(db)},
                                       "fetch": {**LOOPBACK_FETCH, "proxy": proxy.url}}  # fmt: skip
    for k, v in [*test.items(), *sections.items()]:
        base.setdefault(k, {}).update(v)
    return load_settings(None, base)


def crawl_once(settings: Settings, seeds: Sequence[str]) -> tuple[CrawlResult, Catalogue]:
    """Run one crawl to its end; the result and the (open) catalogue."""
    cat = Catalogue(settings.crawl.db)
    result = asyncio.run(Engine(settings, cat, seeds=seeds).run())
    return result, cat
