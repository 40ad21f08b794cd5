"""Per-page cost of the page classifier (issue 24): CPU seconds per page to score
pages whose visible text is at the 50,000-character cap ``page_text`` reads (the text
of a ~100 KB page or more), for one domain and for all eight.

    bench_page_score.py [N_PAGES] [MODELS_DIR]

Pages: the real pages' texts, repeated up to the cap. Models: the shipped ones
(data/models/page/<domain>/svm-real) unless MODELS_DIR is given. Prints the figures.
"""

from __future__ import annotations

import sys
import time

from classifiers.page_classifier import page_domains, real_pages
from formhunter.model import Page
from formhunter.page_classifiers.text import DomainPageScores, page_classifier_for


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 200
    models = argv[1] if len(argv) > 1 else None
    texts = real_pages()["text"].tolist()
    pages = []
    for i in range(n):
        t = texts[i % len(texts)]
        body = (t + " ") * (50_000 // max(1, len(t)) + 1)
        pages.append(Page(url=f"https://example.org/{i}", final_url="", status=200,
                          site="example.org", title=t[:60], text=body[:50_000]))  # fmt: skip
    domains = page_domains()
    clfs = {d: page_classifier_for(d, "svm", models, real=True) for d in domains}
    for c in clfs.values():  # warm-up: the compiled path and the stem cache
        c.page_scores(pages[:5])
    shared = DomainPageScores(clfs)
    shared(pages[:5])
    runs = [("1 domain (airfare)", lambda: clfs["airfare"].page_scores(pages)),
            (f"{len(domains)} domains, one by one",
             lambda: [clfs[d].page_scores(pages) for d in domains]),
            (f"{len(domains)} domains, page_scores_by_domain (stemmed once)",
             lambda: shared(pages))]  # fmt: skip
    for label, run in runs:
        t0, c0 = time.perf_counter(), time.process_time()
        run()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"{label}: {n} pages of 50,000 characters: {1000 * cpu / n:.2f} ms CPU per page "
              f"({n / wall:.0f} pages/s wall; models {clfs['airfare'].source})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
