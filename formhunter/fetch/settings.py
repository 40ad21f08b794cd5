"""The fetch stage's settings: ``FetchSettings`` lives in config.py with every other
setting (one default each); its names are kept here for the fetch package."""

from __future__ import annotations

from formhunter.config import DEFAULT_USER_AGENT, ROBOTS_TOKEN, FetchSettings

__all__ = ["DEFAULT_USER_AGENT", "ROBOTS_TOKEN", "FetchSettings"]
