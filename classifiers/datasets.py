"""Labelled data for the form critic: the formasaurus corpus and the domain packs.

Domain packs live in ``domains/<name>/`` at the repository root (override with
the ``FORMHUNTER_DOMAINS`` environment variable or a ``root`` argument):

    pack.toml     name, description, keywords, curated, note, languages
    forms.jsonl   {"site", "url", "title", "lang", "kind", "label", "searchable",
                   "html", "context"} one labelled example form per line
    pages.jsonl   {"site", "url", "title", "text"} topical page texts

    real*.jsonl   REAL labelled forms (``formhunter.trainers.packs.load_real_forms``):
                  the forms.jsonl fields plus "nav" (the site's navigation link
                  texts), "site_name", "real": true and "source" (provenance: repository or package,
                  path, commit or version, licence); "searchable": false marks
                  navigation menus and other near-misses

``_other`` holds searchable forms of other kinds (label "other"), ``_offtopic``
off-topic pages; names starting with "_" are not domains. The curated forms
(forms.jsonl, written by hand) are training data only; every reported figure
is measured on the real forms (see ``classifiers.domain``).

This module reads the packs' files; turning a stored form's HTML into a ``Form``
needs the crawler's form extractor and is done on formhunter's side
(``formhunter.trainers.packs``), which hands the estimators ``FormSample`` items.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from classifiers.exceptions import DataError
from classifiers.form_features import FormSample
from classifiers.inputs import check_regular

__all__ = [
    "FORMASAURUS_FILE",
    "OTHER",
    "OTHER_PACK",
    "REPO_ROOT",
    "Pack",
    "data_hash",
    "domains_root",
    "iter_packs",
    "load_pack",
    "pack_files",
    "read_jsonl",
    "real_files",
    "samples",
]

REPO_ROOT = Path(__file__).resolve().parents[1]
FORMASAURUS_FILE = REPO_ROOT / "data" / "formasaurus" / "forms.jsonl.gz"
#: the label of searchable forms that belong to no domain
OTHER = "other"
OTHER_PACK = "_other"


@dataclass(slots=True)
class Pack:
    """A domain pack as read from disk (forms/pages are the raw JSON records)."""

    name: str
    path: Path
    description: str = ""
    keywords: list[str] = field(default_factory=list)
    languages: list[str] = field(default_factory=list)
    curated: bool = True
    note: str = ""
    forms: list[dict[str, Any]] = field(default_factory=list)
    pages: list[dict[str, Any]] = field(default_factory=list)


def domains_root(root: Path | str | None = None) -> Path:
    """The folder holding domain packs: ``root``, else $FORMHUNTER_DOMAINS, else repo domains/."""
    if root is not None:
        return Path(root)
    env = os.environ.get("FORMHUNTER_DOMAINS")
    return Path(env) if env else REPO_ROOT / "domains"


def iter_packs(root: Path | str | None = None) -> list[str]:
    """Names of the domain packs (folders with a pack.toml, not starting with "_"), sorted."""
    base = domains_root(root)
    if not base.is_dir():
        return []
    return sorted(
        p.name for p in base.iterdir() if not p.name.startswith("_") and (p / "pack.toml").is_file()
    )


#: the largest labelled-data file read (streamed line by line)
MAX_JSONL_BYTES = 1 << 30


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a .jsonl file, one per line ([] when there is no file).
    DataError naming the file and line for a file that is not UTF-8 text (a BOM is
    fine), a line that is not a JSON object, or a path that is not a regular file."""
    if not path.exists():
        return []
    check_regular(path, MAX_JSONL_BYTES, "labelled-data file")
    rows = []
    lineno = 0
    try:
        with path.open(encoding="utf-8-sig") as fh:
            for lineno, line in enumerate(fh, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    row = json.loads(line)
                except (json.JSONDecodeError, RecursionError) as exc:
                    msg = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deep"
                    raise DataError(f"{path}:{lineno}: not valid JSON ({msg})") from None
                if not isinstance(row, dict):
                    raise DataError(f"{path}:{lineno}: expected a JSON object")
                rows.append(row)
    except UnicodeDecodeError:
        raise DataError(f"{path}:{lineno + 1}: not UTF-8 text (a binary file?); one JSON "
                        "object per line is expected") from None
    return rows


def load_pack(name: str, root: Path | str | None = None, *, with_data: bool = True) -> Pack:
    """Read ``domains/<name>/``; DataError when it does not exist or is malformed.

    ``with_data=False`` reads pack.toml only (forms and pages stay empty).
    """
    base = domains_root(root)
    path = base / name
    toml_path = path / "pack.toml"
    if not path.is_dir() or (not toml_path.is_file() and not name.startswith("_")):
        known = ", ".join(iter_packs(base)) or "none"
        raise DataError(
            f"no domain pack {name!r} in {base} (known: {known}); "
            f"create one with: formhunter domains new {name}"
        )
    meta: dict[str, Any] = {}
    if toml_path.is_file():
        try:
            meta = tomllib.loads(toml_path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise DataError(f"{toml_path}: invalid TOML ({exc})") from None
    return Pack(
        name=name,
        path=path,
        description=str(meta.get("description", "")),
        keywords=[str(k) for k in meta.get("keywords", [])],
        languages=[str(k) for k in meta.get("languages", [])],
        curated=bool(meta.get("curated", True)),
        note=str(meta.get("note", "")),
        forms=read_jsonl(path / "forms.jsonl") if with_data else [],
        pages=read_jsonl(path / "pages.jsonl") if with_data else [],
    )


def pack_files(names: Iterable[str] | None = None, root: Path | str | None = None) -> list[Path]:
    """The files a domain model is trained from (for the data hash)."""
    base = domains_root(root)
    chosen = list(names) if names is not None else iter_packs(base)
    out: list[Path] = []
    for n in [*sorted(chosen), OTHER_PACK]:
        out += [p for p in (base / n / "pack.toml", base / n / "forms.jsonl") if p.is_file()]
    return out


def real_files(root: Path | str | None = None) -> list[Path]:
    """The real-form files: ``domains/<pack>/real*.jsonl`` and ``domains/_other/real*.jsonl``."""
    base = domains_root(root)
    out: list[Path] = []
    for n in [*iter_packs(base), OTHER_PACK]:
        out += sorted((base / n).glob("real*.jsonl"))
    return out


def samples(df: pd.DataFrame) -> list[FormSample]:
    """The ``FormSample`` of each row (form, page title, page URL, site name, navigation)."""
    n = len(df)
    site_name = df["site_name"] if "site_name" in df else [""] * n
    nav = df["nav"] if "nav" in df else [""] * n
    return [
        FormSample(f, t, u, str(s or ""), str(v or ""))
        for f, t, u, s, v in zip(df["form"], df["title"], df["url"], site_name, nav, strict=True)
    ]


def data_hash(paths: Iterable[Path]) -> str:
    """sha256 over the named files' bytes (and their names), short."""
    h = hashlib.sha256()
    for p in sorted(Path(x) for x in paths):
        h.update(p.name.encode())
        h.update(p.parent.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]
