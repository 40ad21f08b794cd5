"""Reading a settings file (``read_settings_file``), checking and merging setting values
(``formhunter.config``'s settings, from a TOML file, flags or a stored run's config):
types from the sections' hints, unknown sections and keys, numeric ranges. The defaults
and their documentation stay in ``formhunter.config``."""

from __future__ import annotations

import dataclasses
import math
import tomllib
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

from classifiers.inputs import read_regular
from formhunter.exceptions import ConfigError, UsageError

S = TypeVar("S")

#: Every numeric setting is finite, not negative and at most its bound (``_NUMBER_MAX``,
#: else these): nan, inf, -1 or 2**70 is a ConfigError naming the key, never a crawl
#: without politeness, one that never ends, or a traceback.
MAX_INT = 2**31 - 1
MAX_FLOAT = 1e7  # seconds: about 115 days
_NUMBER_MAX: dict[str, float] = {
    "crawl.random_state": 2**32 - 1,  # numpy's seeds
    "fetch.concurrency": 10_000, "fetch.per_host_connections": 1_000,
    "fetch.min_delay": 3600.0, "fetch.max_crawl_delay": 3600.0,
    "frontier.levels": 100, "tres.hidden": 4096,
}  # fmt: skip


def check_ranges(section: str, obj: object, *, at_least_one: tuple[str, ...] = ()) -> None:
    """A settings section's own check: no numeric setting of ``obj`` is negative (as from
    a file), and those named are at least 1; a ConfigError names the first that is not."""
    for f in dataclasses.fields(obj):  # type: ignore[arg-type]
        v = getattr(obj, f.name)
        if isinstance(v, int | float) and not isinstance(v, bool) and v < 0:
            raise ConfigError(f"{section}: {f.name} must not be negative")
    for name in at_least_one:
        if getattr(obj, name) < 1:
            raise ConfigError(f"{section}: {name} must be at least 1")


def _number(value: float, key: str, where: str) -> None:
    """ConfigError unless ``value`` is finite and within [0, its bound]."""
    bound = _NUMBER_MAX.get(key, MAX_INT if isinstance(value, int) else MAX_FLOAT)
    if not math.isfinite(value) or not 0 <= value <= bound:
        top = f"{int(bound):,}" if bound == int(bound) else f"{bound:g}"
        raise ConfigError(f"{where}: {value!r} is out of range (a number from 0 to {top})")


def _coerce(value: Any, hint: Any, where: str) -> Any:
    key = where.rsplit(": ", 1)[-1]
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _coerce(value, arg, where)
            except ConfigError as exc:
                errors.append(str(exc))
        raise ConfigError(errors[0] if errors else f"{where}: bad value {value!r}")
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        inner = typing.get_args(hint)[0]
        return tuple(_coerce(v, inner, where) for v in value)
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            _number(value, key, where)
            return value
        raise ConfigError(f"{where}: expected an integer, got {value!r}")
    if hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            _number(float(value), key, where)
            return float(value)
        raise ConfigError(f"{where}: expected a number, got {value!r}")
    if hint is str:
        if isinstance(value, str):
            return value
        raise ConfigError(f"{where}: expected a string, got {value!r}")
    return value


def merge(base: S, data: dict[str, Any], *, source: str) -> S:
    """``base`` (settings: a dataclass of section dataclasses) with ``data``'s
    {section: {key: value}} checked (known section and key, type, range) and applied;
    a ``ConfigError`` names what ``source`` got wrong."""
    sections = {f.name: typing.get_type_hints(type(base))[f.name]
                for f in dataclasses.fields(base)}  # type: ignore[arg-type]
    changes: dict[str, Any] = {}
    for section, values in data.items():
        if section not in sections:
            raise ConfigError(
                f"{source}: unknown section [{section}] (known: {', '.join(sections)})"
            )
        if not isinstance(values, dict):
            raise ConfigError(f"{source}: [{section}] must be a table")
        cls = sections[section]
        hints = typing.get_type_hints(cls)
        known = {f.name for f in dataclasses.fields(cls)}
        kw = {}
        for key, value in values.items():
            if key not in known:
                raise ConfigError(
                    f"{source}: unknown key {section}.{key} (known: {', '.join(sorted(known))})"
                )
            kw[key] = _coerce(value, hints[key], f"{source}: {section}.{key}")
        if kw:
            try:
                changes[section] = dataclasses.replace(getattr(base, section), **kw)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"{source}: [{section}]: {exc}") from exc
    return dataclasses.replace(base, **changes) if changes else base  # type: ignore[type-var]


def read_settings_file(config_file: str | Path) -> dict[str, Any]:
    """The tables of a TOML settings file (at most 1 MB, a regular file, UTF-8); a
    ``ConfigError`` says what is wrong with it."""
    path = Path(config_file)
    try:
        text = read_regular(path, 1 << 20, "settings file").decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"the settings file {path} is not UTF-8 text: {exc}") from exc
    except UsageError as exc:  # missing, not a regular file (a FIFO), over 1 MB
        raise ConfigError(str(exc)) from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
