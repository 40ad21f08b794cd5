"""``DomainPageScores``: every domain's page score with each page stemmed once, equal
to each classifier's own ``page_scores``."""

from __future__ import annotations

from classifiers.page_classifier import PageTopicClassifier
from formhunter.model import Page
from formhunter.page_classifiers.text import DomainPageScores, TextPageClassifier

FLIGHTS = ["cheap flights airline tickets fare", "book a flight to paris airport",
           "return flights departure arrival airline"]  # fmt: skip
FILMS = ["movie showtimes cinema film director", "film reviews actors cast trailer",
         "cinema tickets new movies this week"]  # fmt: skip
OTHER = ["chocolate cake recipe sugar butter", "local news weather council election",
         "garden tools lawn mower sale"]  # fmt: skip


def _clf(pos: list[str], model: str) -> TextPageClassifier:
    neg = [t for t in FLIGHTS + FILMS + OTHER if t not in pos]
    est = PageTopicClassifier(model=model, random_state=0).fit(pos + neg,
                                                                [1] * len(pos) + [0] * len(neg))
    return TextPageClassifier(est)


def _page(text: str) -> Page:
    return Page(url="https://example.org/", final_url="", status=200, site="example.org",
                title=text.split()[0], text=text)  # fmt: skip


def test_shared_scores_equal_each_classifiers_own() -> None:
    clfs = {"airfare": _clf(FLIGHTS, "svm"), "movie": _clf(FILMS, "nb")}
    scorer = DomainPageScores(clfs)
    pages = [_page(t) for t in ["flights to rome airline fare", "a film at the cinema",
                                "apple pie recipe", "nothing known here"]]  # fmt: skip
    got = scorer(pages)
    assert scorer._checked and scorer._parts is not None
    assert got == {d: c.page_scores(pages) for d, c in clfs.items()}
    assert got["airfare"][0] > 0.5 > got["airfare"][2]
    assert scorer([]) == {"airfare": [], "movie": []}
