"""The fetch stage: async HTTP with robots.txt, politeness and an SSRF guard.

``Fetcher`` (``fetch.http``) is what the engine uses; ``FetchSettings``
(``fetch.settings``) configures it. See each module for the exact contracts.
"""

from formhunter.config import DEFAULT_USER_AGENT, FetchSettings
from formhunter.fetch.http import Fetcher, FetchResult, FetchStats, normalize_url

__all__ = [
    "DEFAULT_USER_AGENT",
    "FetchResult",
    "FetchSettings",
    "FetchStats",
    "Fetcher",
    "normalize_url",
]
