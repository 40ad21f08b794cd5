"""Every setting has one default, in config.py, and is documented there (README.md:
"Every section and key is documented in `formhunter/config.py`"): each section's
class docstring names each of its keys as ``key``."""

from __future__ import annotations

import dataclasses
import inspect

from formhunter.config import Settings


def test_every_setting_is_documented_in_its_section() -> None:
    missing = []
    for section in dataclasses.fields(Settings):
        cls = type(getattr(Settings(), section.name))
        doc = inspect.getdoc(cls) or ""
        missing += [f"[{section.name}] {f.name}" for f in dataclasses.fields(cls)
                    if f"``{f.name}``" not in doc]  # fmt: skip
    assert not missing, "settings not documented in config.py: " + ", ".join(missing)


def test_component_factories_have_no_defaults_of_their_own() -> None:
    """The build context (``strategies.build``) fills domain, settings and random_state
    from config.py; a factory default would be a second default."""
    from formhunter import registry
    from formhunter.strategies import load_component_modules

    load_component_modules()
    twice = []
    for kind, factories in registry._FACTORIES.items():
        for name, factory in factories.items():
            for p in inspect.signature(factory).parameters.values():
                if p.name in ("domain", "settings", "random_state") and p.default is not p.empty:
                    twice.append(f"{kind}/{name}: {p.name}={p.default!r}")
    assert not twice, twice
