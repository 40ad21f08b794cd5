"""List candidate pages of the local sources (one TSV row each: page ref, url, title,
text length, first words) so that they can be labelled by hand into specs/*.tsv.

    survey.py SOURCE > candidates.tsv

SOURCE is one of the names in ``SOURCES`` (collect.py); pages are read as collect.py
reads them, URLs come from the source's own index where it has one.
"""

from __future__ import annotations

import sys

from collect import SOURCES, iter_source, parse


def main() -> int:
    name = sys.argv[1]
    src = SOURCES[name]
    for ref, url in iter_source(src):
        try:
            page = parse(src, ref, url)
        except Exception as exc:
            print(f"{ref}\t{url}\tERROR {exc}", file=sys.stderr)
            continue
        words = page.text[:160].replace("\t", " ")
        print(f"{ref}\t{page.url}\t{page.title[:100]}\t{len(page.text)}\t{words}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
