"""What the page, result, template, transport and truth modules read of a simulated
web: ``WebParts``, a protocol that ``generator.SimWeb`` implements. The generator
imports those modules; they annotate with this protocol instead of ``SimWeb``, so no
import cycle closes, type-only imports included (tests/architecture)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from formhunter.simweb.sites import Key, Site
    from formhunter.simweb.spec import PageSpec, SimResponse
    from formhunter.simweb.weight import Padder


class WebParts(Protocol):
    """A simulated web as its page builders see it (``generator.SimWeb``)."""

    seed: int
    huge_bytes: int
    sites: list[Site]
    padder: Padder | None
    #: directory listings: (directory site, section slug) -> member site indexes
    _dir_members: dict[tuple[int, str], list[int]]
    #: each site's navigation and footer links, built once
    _frames: dict[int, tuple[list[tuple[str, str]], list[tuple[str, str]]]]
    #: form submissions (``results``): GET actions per site, searched records
    _actions: dict[int, dict[tuple[str, str], list[int]]]
    _records: dict[tuple[int, int], list[tuple[int, int, str, frozenset[str]]]]

    def pool(self, topic: str) -> list[str]:
        """Sentences of a topic (``generator.SimWeb.pool``)."""
        ...

    def site_keys(self, site: Site) -> list[Key]:
        """Every key of the site's finite page set (truth order)."""
        ...

    def resolve(self, url: str) -> tuple[Site, int, Key] | None:
        """(site, host index, key) of a URL; None for unknown hosts."""
        ...

    def build(self, site: Site, key: Key, host: int = 0, url: str = "") -> PageSpec:
        """The PageSpec of a key (the single source of HTML and truth)."""
        ...

    def fetch(self, url: str) -> SimResponse:
        """The response to a GET for ``url``, as the proxy serves it."""
        ...


__all__ = ["WebParts"]
