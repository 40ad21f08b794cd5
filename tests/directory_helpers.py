"""Helpers of the directory's tests: a catalogue of two runs that saw one form twice."""

from __future__ import annotations

from pathlib import Path

from formhunter.catalogue import Catalogue
from formhunter.model import Field, Form, Page, Verdict

BOOK = ('<form action="/find"><label>Title <input name="title"></label>'
        '<label>Author <input name="author"></label><button>Search books</button></form>')
MOVIE = ('<form action="/films"><label>Film title <input name="film"></label>'
         '<select name="genre"><option>Drama</option><option>Comedy</option></select>'
         '<button>Find films</button></form>')  # fmt: skip


def _form(action: str, html: str, names: list[str]) -> Form:
    return Form(action, "get", [Field(n, "text", label=n.title()) for n in names], html=html)


def two_runs(db: Path) -> None:
    """Two runs on the same site: the book form in both (on different pages), the film
    form in the second only."""
    with Catalogue(db) as cat:
        for run_no in (1, 2):
            run = cat.new_run(domain="book", strategy="bfs", max_pages=5, config={}, seeds=[])
            page = Page(url=f"http://www.lib.example/p{run_no}", final_url="", status=200,
                        site="lib.example", title=f"Search {run_no}")  # fmt: skip
            cat.add_form(run, 1, page, _form("http://www.lib.example/find", BOOK,
                                             ["title", "author"]),
                         Verdict(True, 0.9, "book", 0.8, True), found_after_pages=1,
                         path=[(page.url, "")], page_score=0.7)  # fmt: skip
            if run_no == 2:
                cat.add_form(run, 2, page, _form("http://www.lib.example/films", MOVIE,
                                                 ["film", "genre"]),
                             Verdict(True, 0.8, "book", 0.4, True), found_after_pages=2,
                             path=[(page.url, "")])  # fmt: skip
            cat.commit()
