"""Argument types shared by the commands: every numeric flag is finite and in range.

Not a command itself (``formhunter.cli.COMMANDS`` does not list it). A bad value is a
usage error (exit 2) naming the flag: ``--min-delay nan``, ``--random-state -1`` or
``2**70`` are refused before anything runs. The bounds are the settings' own
(``setting_values.MAX_INT``, ``setting_values.MAX_FLOAT``).
"""

from __future__ import annotations

import argparse
import math

from formhunter.setting_values import MAX_FLOAT, MAX_INT


def count(text: str, least: int = 0) -> int:
    """A whole number from ``least`` to ``setting_values.MAX_INT``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not least <= value <= MAX_INT:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range ({least} to {MAX_INT:,})")
    return value


def positive(text: str) -> int:
    """A whole number from 1 to ``setting_values.MAX_INT``."""
    return count(text, least=1)


def number(text: str) -> float:
    """A finite number from 0 to ``setting_values.MAX_FLOAT`` (nan, inf, negatives refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or not 0 <= value <= MAX_FLOAT:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range (0 to {MAX_FLOAT:g})")
    return value
