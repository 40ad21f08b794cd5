"""Extract the annotated forms of the formasaurus corpus into data/formasaurus/.

Reads the package's ``data/index.json`` and HTML pages directly (formasaurus is
not imported) and writes ``forms.jsonl.gz``: one JSON line per annotated form
with site (registered domain), url, page title, form_index (document order),
type (formasaurus code, see ``TYPES``), the form's outer HTML and its context.
Forms marked '-' (skip) or 'X' (not annotated) are left out, as are exact
duplicates within a site.

    .venv/bin/python scripts/extract_formasaurus.py [--source DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import sys
from pathlib import Path

import lxml.html
import tldextract

from formhunter.forms import document_base, extract_forms, norm_space

TYPES = {
    "s": "search",
    "l": "login",
    "r": "registration",
    "p": "password recovery",
    "c": "contact/comment",
    "m": "mailing list",
    "b": "order/add to cart",
    "o": "other",
    "P": "poll",
    "V": "display options",
    "N": "navigation",
    "C": "captcha",
}
SKIP = {"-", "X"}
_PARSER = lxml.html.HTMLParser(encoding="utf-8")


def default_source() -> Path:
    spec = importlib.util.find_spec("formasaurus")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("formasaurus is not installed; pass --source DIR (its data/ folder)")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def extract(source: Path) -> list[dict[str, object]]:
    index = json.loads((source / "index.json").read_text(encoding="utf-8"))
    tld = tldextract.TLDExtract(suffix_list_urls=())
    rows: list[dict[str, object]] = []
    seen: set[tuple[str, str]] = set()
    for path in sorted(index, key=lambda p: int(Path(p).stem) if Path(p).stem.isdigit() else 0):
        info = index[path]
        url = info["url"]
        raw = (source / path).read_bytes()
        root = lxml.html.fromstring(raw, base_url=url, parser=_PARSER)
        forms = extract_forms(root, document_base(root, url), page_url=url)
        types = info["forms"]
        if len(forms) != len(types):
            # formasaurus pairs forms and labels with zip(); so do we
            print(f"{path}: {len(forms)} forms, {len(types)} labels", file=sys.stderr)
        title_el = root.find(".//title")
        title = norm_space(title_el.text_content())[:300] if title_el is not None else ""
        ext = tld(url)
        site = ext.top_domain_under_public_suffix or ext.domain or url
        for form, code in zip(forms, types, strict=False):
            if code in SKIP:
                continue
            key = (site, form.html)
            if key in seen:
                continue
            seen.add(key)
            rows.append(
                {
                    "site": site,
                    "url": url,
                    "title": title,
                    "form_index": form.index,
                    "type": code,
                    "html": form.html,
                    "context": form.context,
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, default=None, help="formasaurus data/ folder")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "data"
                    / "formasaurus")  # fmt: skip
    args = ap.parse_args(argv)
    source = args.source or default_source()
    rows = extract(source)
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "forms.jsonl.gz"
    # mtime=0 keeps the file byte-identical across runs (stable data hash)
    with (
        open(target, "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as gz,
    ):
        for row in rows:
            gz.write((json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n").encode())
    counts: dict[str, int] = {}
    for row in rows:
        counts[str(row["type"])] = counts.get(str(row["type"]), 0) + 1
    print(f"{len(rows)} forms from {len({r['site'] for r in rows})} sites -> {target}")
    print(", ".join(f"{TYPES[k]}={v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
