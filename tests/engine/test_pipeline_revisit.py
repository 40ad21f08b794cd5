"""Issue 24: when later pages show a site is on topic, its earlier verdicts are revisited
(the trained critic with its context model, a real catalogue, the real pipeline)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from formhunter.catalogue import Catalogue
from formhunter.config import Settings
from formhunter.critics.trained import FormCritic
from formhunter.fetch import FetchResult
from formhunter.frontier import add_seeds
from formhunter.interfaces import LinkRecord, LinkScorer, PageOutcome
from formhunter.model import Page
from formhunter.pipeline import Components, Fetched, Pipeline, open_pipeline
from formhunter.scorers.simple import BreadthFirstScorer
from formhunter.stats import CrawlStats
from formhunter.strategies import Strategy

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "context"
CAR_PAGE = (FIXTURES / "car.html").read_bytes()
#: a home page that says nothing of the site's topic, with a site-wide keyword box
HOME_PAGE = (FIXTURES / "home.html").read_bytes()


class _TitlePages:
    """On topic when the title says "used cars" (the URL, which names cars, is not read)."""

    def page_scores(self, pages: Sequence[Page]) -> list[float]:
        return [0.9 if "used cars" in p.title.lower() else 0.1 for p in pages]

    def page_score(self, page: Page) -> float:
        return self.page_scores([page])[0]


class _Recorder:
    def __init__(self) -> None:
        self.outcomes: list[PageOutcome] = []

    def observe(self, outcome: PageOutcome) -> LinkScorer | None:
        self.outcomes.append(outcome)
        return None

    def failed(self, link: LinkRecord, lid: int) -> None: ...

    def finish(self) -> None: ...

    def state(self) -> bytes:
        return b""

    def restore(self, state: bytes) -> LinkScorer | None:
        return None


def _fetched(pipe: Pipeline, pages: list[tuple[str, bytes]]) -> list[Fetched]:
    for url, _ in pages:
        add_seeds(pipe.frontier, [url])
    taken = {}
    for _ in pages:
        e = pipe.frontier.next(0.0)
        assert e is not None
        taken[e.url] = e
    return [Fetched(taken[u], FetchResult(u, u, 200, body=b, content_type="text/html"))
            for u, b in pages]  # fmt: skip


def test_a_sites_later_pages_make_its_box_relevant(tmp_path: Path) -> None:
    strategy = Strategy(name="t", description="test", follow="all", on_topic_threshold=0.5)
    cat = Catalogue(tmp_path / "c.duckdb")
    run_id = cat.new_run(domain="auto", strategy="t", max_pages=10, config={}, seeds=[])
    settings = Settings()
    settings = dataclasses.replace(settings, fetch=dataclasses.replace(
        settings.fetch, per_host_connections=8))  # several pages of one host in one batch
    pipe = open_pipeline(settings, strategy, cat, run_id, resumed=False, seeds=[],
                         stats=CrawlStats())
    learner = _Recorder()
    pipe.components = Components(_TitlePages(), FormCritic("auto"), BreadthFirstScorer(),
                                 [("recorder", learner)])  # fmt: skip
    site = "https://www.cars-and-more.example"
    first = pipe.process(_fetched(pipe, [(f"{site}/", HOME_PAGE)]))
    ((_, verdict),) = first.pages[0].forms
    assert verdict.searchable and not verdict.relevant and pipe.stats.relevant == 0
    # the site's next pages are about used cars: its share of pages on topic grows to 3/4
    later = [(f"{site}/used-cars/{i}", CAR_PAGE) for i in range(3)]
    res = pipe.process(_fetched(pipe, later))
    assert all(p.on_topic and not p.forms for p in res.pages)  # the box is not new there
    assert pipe.stats.relevant == 1 and not pipe.stats.faults
    told = [v for o in learner.outcomes[1:] for v in o.verdicts if v.relevant]
    assert len(told) == 1 and told[0].domain == "auto"
    cat.commit()
    assert cat.con.execute("SELECT domain, relevant FROM forms").fetchall() == [("auto", True)]
    cat.close()
