"""The labelled forms of the domain packs and of formasaurus, parsed by the crawler's
form extractor (``formhunter.forms``) into the ``Form`` records the critic judges in
a crawl, so that the models train on exactly what they will see.

The packs' files and their layout are read by ``classifiers.datasets`` (which
imports nothing from formhunter); the loaders that turn a stored form's HTML into a
``Form`` live here, on the crawler's side, with the extractor they need.
"""

from __future__ import annotations

import gzip
import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import lxml.html
import pandas as pd

from classifiers.datasets import (
    FORMASAURUS_FILE,
    OTHER,
    OTHER_PACK,
    domains_root,
    iter_packs,
    load_pack,
    read_jsonl,
    real_files,
)
from formhunter.exceptions import UsageError
from formhunter.forms import extract_forms
from formhunter.model import Form

__all__ = ["form_from_html", "load_formasaurus", "load_pack_forms", "load_real_forms"]

log = logging.getLogger(__name__)


def _record_form(rec: dict[str, Any], url: str, dropped: list[str], n: int) -> Form | None:
    """The form of a labelled record, or None with the reason added to ``dropped``
    (record ``n``, 1-based): no ``html``, ``html`` not text, or no <form> in it."""
    html = rec.get("html")
    if not isinstance(html, str) or not html.strip():
        dropped.append(f"#{n} (no html)" if html is None or html == ""
                       else f"#{n} (html is {type(html).__name__}, not text)")  # fmt: skip
        return None
    form = form_from_html(html, url, str(rec.get("context", "")))
    if form is None:
        dropped.append(f"#{n} (no <form> in its html)")
    return form


def _report_dropped(path: Path, dropped: list[str]) -> None:
    """One warning per file that had records dropped, naming them."""
    if dropped:
        more = f" and {len(dropped) - 10} more" if len(dropped) > 10 else ""
        log.warning("%s: %d labelled record(s) dropped: %s%s", path, len(dropped),
                    ", ".join(dropped[:10]), more)  # fmt: skip


def form_from_html(html: str, url: str = "", context: str = "") -> Form | None:
    """Parse one stored form's HTML into a ``Form`` (its first <form>), or None."""
    if not html or not html.strip():
        return None
    try:
        root = lxml.html.fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return None
    forms = extract_forms(root, url or "http://localhost/", page_url=url or "http://localhost/")
    if not forms:
        return None
    form = forms[0]
    if context:
        form.context = context
    return form


def load_pack_forms(
    names: Iterable[str] | None = None, root: Path | str | None = None
) -> pd.DataFrame:
    """Labelled forms of the given packs (default all) plus ``_other``, one row per form.

    Columns: site, url, title, lang, kind, label, searchable, pack, form (a parsed
    ``Form``), site_name, nav, real (False: these are the curated forms), source.
    Rows whose HTML holds no form are dropped.
    """
    base = domains_root(root)
    chosen = list(names) if names is not None else iter_packs(base)
    rows: list[dict[str, Any]] = []
    packs = [*chosen, OTHER_PACK] if (base / OTHER_PACK).is_dir() else list(chosen)
    for name in packs:
        pack = load_pack(name, base)
        dropped: list[str] = []
        for n, rec in enumerate(pack.forms, 1):
            url = str(rec.get("url", ""))
            form = _record_form(rec, url, dropped, n)
            if form is None:
                continue
            label = str(rec.get("label") or (OTHER if name == OTHER_PACK else name))
            rows.append(
                {
                    "site": str(rec.get("site") or url),
                    "url": url,
                    "title": str(rec.get("title", "")),
                    "lang": str(rec.get("lang", "")),
                    "kind": str(rec.get("kind", "")),
                    "label": label,
                    "searchable": bool(rec.get("searchable", True)),
                    "pack": name,
                    "form": form,
                    "site_name": str(rec.get("site_name") or ""),
                    "nav": _nav_text(rec.get("nav")),
                }
            )
        _report_dropped(base / name / "forms.jsonl", dropped)
    return pd.DataFrame(rows, columns=_COLUMNS).assign(real=False, source="")


_COLUMNS = [
    "site", "url", "title", "lang", "kind", "label", "searchable", "pack", "form",
    "site_name", "nav",
]  # fmt: skip


def _nav_text(value: Any) -> str:
    if isinstance(value, list):
        return " | ".join(str(v) for v in value)
    return str(value or "")


def _source_text(value: Any) -> str:
    if isinstance(value, dict):
        keys = ("kind", "repo", "package", "path", "commit", "version", "licence")
        return " ".join(f"{k}={value[k]}" for k in keys if value.get(k))
    return str(value or "")


def load_real_forms(root: Path | str | None = None) -> pd.DataFrame:
    """The real labelled forms (``real_files``), one row per form, searchable or not.

    Columns: those of ``load_pack_forms`` (``real`` True, ``source`` the provenance as
    one string, ``key`` "<pack>/<file>:<line>"). A record without a URL gets
    ``http://<site>/`` so that the model still sees the site's host. Rows whose HTML
    holds no form are dropped.
    """
    base = domains_root(root)
    rows: list[dict[str, Any]] = []
    for path in real_files(base):
        pack = path.parent.name
        dropped: list[str] = []
        for i, rec in enumerate(read_jsonl(path)):
            site = str(rec.get("site") or "")
            url = str(rec.get("url") or (f"http://{site}/" if site else ""))
            form = _record_form(rec, url, dropped, i + 1)
            if form is None:
                continue
            label = str(rec.get("label") or (OTHER if pack == OTHER_PACK else pack))
            rows.append(
                {
                    "site": site or url, "url": url, "title": str(rec.get("title", "")),
                    "lang": str(rec.get("lang", "")), "kind": str(rec.get("kind", "")),
                    "label": label, "searchable": bool(rec.get("searchable", True)),
                    "pack": pack, "form": form,
                    "site_name": str(rec.get("site_name") or ""),
                    "nav": _nav_text(rec.get("nav")),
                    "source": _source_text(rec.get("source")),
                    "key": f"{pack}/{path.name}:{i}",
                }
            )  # fmt: skip
        _report_dropped(path, dropped)
    return pd.DataFrame(rows, columns=[*_COLUMNS, "source", "key"]).assign(real=True)


def load_formasaurus(path: Path | str | None = None) -> pd.DataFrame:
    """The formasaurus forms (data/formasaurus/forms.jsonl.gz), one row per annotated form.

    Columns: site, url, title, form_index, type, searchable (type == "s"), html,
    form (a parsed ``Form``).
    """
    src = Path(path) if path is not None else FORMASAURUS_FILE
    if not src.is_file():
        raise UsageError(f"{src} is missing; run scripts/extract_formasaurus.py")
    rows: list[dict[str, Any]] = []
    with gzip.open(src, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            form = form_from_html(rec["html"], rec["url"], rec.get("context", ""))
            if form is None:
                continue
            form.index = int(rec["form_index"])
            rec["form"] = form
            rec["searchable"] = rec["type"] == "s"
            rows.append(rec)
    cols = ["site", "url", "title", "form_index", "type", "searchable", "html", "form"]
    return pd.DataFrame(rows)[cols]
