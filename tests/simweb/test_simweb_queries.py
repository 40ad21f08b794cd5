"""The simulated web answers form submissions: database forms give results that depend
on the query, static forms the same page whatever is asked; truth says which."""

from __future__ import annotations

from urllib.parse import urlencode

from formhunter.simweb import SimWeb
from formhunter.simweb.results import backend, holds
from formhunter.simweb.sites import item_title
from tests.simweb_helpers import parse_links


def _find(web: SimWeb, kind: str, want: str) -> tuple[object, object]:
    for site in web.sites:
        for f in site.forms:
            if f.kind == kind and backend(site, f) == want and f.method == "GET":
                return site, f
    raise AssertionError(f"no {kind} form with backend {want}")


def _submit(web: SimWeb, f: object, **values: str) -> str:
    action = f.action.split("?", 1)[0]  # type: ignore[attr-defined]
    return f"{action}?{urlencode(values)}"


def test_database_forms_answer_with_matching_items_and_pages(simweb_small: SimWeb) -> None:
    web = simweb_small
    site, f = _find(web, "domain_simple", "database")
    name = f.fields[0].name  # type: ignore[attr-defined]
    every = web.fetch(_submit(web, f, **{name: ""}))
    assert every.status == 200 and b"Search results" in every.body
    # a word of an item's title finds it
    s = next(k for k, sec in enumerate(site.sections) if sec.topic == f.domain)  # type: ignore
    word = max(item_title(site, s, 0).split(), key=len).lower()
    hit = web.fetch(_submit(web, f, **{name: word}))
    none = web.fetch(_submit(web, f, **{name: "zqxjvbnmq"}))
    assert none.status == 200 and none.body != hit.body

    def links(resp: object) -> set[str]:
        return {u for u, _ in parse_links(resp.body, resp.url)}  # type: ignore[attr-defined]

    assert links(none) <= links(every)  # nonsense: the frame and no result item
    assert site.url_of(("item", s, 0)) in links(hit) - links(none)
    # several pages of results, the second differing from the first
    second = web.fetch(_submit(web, f, **{name: "", "page": "2"}))
    assert second.status == 200 and second.body != every.body
    assert web.fetch(_submit(web, f, **{name: word})).body == hit.body  # deterministic
    assert holds(site, f) == f.domain  # type: ignore[attr-defined]


def test_static_forms_answer_the_same_page_whatever_is_asked(simweb_small: SimWeb) -> None:
    web = simweb_small
    site, f = _find(web, "site_search", "static")
    name = f.fields[0].name  # type: ignore[attr-defined]
    bodies = {web.fetch(_submit(web, f, **{name: q})).body for q in ("cars", "zzqx", "")}
    assert len(bodies) == 1 and holds(site, f) == ""


def test_truth_has_backend_and_holds(simweb_small: SimWeb) -> None:
    rows = list(simweb_small.truth().forms())
    backends = {r["backend"] for r in rows}
    assert {"database", "site", "static", ""} <= backends
    for r in rows:
        assert (r["backend"] == "") == (r["method"] != "GET")
        if r["backend"] == "database":
            assert r["holds"] == r["domain"]


def test_pages_without_a_query_are_unchanged(simweb_small: SimWeb) -> None:
    web = simweb_small
    _, f = _find(web, "domain", "database")
    action = f.action.split("?", 1)[0]  # type: ignore[attr-defined]
    plain = web.fetch(action)
    page = web.page(action)
    # an action path is whatever it was before: a page of the site or a 404
    assert (page is not None and page.kind != "missing") == (plain.status == 200)
