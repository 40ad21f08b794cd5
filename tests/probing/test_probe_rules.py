"""The rules of probing, one test each: what may be probed, the form data a browser
would send, the query plan, how answers are read and judged."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from formhunter.cli import main
from formhunter.config import load_settings
from formhunter.model import Link, Page
from formhunter.probing import probe_fetch_settings
from formhunter.probing.plan import (
    Plan,
    ProbeForm,
    nonsense_word,
    read_inputs,
    refusal,
    submission_url,
    words_of,
)
from formhunter.probing.results import Answer, judge, mark_items, read_page, reported_count

SEARCH = """<form action="/find?view=1" method="get">
  <input type="hidden" name="lang" value="en">
  <label>Title <input name="q"></label>
  <select name="genre"><option value="">Any</option><option value="sf">Science fiction</option>
    <option value="bio" selected>Biography</option><option>Poetry</option></select>
  <input type="radio" name="fmt" value="pb"> Paperback <input type="radio" name="fmt" value="hc"
    checked> Hardcover
  <input type="checkbox" name="instock" value="1">
  <input type="submit" value="Search">
</form>"""


def _form(html: str = SEARCH, method: str = "GET", searchable: bool = True) -> ProbeForm:
    return ProbeForm(1, "books.example", "sig", "http://www.books.example/find?view=1", method,
                     searchable, "book", html, "http://www.books.example/", "Find books",
                     "", read_inputs(html))  # fmt: skip


def test_only_get_searchable_forms_without_personal_fields_are_probed() -> None:
    assert refusal(_form()) == ""
    assert refusal(_form(method="POST")) == "method POST"
    assert refusal(_form(searchable=False)) == "judged not searchable"
    for field in ('<input type="password" name="pw">', '<input type="email" name="e">',
                  '<input type="file" name="f">', '<textarea name="t"></textarea>'):  # fmt: skip
        html = SEARCH.replace("</form>", field + "</form>")
        assert refusal(_form(html)).startswith("a "), field
    assert "nothing to vary" in refusal(_form('<form><input type="hidden" name="a"></form>'))


def test_form_data_is_what_a_browser_sends() -> None:
    inputs = read_inputs(SEARCH)
    kinds = {i.name: i.kind for i in inputs}
    assert kinds == {"lang": "hidden", "q": "text", "genre": "select", "fmt": "radio",
                     "instock": "checkbox"}  # fmt: skip
    genre = next(i for i in inputs if i.name == "genre")
    assert genre.options == ["", "sf", "bio", "Poetry"] and genre.default == "bio"
    plan = Plan(_form(), ["history"])
    pairs = dict(plan.initial()[1].pairs(inputs))  # the empty query: every default
    assert pairs == {"lang": "en", "q": "", "genre": "bio", "fmt": "hc"}  # no unchecked box
    url = submission_url("http://www.books.example/find?view=1#top", list(pairs.items()))
    parts = urlsplit(url)
    assert parts.path == "/find" and not parts.fragment
    assert "view" not in dict(parse_qsl(parts.query))  # GET replaces the action's query


def test_plan_control_then_one_input_at_a_time_with_the_forms_own_values() -> None:
    form = _form()
    queries = Plan(form, ["history", "poems"]).initial()
    assert (queries[0].kind, queries[0].input, queries[0].value) == ("control", "q",
                                                                     nonsense_word(form))
    assert nonsense_word(form) == nonsense_word(_form()) and nonsense_word(form).isalpha()
    assert queries[1].kind == "empty"
    assert (queries[2].kind, queries[2].value) == ("text", "history")
    choices = [q for q in queries if q.kind == "choice"]
    assert {q.input for q in choices} == {"genre", "fmt"}
    for q in choices:  # values of the form itself, never its default
        inp = next(i for i in form.inputs if i.name == q.input)
        assert q.value in inp.options and q.value != inp.default
    plan = Plan(form, [])
    plan.initial()
    q = plan.refine(["Moby Dick by Herman Melville", "The Melville reader"])
    assert q is not None and (q.kind, q.input, q.value) == ("refine", "q", "melville")


def test_words_drop_what_every_page_of_a_site_says() -> None:
    titles = [f"{t} - Acme Books" for t in ("Poetry", "History of Rome", "Rome travel",
                                            "Novels")]  # fmt: skip
    words = words_of(titles)
    assert "acme" not in words and "books" not in words and words[0] == "rome"


def _answer(kind: str, links: list[str], text: str = "", status: int = 200) -> Answer:
    a = Answer(kind, "q" if kind != "empty" else "", "x", "http://h.example/find?q=x")
    page = Page(url=a.url, final_url=a.url, status=status, site="h.example", text=text,
                links=[Link(u, anchor=u.rsplit("/", 1)[-1]) for u in links])  # fmt: skip
    a.status = status
    read_page(a, page, "http://h.example/find")
    return a


FRAME = ["http://h.example/", "http://h.example/about"]


def test_answers_static_and_unknown_verdicts() -> None:
    same = [_answer(k, FRAME) for k in ("control", "empty", "text", "text")]
    mark_items(same)
    assert judge(same).verdict == "static"
    # a next-page link back to the action does not make pages differ
    paged = [*same[:2], _answer("text", [*FRAME, "http://h.example/find?q=a&page=2"])]
    mark_items(paged)
    assert judge(paged).verdict == "static"
    answers = [_answer("control", FRAME, "No results."),
               _answer("empty", [*FRAME, "http://h.example/i/1", "http://h.example/i/2"],
                       "Showing 1-2 of 1,234 results"),
               _answer("text", [*FRAME, "http://h.example/i/2"], "1 result")]  # fmt: skip
    mark_items(answers)
    assert [a.n_items for a in answers] == [0, 2, 1]
    v = judge(answers)
    assert v.verdict == "answers" and v.results_estimate == 1234 and v.inputs == ["q"]
    assert judge(answers[:1]).verdict == "unknown"
    failed = [answers[0], _answer("text", [], status=500)]
    failed[1].error = "http-5xx"
    assert judge(failed).verdict == "unknown"


def test_reported_counts() -> None:
    assert reported_count("Results 11 - 20 of 64") == 64
    assert reported_count("We found 37 matches") == 37
    assert reported_count("1,204 cars for sale") == 1204
    assert reported_count("Welcome to our shop") is None


def test_probing_never_skips_robots_txt(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://www.books.example/\n")
    db = tmp_path / "c.duckdb"
    assert main(["crawl", "--domain", "book", "--seeds", str(seeds), "--db", str(db),
                 "--probe", "--no-robots"]) == 2  # fmt: skip
    assert "--probe needs robots.txt obeyed" in capsys.readouterr().err
    assert not db.exists()
    settings = load_settings(None, {"fetch": {"obey_robots": False}})
    assert probe_fetch_settings(settings).obey_robots  # formhunter probe: always obeyed
