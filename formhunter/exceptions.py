"""Every exception formhunter raises on purpose, in one place.

``FormhunterError`` is the root: the command line turns any of them into a
clean message and exit code 2 (usage) or 1 (run failed). Failures on a single
URL are never raised out of the engine; they are recorded and counted.

The hierarchy builds on the classifiers package's (``classifiers.exceptions``,
which imports nothing from formhunter): ``FormhunterError`` is its root,
``UsageError`` its ``DataError`` and ``ModelError`` its ``ModelError``, so that
``except FormhunterError`` / ``except UsageError`` / ``except ModelError`` catch
what the classifiers raise (a malformed pack is a usage error, exit code 2).
"""

from classifiers.exceptions import ClassifierError, DataError, ModelError

__all__ = [
    "CatalogueError", "ConfigError", "FetchError", "ForbiddenAddress", "FormhunterError",
    "ModelError", "NotConfigured", "ParseError", "ProxyUnreachable", "RenderError",
    "RenderUnavailable", "SchemaVersionError", "StateFormatError", "UsageError",
]  # fmt: skip

#: Base of all formhunter errors (and of the classifiers'); ``exit_code`` 1.
FormhunterError = ClassifierError
#: A flag, argument or input file is wrong; exit code 2.
UsageError = DataError


class ConfigError(UsageError):
    """A settings file or value is invalid, or names an unknown component."""


class NotConfigured(FormhunterError):
    """A component is switched off by the settings (the engine logs and skips it)."""


class CatalogueError(FormhunterError):
    """The catalogue file cannot be used (unreadable, locked, corrupt)."""


class SchemaVersionError(CatalogueError):
    """The catalogue was written by a newer, unknown schema version."""


class StateFormatError(CatalogueError, ValueError):
    """A learner's saved state is in an older format (a pickle, never read) or is
    another learner's: the learner relearns."""


class FetchError(FormhunterError):
    """A single fetch failed; carries a short ``kind`` used for counting."""

    def __init__(self, kind: str, message: str = "") -> None:
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind = kind


class ProxyUnreachable(FormhunterError):
    """The configured HTTP proxy does not answer."""


class ForbiddenAddress(FetchError):
    """The host resolves to a loopback/private/link-local/multicast address (SSRF guard)."""

    def __init__(self, message: str = "") -> None:
        super().__init__("forbidden-address", message)


class ParseError(FormhunterError):
    """A document could not be parsed at all (empty or not markup)."""


class RenderUnavailable(NotConfigured):
    """No usable browser for rendering; the crawl goes on without it."""


class RenderError(FetchError):
    """Rendering one page failed (kind ``render-timeout`` or ``render-failed``);
    the engine keeps the statically parsed page."""


class ClusterError(FormhunterError):
    """A cluster crawl could not start, join its Ray cluster, or keep a shard alive."""
