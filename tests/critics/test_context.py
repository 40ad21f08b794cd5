"""Issue 24: the domain of a form from the form, its page and its site."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from classifiers.context import CONTEXT_FEATURES, DomainContextModel, PageTopics, pair_features
from classifiers.domain import DomainFormClassifier
from classifiers.form_features import FormSample, FormText, StemTokenizer
from classifiers.lexicon import concept_words, lexicon_hits, lexicon_scores
from classifiers.page_classifier import train_page_classifier
from formhunter.catalogue import Catalogue
from formhunter.cli import main
from formhunter.critics.trained import FormCritic
from formhunter.interfaces import SiteAwareCritic
from formhunter.parse import parse_page
from formhunter.rejudge import rejudge

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "context"
#: a used-car dealer's page and a news page, each with the same site-wide keyword box
CAR_PAGE = (FIXTURES / "car.html").read_bytes()
NEWS_PAGE = (FIXTURES / "news.html").read_bytes()


def test_page_topics_equal_each_page_classifier() -> None:
    models = {d: train_page_classifier(d, "svm", evaluate=False)[0] for d in ("auto", "book")}
    topics = PageTopics(models)
    texts = ["Used cars for sale, diesel SUV, low mileage", "Library catalogue: search books",
             "", "Weather today: rain in the north"]  # fmt: skip
    got = topics.scores(texts)
    for k, d in enumerate(topics.domains_):
        assert np.allclose(got[:, k], models[d].topic_probability(texts), atol=1e-12)


def test_context_model_learns_that_a_box_takes_its_pages_topic() -> None:
    rng = np.random.default_rng(0)
    classes, domains = ["auto", "book", "other"], ["auto", "book"]
    n = 300
    y = rng.choice(classes, n)
    topics = rng.uniform(0, 0.3, (n, 2))
    box = rng.uniform(size=n) < 0.5
    proba = np.full((n, 3), 0.2)
    for i, lab in enumerate(y):
        if lab != "other":
            topics[i, domains.index(lab)] = rng.uniform(0.6, 1.0)
        if not box[i]:
            proba[i, classes.index(lab)] = 0.8
        else:
            proba[i, 2] = 0.7  # a keyword box looks like a site search to the form model
    X = pair_features(proba / proba.sum(1, keepdims=True), classes, topics, domains, box)
    assert X.shape == (n, 3, len(CONTEXT_FEATURES))
    model = DomainContextModel(classes=classes).fit(X, y)
    assert dict(zip(CONTEXT_FEATURES, model.coef_, strict=True))["topic"] > 0
    assert np.mean(model.predict(X) == y) > 0.9
    assert np.allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_lexicon_carries_across_languages() -> None:
    for text, domain in [("Knihy a e-knihy", "book"), ("Begagnade bilar", "auto"),
                         ("חיפוש ספרים", "book"), ("搜索图书", "book"), ("中古車検索", "auto"),
                         ("Hudba", "music"), ("Stellenangebote", "job"), ("Mietwagen", "rental"),
                         ("Filmy online", "movie"), ("Billige flyreiser og flybillett", "airfare"),
                         ("ホテル予約", "hotel")]:  # fmt: skip
        hits = lexicon_hits(text)
        assert hits[domain] >= 1, (text, hits)
    assert lexicon_hits("Carpet cleaning and bookkeeping")["auto"] == 0  # word starts only
    assert lexicon_scores(["", "books"], ["book", "x"]).tolist() == [[0.0, 0.0], [0.5, 0.0]]


def test_the_domain_model_reads_the_title_as_language_neutral_concepts() -> None:
    # "knihy" (Slovak) and "books" give the same word, which the word tokenizer keeps whole
    assert concept_words("Knihy a e-knihy") == concept_words("Books") == "lexbook"
    assert concept_words("Begagnade bilar | Ojeté vozy") == "lexauto lexauto lexauto"
    assert StemTokenizer()("lexbook lexjob") == ["lexbook", "lexjob"]
    box = b'<form action="/hladaj"><input type="text" name="q"><input type="submit">'
    form = b'<form action="/hladaj"><input name="autor"><input name="nazov"><input type="submit">'
    for html, words in [(form, ["lexbook lexbook"]), (box, [""])]:  # a box's: its context's
        sample = FormSample(parse_page("https://kniznica.sk/", html + b"</form>").forms[0],
                            title="Knihy a e-knihy", site_name="Knižnica")  # fmt: skip
        # distinct entries: "knihy" (twice) and "knižnic"
        assert FormText("page_concepts").fit_transform([sample]) == words
    assert "page_concepts" in DomainFormClassifier().signals


@pytest.fixture(scope="module")
def critic() -> FormCritic:
    return FormCritic("auto")


def test_the_page_decides_a_keyword_box(critic: FormCritic) -> None:
    assert isinstance(critic, SiteAwareCritic) and critic.context is not None
    car = parse_page("https://autohaus-mueller.example/", CAR_PAGE)
    news = parse_page("https://dailyherald.example/", NEWS_PAGE)
    topics = critic.page_topics([car, news])
    k = critic.topic_domains.index("auto")
    assert topics[0, k] > 0.5 > topics[1, k]
    (on_car,), (on_news,) = critic.judge_many([(car.forms, car), (news.forms, news)])
    assert on_car.searchable and on_car.domain == "auto" and on_car.relevant
    assert on_news.searchable and on_news.domain == "other" and not on_news.relevant


def test_a_site_shown_on_topic_later_revises_its_box_and_rejudge_keeps_it(
        critic: FormCritic, tmp_path: Path) -> None:  # fmt: skip
    news = parse_page("https://cars-and-more.example/", NEWS_PAGE)
    (v,) = critic.judge(news.forms, news)
    assert not v.relevant and v.searchable
    assert critic.revisit_site("cars-and-more.example", 0.0) == []
    revised = critic.revisit_site("cars-and-more.example", 1.0)
    assert [sig for sig, _ in revised] == [news.forms[0].signature]
    assert revised[0][1].relevant and revised[0][1].domain == "auto"
    assert critic.revisit_site("cars-and-more.example", 1.0) == []  # once
    with Catalogue(tmp_path / "c.duckdb") as cat:
        run = cat.new_run(domain="auto", strategy="ache", max_pages=10, config={}, seeds=[])
        cat.add_form(run, 1, news, news.forms[0], v, found_after_pages=1, path=[])
        cat.commit()
        stored = cat.con.execute("SELECT page_topics FROM forms").fetchall()[0][0]
        cat.revise_form(run, news.site, news.forms[0].signature, revised[0][1])
        cat.commit()
        row = cat.con.execute("SELECT domain, relevant, page_topics FROM forms").fetchall()
        # the catalogue keeps no page text: re-judging decides from the topics the
        # revised verdict read (the site's evidence), as the crawl did
        report = rejudge(cat, lambda d: FormCritic(d), critic="default")
        again = cat.con.execute("SELECT domain, relevant FROM form_verdicts").fetchall()
    assert json.loads(stored) == v.page_topics and v.page_topics is not None
    assert v.page_topics["auto"] < 0.5
    assert row[0][:2] == ("auto", True) and json.loads(row[0][2])["auto"] == 1.0
    assert again == [("auto", True)] and sum(report.counts().values()) == 0


def test_judge_lines_carry_the_page_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:  # fmt: skip
    (tmp_path / "car.html").write_bytes(CAR_PAGE)
    (tmp_path / "news.html").write_bytes(NEWS_PAGE)
    assert main(["judge", str(tmp_path), "--domain", "auto"]) == 0
    rows = {Path(r["file"]).name: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows["car.html"]["page_topic"] == rows["news.html"]["page_topic"] == "auto"
    assert rows["car.html"]["page_score"] > 0.5 > rows["news.html"]["page_score"]
    assert rows["car.html"]["relevant"] and not rows["news.html"]["relevant"]
    assert main(["judge", str(tmp_path)]) == 0  # no target: the page's best topic
    row = json.loads(capsys.readouterr().out.splitlines()[0])
    assert row["page_topic"] == "auto"
