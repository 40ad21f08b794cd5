"""The web page's HTML views and JSON twins through aiohttp's test client, on a real
DuckDB file: filters, form detail, the sandboxed rendering, labels and their token,
the security headers; a crawl's recorded models, a re-judging and the directory."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from aiohttp.test_utils import TestClient, TestServer

from classifiers import persist
from formhunter.catalogue import Catalogue
from formhunter.critics.trained import FormCritic
from formhunter.labels import add_label
from formhunter.rejudge import rejudge
from formhunter.web import FileStore, WebSettings, make_app
from formhunter.web.app import APP_KEY, CSP, TOKEN_COOKIE, TOKEN_HEADER, allowed_hosts

TOKEN = "s3cret-token"
Check = Callable[[TestClient[Any, Any]], Awaitable[None]]


def run_client(db: Path, check: Check, **settings: Any) -> None:
    async def go() -> None:
        app = make_app(WebSettings(store=FileStore(db), token=TOKEN, **settings))
        async with TestClient(TestServer(app)) as client:
            await check(client)

    asyncio.run(asyncio.wait_for(go(), 60))


def stored_labels(db: Path) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT form_id, verdict_ok, true_domain, note FROM form_labels"
                           " ORDER BY labelled_at").fetchall()  # fmt: skip


def test_runs_and_forms_with_filters(small_db: tuple[Path, dict[str, int]]) -> None:
    db, ids = small_db

    async def check(c: TestClient[Any, Any]) -> None:
        runs = (await (await c.get("/api/runs")).json())["runs"]
        assert [(r["run_id"], r["strategy"], r["forms"], r["relevant_forms"]) for r in runs] == [
            (1, "bfs", 3, 1), (2, "ache", 0, 0)]  # fmt: skip
        assert runs[0]["end_reason"] == "budget" and runs[0]["harvest_rate"] == 1.0
        assert runs[0]["sites_relevant"] == 1 and runs[1]["sites_relevant"] == 0
        html = await (await c.get("/")).text()
        assert "bfs" in html and 'href="/runs/1"' in html and "sites w/ form" in html
        assert "sites w/ form" in await (await c.get("/runs/1")).text()
        one = await (await c.get("/api/runs/1")).json()
        assert one["curve"][0] == [0, 0] and one["curve"][-1] == [1, 1]

        async def ids_of(query: str) -> list[int]:
            data = await (await c.get("/api/forms" + query)).json()
            return [f["form_id"] for f in data["forms"]]

        assert await ids_of("") == [ids["book"], ids["login"], ids["evil"]]
        assert await ids_of("?relevant=yes") == [ids["book"]]
        assert await ids_of("?relevant=no&run=1") == [ids["login"], ids["evil"]]
        assert await ids_of("?domain=movie") == [ids["evil"]]
        assert await ids_of("?min_score=0.7") == [ids["book"]]
        assert await ids_of("?site=lib.example&limit=1&offset=1") == [ids["login"]]
        assert await ids_of("?run=2") == []
        bad = await c.get("/api/forms?min_score=high")
        assert bad.status == 400 and "min_score" in (await bad.json())["error"]
        page = await (await c.get("/forms?relevant=yes")).text()
        assert "http://www.lib.example/search" in page  # the page URL is in the table
        assert (await c.get("/runs/99")).status == 404
        assert (await c.get("/api/forms/999")).status == 404

    run_client(db, check)


def test_form_detail_and_sandboxed_rendering(small_db: tuple[Path, dict[str, int]]) -> None:
    db, ids = small_db

    async def check(c: TestClient[Any, Any]) -> None:
        data = await (await c.get(f"/api/forms/{ids['book']}")).json()
        assert [(f["name"], f["type"], f["label"], f["options"]) for f in data["fields"]] == [
            ("title", "text", "Title", []), ("fmt", "select", "Format", ["Book", "DVD"])]
        assert [h["url"] for h in data["path"]] == ["http://www.lib.example/",
                                                    "http://www.lib.example/search"]
        assert data["form"]["page_url"] == "http://www.lib.example/search"
        resp = await c.get(f"/forms/{ids['evil']}")
        html = await resp.text()
        assert 'sandbox=""' in html and "srcdoc=" in html
        frame = html[html.index("srcdoc="):html.index("</iframe>")]
        assert "evil.example" not in frame and "alert" not in frame
        assert "&lt;script" not in frame and "onerror" not in frame
        assert "default-src &#39;none&#39;" in frame and "&lt;input" in frame
        # nothing of the crawled page reaches the page unescaped
        assert "<script>fetch" not in html

    run_client(db, check)


def test_security_headers_everywhere(small_db: tuple[Path, dict[str, int]]) -> None:
    db, ids = small_db

    async def check(c: TestClient[Any, Any]) -> None:
        for url in ("/", "/api/runs", f"/forms/{ids['book']}", "/static/app.js",
                    "/forms/12345", "/labels"):  # fmt: skip
            resp = await c.get(url)
            assert resp.headers["Content-Security-Policy"] == CSP, url
            assert resp.headers["X-Frame-Options"] == "DENY"
            assert resp.headers["X-Content-Type-Options"] == "nosniff"

    run_client(db, check)

    async def go() -> None:  # a server that knows its host answers only to it (rebinding)
        app = make_app(WebSettings(store=FileStore(db), token=TOKEN))
        async with TestClient(TestServer(app)) as c:
            app[APP_KEY].hosts = allowed_hosts("127.0.0.1", int(c.port or 0))
            assert (await c.get("/", headers={"Host": "attacker.example"})).status == 421
            assert (await c.get("/", headers={"Host": f"127.0.0.1:{c.port}"})).status == 200

    asyncio.run(go())


def test_labels_need_the_token(small_db: tuple[Path, dict[str, int]]) -> None:
    db, ids = small_db
    url = f"/api/forms/{ids['evil']}/label"

    async def check(c: TestClient[Any, Any]) -> None:
        body = {"verdict": "wrong", "true_domain": "book", "note": "a library search"}
        assert (await c.post(url, json=body)).status == 403
        assert (await c.post(url, json=body, headers={TOKEN_HEADER: "guess"})).status == 403
        assert (await c.post(url, data={**body, "token": TOKEN[:-1]})).status == 403
        assert stored_labels(db) == []
        ok = await c.post(url, json=body, headers={TOKEN_HEADER: TOKEN})
        assert ok.status == 200 and (await ok.json())["label"]["true_domain"] == "book"
        bad = await c.post(url, json={"verdict": "maybe"}, headers={TOKEN_HEADER: TOKEN})
        assert bad.status == 400
        wrong = await c.post(url, json={"verdict": "wrong"}, headers={TOKEN_HEADER: TOKEN})
        assert wrong.status == 400 and "true domain" in (await wrong.json())["error"]
        gone = await c.post("/api/forms/999/label", json=body, headers={TOKEN_HEADER: TOKEN})
        assert gone.status == 400
        # the HTML form: the page carries the token only after ?token=...
        plain = await (await c.get(f"/forms/{ids['book']}")).text()
        assert 'name="token"' not in plain and "read-only" in plain
        with_token = await c.get(f"/forms/{ids['book']}?token={TOKEN}")
        assert TOKEN_COOKIE in with_token.cookies
        html = await with_token.text()
        assert f'name="token" value="{TOKEN}"' in html
        again = await (await c.get(f"/forms/{ids['book']}")).text()  # the cookie is enough
        assert f'value="{TOKEN}"' in again
        posted = await c.post(f"/forms/{ids['book']}/label", allow_redirects=False,
                              data={"token": TOKEN, "verdict": "right", "true_domain": ""})
        assert posted.status == 303 and posted.headers["Location"].startswith(
            f"/forms/{ids['book']}")  # fmt: skip
        labels = await (await c.get("/api/labels")).json()
        assert [(x["form_id"], x["verdict_ok"], x["true_domain"]) for x in labels["labels"]] == [
            (ids["book"], True, "book"), (ids["evil"], False, "book")]
        assert labels["n_wrong"] == 1
        listed = await (await c.get("/api/forms?labelled=yes")).json()
        assert {f["form_id"] for f in listed["forms"]} == {ids["book"], ids["evil"]}

    run_client(db, check)
    assert stored_labels(db) == [(ids["evil"], False, "book", "a library search"),
                                 (ids["book"], True, "book", "")]


def test_an_older_catalogue_is_browsed_and_migrated_on_the_first_label(
        small_db: tuple[Path, dict[str, int]]) -> None:  # fmt: skip
    db, ids = small_db
    with duckdb.connect(str(db)) as con:  # make it a schema-3 file
        con.execute("DROP TABLE form_labels")
        con.execute("DROP TABLE learner_state")
        con.execute("DROP TABLE robots")
        con.execute("DELETE FROM schema_version WHERE version >= 4")

    async def check(c: TestClient[Any, Any]) -> None:
        assert (await c.get("/forms")).status == 200
        assert (await (await c.get("/api/labels")).json())["labels"] == []
        resp = await c.post(f"/api/forms/{ids['book']}/label", json={"verdict": "right"},
                            headers={TOKEN_HEADER: TOKEN})  # fmt: skip
        assert resp.status == 200

    run_client(db, check)
    assert stored_labels(db) == [(ids["book"], True, "book", "")]


def test_suggestions_on_a_crawled_catalogue(crawled_db: Path) -> None:
    async def check(c: TestClient[Any, Any]) -> None:
        data = await (await c.get("/api/labels")).json()
        assert data["suggestions"], data["suggestions_note"]
        margins = [s["margin"] for s in data["suggestions"]]
        assert margins == sorted(margins)
        html = await (await c.get("/labels")).text()
        assert f'href="/forms/{data["suggestions"][0]["form_id"]}"' in html
        run = await (await c.get("/api/runs/1")).json()
        # the page shows the terms the learner stored, iteration by iteration
        with duckdb.connect(str(crawled_db), read_only=True) as con:
            stored = con.execute("SELECT iteration, features FROM learning_iterations "
                                 "WHERE run_id = 1 ORDER BY iteration").fetchall()
        assert [it["iteration"] for it in run["learning"]] == [i for i, _ in stored]
        for it, (_, raw) in zip(run["learning"], stored, strict=True):
            spaces = json.loads(raw).get("features", {}) if raw else {}
            assert {k: v for k, v in it["terms"].items() if v} == \
                {k: v[:40] for k, v in spaces.items() if v}
        assert any(any(it["terms"].values()) for it in run["learning"]), run["learning"]
        assert run["curve"][-1][1] == run["run"]["relevant_forms"]

    run_client(crawled_db, check)


@pytest.mark.parametrize("path", ["/runs/x", "/forms/abc"])
def test_bad_ids_are_usage_errors(small_db: tuple[Path, dict[str, int]], path: str) -> None:
    async def check(c: TestClient[Any, Any]) -> None:
        resp = await c.get(path)
        assert resp.status == 400 and "must be a number" in await resp.text()

    run_client(small_db[0], check)


def test_a_crawl_records_its_models_and_rejudging_reproduces_its_verdicts(
        crawled_db: Path) -> None:  # fmt: skip
    with duckdb.connect(str(crawled_db), read_only=True) as con:
        (raw,) = con.execute("SELECT models FROM runs WHERE run_id = 1").fetchall()[0]
        n_copies, with_score = con.execute(
            "SELECT count(*), count(page_score) FROM forms").fetchall()[0]  # fmt: skip
    models = json.loads(raw)
    assert models["critic"] == "FormCritic"
    shipped = persist.model_info(persist.DEFAULT_MODELS / "domain")
    assert models["domain"]["manifest_sha256"] == shipped["manifest_sha256"]
    assert n_copies > 5 and with_score == n_copies  # what rejudge may need is kept
    with Catalogue(crawled_db) as cat:
        report = rejudge(cat, lambda d: FormCritic(d), critic="default")
        differ = cat.con.execute(
            "SELECT count(*) FROM form_verdicts v JOIN forms f USING (form_id)"
            " WHERE v.domain IS DISTINCT FROM f.domain OR v.relevant <> f.relevant"
            " OR v.searchable <> f.searchable").fetchall()[0][0]  # fmt: skip
        first = cat.con.execute("SELECT min(form_id) FROM forms WHERE searchable"
                                ).fetchall()[0][0]  # fmt: skip
        add_label(cat.con, first, verdict_ok=False, true_domain="job")
    assert report.judged == n_copies and report.skipped == 0
    assert differ == 0 and sum(report.counts().values()) == 0

    async def check(c: TestClient[Any, Any]) -> None:
        listed = (await (await c.get("/api/rejudgings")).json())["rejudgings"]
        assert [r["rejudge_id"] for r in listed] == [1]
        assert listed[0]["models"]["domain"]["name"] == persist.SHIPPED
        one = await (await c.get("/api/rejudgings/1")).json()
        assert one["rejudging"]["summary"]["judged"] == n_copies
        assert set(one["changes"]) == {"newly_relevant", "no_longer_relevant", "domain_changed"}
        html = await (await c.get("/rejudgings/1")).text()
        assert "Re-judging 1" in html and 'id="count-newly_relevant">0<' in html
        forms = await (await c.get("/api/forms?labelled=yes")).json()
        (row,) = forms["forms"]
        assert row["label_domain"] == "job" and row["domain"] == "job"
        assert row["judged_by"] == "rejudge 1"
        page = await (await c.get("/forms")).text()
        assert "Form directory" in page and "rejudge 1" in page
        log = await (await c.get("/api/forms?all_rows=yes&limit=500")).json()
        assert log["total"] == n_copies and log["all_rows"]
        detail = await (await c.get(f"/forms/{first}")).text()
        assert 'id="copies"' in detail and 'href="/rejudgings/1"' in detail
        assert (await c.get("/rejudgings/7")).status == 404

    run_client(crawled_db, check)


def test_bad_requests_get_400_and_a_json_error(small_db: tuple[Path, dict[str, int]]) -> None:
    """Issue 29: a JSON array as a label body, an offset beyond int64, a huge id."""
    db, ids = small_db
    url = f"/api/forms/{ids['evil']}/label"

    async def check(c: TestClient[Any, Any]) -> None:
        for path in ("/api/forms?offset=" + str(2**70), "/api/forms?offset=99999999999999999999",
                     "/api/forms?run=" + str(2**64), "/api/forms?min_score=nan",
                     "/api/forms?limit=1e400", "/api/forms/" + str(2**70),
                     "/api/runs/" + str(2**70)):  # fmt: skip
            resp = await c.get(path)
            assert resp.status == 400, (path, resp.status, await resp.text())
            assert "error" in await resp.json()
        for body in ("[]", '[["verdict", "right"]]', '"right"', "1", "null", "[" * 60_000):
            resp = await c.post(url, data=body, headers={TOKEN_HEADER: TOKEN,
                                                         "Content-Type": "application/json"})
            assert resp.status == 400, (body[:20], resp.status, await resp.text())
            assert "error" in await resp.json()
        resp = await c.post(url, data="[" * 100_000, headers={TOKEN_HEADER: TOKEN,
                                                              "Content-Type": "application/json"})
        assert resp.status == 413 and "error" in await resp.json()
        assert stored_labels(db) == []

    run_client(db, check)


def test_fuzzed_api_requests_never_fail_inside(small_db: tuple[Path, dict[str, int]]) -> None:
    """Hypothesis over the API's query strings and label bodies: 200, 400, 403 or 404 with
    JSON, never a 500."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    db, ids = small_db
    keys = st.sampled_from(["run", "min_score", "limit", "offset", "domain", "site",
                            "relevant", "labelled", "x"])  # fmt: skip
    values = st.one_of(st.text(max_size=30), st.integers().map(str),
                       st.floats().map(str), st.sampled_from(["yes", "no", "any", ""]))  # fmt: skip
    bodies = st.one_of(st.binary(max_size=200), st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
            st.sampled_from(["verdict", "true_domain", "note", "token"]), inner, max_size=4),
        max_leaves=10).map(lambda v: json.dumps(v).encode()))  # fmt: skip
    cases: list[tuple[dict[str, str], bytes, str]] = []

    @settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
    @given(query=st.dictionaries(keys, values, max_size=4), body=bodies,
           target=st.sampled_from([str(ids["evil"]), "0", "-1", str(2**63), "x"]))  # fmt: skip
    def collect(query: dict[str, str], body: bytes, target: str) -> None:
        cases.append((query, body, target))

    collect()

    async def check(c: TestClient[Any, Any]) -> None:
        for query, body, target in cases:
            resp = await c.get("/api/forms", params=query)
            assert resp.status in (200, 400), (query, resp.status, await resp.text())
            await resp.json()
            resp = await c.post(f"/api/forms/{target}/label", data=body,
                                headers={TOKEN_HEADER: TOKEN, "Content-Type": "application/json"})
            assert resp.status in (200, 400, 404, 405), (body[:60], resp.status,
                                                         await resp.text())  # fmt: skip
            if resp.status != 405:
                await resp.json()

    run_client(db, check)
