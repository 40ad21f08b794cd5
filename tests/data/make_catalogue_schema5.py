"""Made tests/data/catalogue_schema5.duckdb.gz with the code of main before issue 26
(schema 5, commit 813d470): python tests/data/make_catalogue_schema5.py FILE; gzip -9 FILE.
Not a test module: kept to say how the fixture was made."""
import sys
from pathlib import Path

from formhunter.catalogue import SCHEMA_VERSION, Catalogue
from formhunter.labels import add_label
from formhunter.model import Field, Form, Page, Verdict

db = Path(sys.argv[1])
with Catalogue(db) as cat:
    assert SCHEMA_VERSION == 5
    for run_no in (1, 2):
        run = cat.new_run(domain="book", strategy="bfs", max_pages=10, config={},
                          seeds=["http://www.lib.example/"])
        page = Page(url=f"http://www.lib.example/search{run_no}", final_url="", status=200,
                    site="lib.example", title="Library catalogue")
        book = Form("http://www.lib.example/find", "get",
                    [Field("title", "text", label="Title", placeholder="e.g. Dune"),
                     Field("fmt", "select", label="Format", options=["Book", "DVD"], value="Book"),
                     Field("sid", "hidden", value="abc123")],
                    html='<form action="/find"><input name="title" placeholder="e.g. Dune">'
                    '<select name="fmt"><option>Book</option><option>DVD</option></select>'
                    '<input type="hidden" name="sid" value="abc123"></form>', context="Find a book")
        login = Form("http://www.lib.example/login", "post", [Field("user", "text")],
                     html="<form><input name=user></form>")
        path = [("http://www.lib.example/", ""), (page.url, "Search")]
        cat.add_form(run, 2, page, book, Verdict(True, 0.95, "book", 0.91, True),
                     found_after_pages=2, path=path)
        cat.add_form(run, 3, page, login, Verdict(False, 0.05, "", 0.0, False),
                     found_after_pages=3, path=path)
        if run_no == 2:
            music = Form("http://www.tunes.example/q", "get", [Field("q", "text", label="Artist")],
                         html='<form action="/q"><input name="q"></form>')
            p2 = Page(url="http://www.tunes.example/", final_url="", status=200,
                      site="tunes.example", title="Tunes")
            cat.add_form(run, 4, p2, music, Verdict(True, 0.9, "book", 0.55, True),
                         found_after_pages=4, path=[(p2.url, "")])
        cat.add_page(run, 1, None, url="http://www.lib.example/", site="lib.example",
                     host="www.lib.example", status=200, error="", content_type="text/html",
                     depth=0, page_score=0.5, on_topic=True, n_bytes=100, elapsed=0.01,
                     parent_url="", anchor="")
        cat.update_run(run, status="finished", end_reason="budget")
        cat.commit()
    add_label(cat.con, 5, verdict_ok=False, true_domain="music", note="a music search")
    add_label(cat.con, 1, verdict_ok=True)
