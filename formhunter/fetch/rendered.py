"""What a render gives the crawl back: the rendered page merged with the static parse
(``merge_rendered``), without links a script built to leak the machine's addresses."""

from __future__ import annotations

import re
import urllib.parse

from formhunter.model import Link, Page

#: Text of an ICE candidate (RFC 8839) in a link: a script leaking the machine's addresses.
_ICE_CANDIDATE = re.compile(r"candidate:|\btyp\s+(?:host|srflx|prflx|relay)\b", re.IGNORECASE)


def _leaks_candidate(url: str) -> bool:
    return bool(_ICE_CANDIDATE.search(urllib.parse.unquote_plus(url)))


def merge_rendered(static: Page | None, rendered: Page) -> Page:
    """``rendered`` marked as such: ``Page.rendered``, and ``Form.rendered`` on the
    forms whose signature the static parse did not have. Static forms and links
    the scripts removed are kept (a visitor without scripts sees them). Links a
    script built that carry an ICE candidate (a page leaking the machine's
    addresses through WebRTC) are dropped."""
    rendered.rendered = True
    rendered.links = [lk for lk in rendered.links if not _leaks_candidate(lk.url)]
    if static is None:
        for form in rendered.forms:
            form.rendered = True
        return rendered
    before = {f.signature for f in static.forms}
    after = set()
    for form in rendered.forms:
        sig = form.signature
        form.rendered = sig not in before
        after.add(sig)
    for form in static.forms:
        if form.signature not in after:
            form.index = len(rendered.forms)
            rendered.forms.append(form)
    have = {lk.url for lk in rendered.links}
    for lk in static.links:
        if lk.url not in have:
            have.add(lk.url)
            rendered.links.append(Link(lk.url, lk.anchor, lk.around, -1, lk.nofollow))
    return rendered
