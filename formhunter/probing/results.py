"""Reading result pages: their signature, their result items, the count they report,
and the verdict on a form from all its submissions.

Evidence any site gives, not a generator's layout:

* a result page's **signature** is a hash of the set of its links, leaving out links
  back to the form's action (pagination, "search again" links carry the query);
* its **result items** are its links that the control page (the nonsense query's
  answer) does not have: the site's frame is on both, the answers only on one; its
  **result text** the words the control page does not have (hits' titles, snippets);
* its **reported count** is a number the text puts next to "results", "matches",
  "items", ... or after "of" ("Showing 1-10 of 37");
* a form **answers** queries when its answers differ (two signatures or more) and some
  answer lists items; it is **static** when every answer is the same page; else the
  evidence is too thin (**unknown**: fewer than two answers, or answers that differ
  without any result item).
"""

from __future__ import annotations

import hashlib
import operator
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import reduce
from urllib.parse import urlsplit

from formhunter.model import Page

_COUNT = re.compile(
    r"(?:\bof\s+(?:about\s+)?(\d[\d,.]*))|(?:(\d[\d,.]*)\s+(?:results?|matches|items|hits|records"
    r"|titles|listings|offers|entries|documents|products|jobs|vehicles|cars|books|flights|hotels"
    r"|properties|films|movies|albums)\b)",
    re.IGNORECASE,
)

ANSWERS, STATIC, UNKNOWN = "answers", "static", "unknown"


def _strip(url: str) -> str:
    return url.split("#", 1)[0]


def _same_place(url: str, action: str) -> bool:
    a, b = urlsplit(url), urlsplit(action)
    return (a.hostname or "") == (b.hostname or "") and (a.path or "/") == (b.path or "/")


@dataclass(slots=True)
class Answer:
    """One submission and what its page showed (``links``: (url, anchor) of the page)."""

    kind: str
    input: str
    value: str
    url: str
    status: int = 0
    error: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)
    text: str = ""
    signature: str = ""
    n_items: int = 0
    items: list[str] = field(default_factory=list)  # the anchors of the result items
    result_text: str = ""  # the page's words beyond the control page's
    reported: int | None = None
    topic_score: float | None = None

    @property
    def ok(self) -> bool:
        return not self.error and 200 <= self.status < 300


def read_page(answer: Answer, page: Page, action: str) -> None:
    """Fill ``answer``'s links, text, signature and reported count from its page."""
    answer.links = [(_strip(x.url), x.anchor) for x in page.links
                    if not _same_place(x.url, action)]  # fmt: skip
    answer.text = page.text
    urls = sorted({u for u, _ in answer.links})
    answer.signature = hashlib.sha1("\n".join(urls).encode()).hexdigest()[:16]
    answer.reported = reported_count(page.text)


def reported_count(text: str) -> int | None:
    """The largest result count the text states, or None."""
    best: int | None = None
    for m in _COUNT.finditer(text[:20_000]):
        raw = (m.group(1) or m.group(2) or "").replace(",", "").replace(".", "")
        if raw.isdigit():
            n = int(raw)
            best = n if best is None else max(best, n)
    return best


def mark_items(answers: Sequence[Answer]) -> None:
    """Set each answer's result items: its links the control page does not have (when
    there is no control answer, the links every answer has are the frame)."""
    ok = [a for a in answers if a.ok]
    control = next((a for a in ok if a.kind == "control"), None)
    if control is not None:
        frame = {u for u, _ in control.links}
        words = Counter(control.text.split())
    elif len(ok) >= 2:
        frame = set.intersection(*({u for u, _ in a.links} for a in ok))
        words = reduce(operator.and_, (Counter(a.text.split()) for a in ok))
    else:
        frame, words = set(), Counter()
    for a in ok:
        a.result_text = " ".join((Counter(a.text.split()) - words).elements())
        seen: dict[str, str] = {}
        for u, anchor in a.links:
            if u not in frame and u not in seen:
                seen[u] = anchor
        a.items = [t for t in seen.values() if t]
        a.n_items = len(seen)


@dataclass(slots=True)
class Verdict:
    """What the submissions of one form show."""

    verdict: str
    inputs: list[str]
    results_estimate: int | None
    note: str = ""


def judge(answers: Sequence[Answer]) -> Verdict:
    """The verdict on a form from its answers (module doc); ``mark_items`` first."""
    ok = [a for a in answers if a.ok]
    if len(ok) < 2:
        why = next((a.error for a in answers if a.error), "") or "fewer than two answers"
        return Verdict(UNKNOWN, [], None, why)
    signatures = {a.signature for a in ok}
    estimate = max((a.reported for a in ok if a.reported is not None), default=None)
    if estimate is None:
        estimate = max((a.n_items for a in ok if a.kind != "control"), default=0) or None
    if len(signatures) == 1:
        return Verdict(STATIC, [], None, f"the same page for {len(ok)} different queries")
    base = next((a for a in ok if a.kind == "empty"), None)
    ref = base.signature if base is not None else ok[0].signature
    inputs = sorted({a.input for a in ok if a.input and a.signature != ref})
    if not any(a.n_items for a in ok if a.kind != "control"):
        return Verdict(UNKNOWN, inputs, None, "answers differ but list no result items")
    return Verdict(ANSWERS, inputs, estimate)
