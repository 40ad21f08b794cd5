"""The whole page each real labelled form sits on: its title and visible text, for the
critic's page evidence (issue 24).

    python scripts/realforms/page_texts.py [--mirrors /work/.mirror] \
        [--out data/realforms/pages.jsonl.gz]

For every record of ``domains/*/real*.jsonl`` the page named by its ``source`` is read
again (formasaurus: the installed package's ``data/html``; a GitHub record: ``git show
COMMIT:PATH`` in a fetched snapshot, ``HEAD`` when that commit is not in it; a VCR
cassette ``PATH#N``) and parsed with the crawler's ``parse_page``; the output holds one
line per record found: {"key": "<pack>/<file>:<line>", "site", "url", "title", "text"}
(the provenance and licence are the record's, which ``key`` names) with at
most ``MAX_CHARS`` characters of text (what ``classifiers.page_classifier.page_text``
reads). Records whose page cannot be had (the excerpts of silverfoxy/JSCryptoMinerStudy,
a repository not fetched) are left out; the trainer then reads the record's own title,
site name, navigation and nearby text instead (``formhunter.trainers.context``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extract_b import cassette

from classifiers.datasets import read_jsonl, real_files
from formhunter.parse import parse_page

MAX_CHARS = 50_000
OUT = Path(__file__).resolve().parents[2] / "data" / "realforms" / "pages.jsonl.gz"


def _git(gitdir: Path, commit: str, path: str) -> bytes | None:
    for rev in (commit, "HEAD"):
        out = subprocess.run(["git", "--git-dir", str(gitdir), "show", f"{rev}:{path}"],
                             capture_output=True)  # fmt: skip
        if out.returncode == 0:
            return out.stdout
    return None


def page_bytes(source: dict, mirrors: Path) -> bytes | None:
    """The saved page of a record's ``source``, or None when it cannot be had here."""
    path = str(source.get("path") or "")
    n = None
    if "#" in path:
        path, tail = path.rsplit("#", 1)
        n = int(tail)
    if source.get("package") == "formasaurus":
        import formasaurus

        f = Path(formasaurus.__file__).parent / path.removeprefix("formasaurus/")
        raw = f.read_bytes() if f.is_file() else None
    elif source.get("repo"):
        gitdir = mirrors / str(source["repo"]).replace("/", "+") / "repo"
        if str(source["repo"]) == "silverfoxy/JSCryptoMinerStudy" or not gitdir.is_dir():
            return None
        raw = _git(gitdir, str(source.get("commit") or "HEAD"), path)
    else:
        return None
    if raw is None:
        return None
    if n is not None:
        return cassette(raw)[n][1]
    if path.endswith(".html.ts"):
        raw = raw[raw.index(b"`") + 1 : raw.rindex(b"`")]
    return raw


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args()
    found = missing = 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    cache: dict[tuple[str, str], dict] = {}
    with gzip.open(args.out, "wt", encoding="utf-8") as out:
        for f in real_files():
            rel = f"{f.parent.name}/{f.name}"
            for i, rec in enumerate(read_jsonl(f)):
                src = rec.get("source") or {}
                key = (str(src.get("repo") or src.get("package")), str(src.get("path")))
                if key not in cache:
                    raw = page_bytes(src, args.mirrors)
                    if raw is None:
                        cache[key] = {}
                    else:
                        page = parse_page(rec.get("url") or f"http://{rec['site']}/", raw)
                        cache[key] = {"title": page.title, "text": page.text[:MAX_CHARS]}
                got = cache[key]
                if not got:
                    missing += 1
                    continue
                found += 1
                out.write(json.dumps({"key": f"{rel}:{i}", "site": rec["site"],
                                      "url": rec.get("url", ""), **got},
                                     ensure_ascii=False) + "\n")  # fmt: skip
    print(f"{found} records with their whole page, {missing} without -> {args.out}")


if __name__ == "__main__":
    main()
